package aider

import (
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// The markers of a SEARCH/REPLACE block, as Aider's editblock_coder reads
// them (HEAD `^<{5,9} SEARCH>?\s*$`, DIVIDER `^={5,9}\s*$`, UPDATED
// `^>{5,9} REPLACE\s*$`), matched by hand: every line of an answer is
// tried, and the regular expressions were a tenth of a conversion.
func isSearch(s string) bool  { return isMarker(s, '<', " SEARCH", true) }
func isDivider(s string) bool { return isMarker(s, '=', "", false) }
func isReplace(s string) bool { return isMarker(s, '>', " REPLACE", false) }

// isMarker reports whether s is 5 to 9 of c, then word (and a '>' when
// gt allows it), then white space only.
func isMarker(s string, c byte, word string, gt bool) bool {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 5 || n > 9 || !strings.HasPrefix(s[n:], word) {
		return false
	}
	rest := s[n+len(word):]
	if gt && strings.HasPrefix(rest, ">") {
		rest = rest[1:]
	}
	return strings.TrimSpace(rest) == ""
}

// answer is the model's answer: its thinking, when it starts with one
// (Aider writes a model's reasoning between <thinking-content-…> tags; a
// model of reasoning_tag "think" writes <think>), an event; its text, a
// message; and its SEARCH/REPLACE blocks, an edit call each, in one
// tool_call entry after the message, which Aider's "Applied edit to"
// answers.
func (c *chatConverter) answer(b *block) []source.Output {
	run := c.st.Run
	run.Command = ""
	lines := b.lines
	var out []source.Output
	if n, thinking, rest, ok := splitThinking(lines); ok {
		data := rawjson.NewObject().Str("thinking", thinking).Done()
		out = append(out, c.event(n, "thinking", data))
		lines = rest
	}
	text, edits := splitEdits(lines)
	if len(text) > 0 {
		content := joinLines(text)
		payload := rawjson.NewObjectSize(len(content)+len(content)/8+48).Str("role", "assistant").Str("content", content).Done()
		out = append(out, c.entry(text[0].no, 0, tapelog.KindMessage, payload))
	}
	if len(edits) == 0 {
		return out
	}
	calls := make([]call, len(edits))
	for i, e := range edits {
		id := callID(c.tag, e.no)
		args := rawjson.NewObjectSize(len(e.path)+len(e.search)+len(e.replace)+64).
			Str("path", e.path).Str("search", e.search).Str("replace", e.replace).Done()
		calls[i] = call{id: id, name: "edit", args: string(args)}
		run.Edits = append(run.Edits, editCall{ID: id, Path: e.path})
	}
	if n := len(run.Edits); n > maxWaiting {
		run.Edits = append(run.Edits[:0], run.Edits[n-maxWaiting:]...)
	}
	return append(out, c.entry(edits[0].start, 0, tapelog.KindToolCall, callsPayload(calls)))
}

// maxWaiting is how many edits the state keeps waiting for their results:
// Aider answers an answer's edits right after it, and the state is copied
// at each block, so edits of answers with no output after them (a file cut
// short, a hand-made one) are not kept for ever.
const maxWaiting = 256

// splitThinking reads a thinking at the start of lines: the tag's line
// number, the text between the tags, and the lines after the closing
// tag. A thinking whose closing tag does not come is the whole answer.
func splitThinking(lines []line) (int, string, []line, bool) {
	first := strings.TrimSpace(lines[0].text)
	if len(first) < 3 || first[0] != '<' || first[len(first)-1] != '>' {
		return 0, "", nil, false
	}
	tag := first[1 : len(first)-1]
	if tag != "think" && tag != "thinking" && tag != "reasoning" && !strings.HasPrefix(tag, "thinking-content-") {
		return 0, "", nil, false
	}
	end := len(lines)
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i].text) == "</"+tag+">" {
			end = i
			break
		}
	}
	thinking := strings.Trim(joinLines(lines[1:end]), "\n")
	rest := lines[min(end+1, len(lines)):]
	for len(rest) > 0 && rest[0].text == "" {
		rest = rest[1:]
	}
	return lines[0].no, thinking, rest, true
}

