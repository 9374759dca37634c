package aider

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// The property "an importer never drops text" (sourcetest.CheckKeepsText)
// on chat histories of random lines of Aider's kinds: runs' starts (some
// no date), Aider's output (with and without its two trailing spaces, of
// several lines, usage lines), inputs of one line or several, commands,
// answers with thinking and SEARCH/REPLACE blocks (some unfinished), edit
// results and errors, and blank lines between. Every word a line holds is
// in an entry's payload, but Aider's marks (rule keptIn). 400 histories
// (40 under -short); FuzzKeepsText explores more.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	sourcetest.KeepsText(t, Source{}, transcript, keptIn)
}

func FuzzKeepsText(f *testing.F) { sourcetest.FuzzKeepsText(f, Source{}, transcript, keptIn) }

// keptIn says whether a word of a line (rec, the line; path, the word's
// index) must be in a payload: not the marks of Aider's format (a run's
// "# aider chat started at", "####", ">", "<blank>", a usage line, which
// is the run event's numbers, the fences and markers of a SEARCH/REPLACE
// block, a thinking's tags, a command's "!").
func keptIn(rec any, path []string) sourcetest.Kept {
	line, _ := rec.(string)
	k, _ := strconv.Atoi(path[0])
	words := strings.Fields(line)
	w := words[k]
	switch {
	case strings.HasPrefix(line, headerPrefix):
		if k < 5 {
			return sourcetest.Nowhere
		}
	case strings.HasPrefix(line, "> Tokens: "), strings.HasPrefix(line, "Cost: $"):
		return sourcetest.Nowhere
	case w == "####" && k == 0, w == ">" && k == 0, w == "<blank>", strings.HasPrefix(w, "```"),
		isSearch(line), isDivider(line), isReplace(line),
		strings.HasPrefix(w, "<think") || strings.HasPrefix(w, "</think"):
		return sourcetest.Nowhere
	}
	return sourcetest.InPayload
}

// gen makes chat histories of random lines of Aider's kinds.
type gen struct{ *sourcetest.Gen }

func transcript(g *sourcetest.Gen) []string { return gen{g}.transcript() }

// text is unique text for one line: no newline, and no leading mark of
// Aider's.
func (g gen) text() string {
	s := strings.NewReplacer("\n", " ", "\r", " ").Replace(g.Str())
	return strings.TrimSpace(s)
}

func (g gen) transcript() []string {
	lines := []string{g.header()}
	for range 1 + g.IntN(25) {
		lines = append(lines, g.record()...)
	}
	return lines
}

func (g gen) header() string {
	when := g.Pick("2025-06-10 09:15:02", "2024-07-30 08:01:44", "yesterday", "2025-06-10 09:15:02")
	return headerPrefix + when
}

// br is Aider's line break, or none (a file an editor stripped).
func (g gen) br() string { return g.Pick("  ", "  ", "") }

func (g gen) record() []string {
	switch g.IntN(12) {
	case 0:
		return []string{"", g.header(), ""}
	case 1, 2:
		return []string{"> " + g.text() + g.br()}
	case 3:
		n := 1 + g.IntN(3)
		var in []string
		for range n {
			in = append(in, "#### "+g.text()+"  ")
		}
		return append([]string{""}, in...)
	case 4:
		return []string{"", "#### " + g.Pick("/add ", "/run ", "/ask ", "/model ", "/") + g.text() + "  "}
	case 5:
		return []string{"", "#### <blank>  "}
	case 6:
		return g.answer()
	case 7:
		return []string{"> Tokens: " + g.Pick("12k", "1,234", "2.1k", "x") + " sent, " + g.Pick("", "3.0k cache write, ", "900 cache hit, ", "5 cached, ") +
			g.Pick("512", "1.5k") + " received." + g.Pick(" Cost: $0.02 message, $0.05 session.  ", "", "  ")}
	case 8:
		return []string{"> Applied edit to " + g.Pick("src/a.go", "b.py") + g.br()}
	case 9:
		return []string{"> The LLM did not conform to the edit format." + g.br(), "> # 1 SEARCH/REPLACE block failed to match!", "",
			"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/a.go", g.text() + "  "}
	case 10:
		return []string{g.text(), "", g.text()}
	}
	return []string{""}
}

// answer is a model's answer: maybe a thinking, text, and blocks.
func (g gen) answer() []string {
	out := []string{""}
	if g.IntN(3) == 0 {
		tag := g.Pick("think", "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b")
		out = append(out, "<"+tag+">", "", g.text(), "")
		if g.IntN(4) > 0 {
			out = append(out, "</"+tag+">", "")
		}
	}
	out = append(out, g.text())
	for range g.IntN(3) {
		path := g.Pick("src/a.go", "b.py", "docs/"+strings.ReplaceAll(g.text(), " ", "_")+".md")
		block := []string{"", path, "```go", "<<<<<<< SEARCH", g.text(), "=======", g.text(), ">>>>>>> REPLACE", "```"}
		if g.IntN(5) == 0 {
			block = block[:6] // unfinished: text
		}
		out = append(out, block...)
	}
	if g.IntN(2) == 0 {
		out = append(out, "", fmt.Sprintf("%s", g.text()))
	}
	return append(out, "")
}