// edit is one SEARCH/REPLACE block of an answer: where it starts (its
// file's line, or its fence), the line of its SEARCH marker, and what it
// says.
type edit struct {
	start, no             int
	path, search, replace string
}

// splitEdits takes the SEARCH/REPLACE blocks out of an answer's lines:
// the lines left (blank lines at the ends dropped), and the edits. A
// block is the file's path on the line before "<<<<<<< SEARCH" (or before
// the fence before it, or right after the fence that opens it, as Aider's
// diff-fenced format writes it), the lines to find, "=======", the lines
// to put instead, ">>>>>>> REPLACE", and the fence that closes it. A
// block without its divider and its end, or without a path where no block
// before it in the answer gives one, stays text.
func splitEdits(lines []line) ([]line, []edit) {
	var edits []edit
	var text []line
	done := 0 // lines before it are in text or in an edit
	for k := 0; k < len(lines); k++ {
		if !isSearch(lines[k].text) {
			continue
		}
		d, e := -1, -1
		for j := k + 1; j < len(lines) && e < 0; j++ {
			switch {
			case isSearch(lines[j].text):
				j = len(lines)
			case d < 0 && isDivider(lines[j].text):
				d = j
			case d >= 0 && isReplace(lines[j].text):
				e = j
			}
		}
		if e < 0 {
			continue
		}
		start, path, fenced := blockStart(lines, done, k)
		if path == "" && len(edits) > 0 {
			path = edits[len(edits)-1].path
		}
		if path == "" {
			continue
		}
		end := e
		if fenced && e+1 < len(lines) && isFence(lines[e+1].text) {
			end = e + 1
		}
		text = appendSeam(text, lines[done:start])
		edits = append(edits, edit{start: lines[start].no, no: lines[k].no, path: path,
			search: joinLines(lines[k+1 : d]), replace: joinLines(lines[d+1 : e])})
		done, k = end+1, end
	}
	text = appendSeam(text, lines[done:])
	for len(text) > 0 && text[0].text == "" {
		text = text[1:]
	}
	for len(text) > 0 && text[len(text)-1].text == "" {
		text = text[:len(text)-1]
	}
	return text, edits
}

// appendSeam adds the lines between two edits (or after one) to text,
// without the blank lines at its start when text ends in one: where a
// block was taken out, one blank line is left.
func appendSeam(text, lines []line) []line {
	if len(text) > 0 && text[len(text)-1].text == "" {
		for len(lines) > 0 && lines[0].text == "" {
			lines = lines[1:]
		}
	}
	return append(text, lines...)
}

// blockStart finds the path of the block whose SEARCH marker is line k,
// no further back than line from: the line it starts at, the path, and
// whether a fence opens the block.
func blockStart(lines []line, from, k int) (int, string, bool) {
	at := func(i int) (string, bool) {
		if i < from {
			return "", false
		}
		return lines[i].text, true
	}
	prev, ok := at(k - 1)
	switch {
	case !ok:
		return k, "", false
	case isFence(prev): // path, fence, SEARCH: Aider's diff format
		if p, ok := at(k - 2); ok && filePath(p) != "" {
			return k - 2, filePath(p), true
		}
		return k - 1, "", true
	case filePath(prev) != "": // fence, path, SEARCH: diff-fenced; or path, SEARCH
		if f, ok := at(k - 2); ok && isFence(f) {
			return k - 2, filePath(prev), true
		}
		return k - 1, filePath(prev), false
	}
	return k, "", false
}

// isFence reports whether s opens or closes a code block.
func isFence(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "```") }

// filePath is the path a line before a block names, as Aider's
// strip_filename reads it (without the marks of Markdown around it): ""
// for a line that is none.
func filePath(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || s == "..." || isFence(s) || isSearch(s) || isDivider(s) || isReplace(s) {
		return ""
	}
	s = strings.TrimSpace(strings.TrimLeft(s, "#"))
	s = strings.TrimSpace(strings.TrimRight(s, ":"))
	s = strings.Trim(s, "`*")
	return strings.TrimSpace(s)
}
