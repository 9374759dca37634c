package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/kong"
)

// docs/CLI.md is the command reference; these tests keep it whole and
// keep the documents a newcomer reads first short. docs_test.go checks
// the other way round: that what the documents show exists.

// cliDoc is the command reference the tests hold to the CLI.
const cliDoc = "../../docs/CLI.md"

// globalSection is the heading of CLI.md's section on the flags every
// command takes (the root of kong's model).
const globalSection = "Global flags"

// TestCLIDocCoversEveryCommand walks kong's model of the CLI and checks
// that docs/CLI.md has a section for every command and subcommand that
// `tape --help` lists (a heading "tape <command path>"), and that each
// flag the command's help lists is named in that section: --name, and -x
// too when the flag has a short form. The global flags belong to the
// section "Global flags". Hidden commands and flags, and --help, are left
// out, as help leaves them out.
func TestCLIDocCoversEveryCommand(t *testing.T) {
	lines, problems := readDoc(t, cliDoc)
	for _, p := range problems {
		t.Error(p)
	}
	for _, p := range cliDocProblems(wholeModel(t), docSections(lines)) {
		t.Errorf("docs/CLI.md: %s", p)
	}
}

// docSections splits a document into its sections: the text under each
// heading (code blocks included) up to the next heading of any level,
// keyed by the heading's text without its #s and backticks.
func docSections(lines []docLine) map[string]string {
	sections := map[string]string{}
	heading := ""
	var b strings.Builder
	flush := func() {
		if heading != "" {
			sections[heading] += b.String()
		}
		b.Reset()
	}
	for _, l := range lines {
		if !l.code && strings.HasPrefix(l.text, "#") {
			flush()
			heading = strings.TrimSpace(strings.ReplaceAll(strings.TrimLeft(l.text, "#"), "`", ""))
			continue
		}
		b.WriteString(l.text + "\n")
	}
	flush()
	return sections
}

// cliDocProblems returns what the sections lack: a section for a command
// of app, or the mention of one of its flags in its section.
func cliDocProblems(app *kong.Application, sections map[string]string) []string {
	var problems []string
	var walk func(node *kong.Node, heading string)
	walk = func(node *kong.Node, heading string) {
		text, ok := sections[heading]
		if !ok {
			problems = append(problems, fmt.Sprintf("no section %q", heading))
		}
		for _, f := range node.Flags {
			if f.Hidden || f.Name == "help" || !ok {
				continue
			}
			if !mentionsFlag(text, "--"+f.Name) {
				problems = append(problems, fmt.Sprintf("section %q does not name --%s", heading, f.Name))
			}
			if f.Short != 0 && !mentionsFlag(text, "-"+string(f.Short)) {
				problems = append(problems, fmt.Sprintf("section %q does not name -%c, the short form of --%s", heading, f.Short, f.Name))
			}
		}
		for _, c := range node.Children {
			if c.Type == kong.CommandNode && !c.Hidden {
				walk(c, "tape "+c.Path())
			}
		}
	}
	walk(app.Node, globalSection)
	return problems
}

// mentionsFlag reports whether text names flag as a word of its own:
// --kind, not --kinds or --kind-of; -n, not -name.
func mentionsFlag(text, flag string) bool {
	return regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(flag) + `($|[^\w-])`).MatchString(text)
}

// TestCLIDocCheckerFindsMistakes holds the checker above to what it must
// catch: a command without a section, a flag its section does not name,
// a short form left out, and a flag named only as part of a longer one.
func TestCLIDocCheckerFindsMistakes(t *testing.T) {
	lines, _ := readDoc(t, cliDoc)
	whole := docSections(lines)
	if got := cliDocProblems(wholeModel(t), whole); len(got) != 0 {
		t.Fatalf("docs/CLI.md has problems of its own, see TestCLIDocCoversEveryCommand: %q", got)
	}
	for _, tc := range []struct {
		name   string
		change func(map[string]string)
		want   string
	}{
		{"a command's section gone", func(s map[string]string) { delete(s, "tape reindex") }, `no section "tape reindex"`},
		{"a subcommand's section gone", func(s map[string]string) { delete(s, "tape import codex") }, `no section "tape import codex"`},
		{"a flag not named", func(s map[string]string) {
			s["tape reindex"] = strings.ReplaceAll(s["tape reindex"], "--full", "--ful")
		}, `section "tape reindex" does not name --full`},
		{"a short form not named", func(s map[string]string) {
			s["tape log"] = strings.ReplaceAll(s["tape log"], "-f", "")
		}, `does not name -f, the short form of --follow`},
		{"a flag named only inside a longer one", func(s map[string]string) {
			s["tape reindex"] = strings.ReplaceAll(s["tape reindex"], "--full", "--full-rebuild")
		}, `does not name --full`},
		{"a global flag not named", func(s map[string]string) {
			s[globalSection] = strings.ReplaceAll(s[globalSection], "--no-catchup", "")
		}, `section "Global flags" does not name --no-catchup`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sections := map[string]string{}
			for k, v := range whole {
				sections[k] = v
			}
			tc.change(sections)
			got := cliDocProblems(wholeModel(t), sections)
			if !strings.Contains(strings.Join(got, "\n"), tc.want) {
				t.Errorf("problems %q, want one with %q", got, tc.want)
			}
		})
	}
}

// The limits issue 30 set on the documents a newcomer reads first: each
// short enough to finish, and no table cell a wall of text.
const (
	readmeMaxLines       = 150
	architectureMaxLines = 250
	benchmarksMaxBytes   = 20 << 10
	docMaxLineRunes      = 200 // README.md, outside code blocks
	docMaxCellRunes      = 200 // every table cell of the checked documents
)

// TestDocsStayShort checks those limits: README.md's and ARCHITECTURE.md's
// lines, BENCHMARKS.md's bytes, README.md's lines outside code blocks,
// and the table cells of README.md, ARCHITECTURE.md, CONTRIBUTING.md and
// docs/CLI.md.
func TestDocsStayShort(t *testing.T) {
	readme, _ := readDoc(t, "../../README.md")
	architecture, _ := readDoc(t, "../../ARCHITECTURE.md")
	if n := len(nonEmptyTail(readme)); n > readmeMaxLines {
		t.Errorf("README.md has %d lines; at most %d", n, readmeMaxLines)
	}
	if n := len(nonEmptyTail(architecture)); n > architectureMaxLines {
		t.Errorf("ARCHITECTURE.md has %d lines; at most %d", n, architectureMaxLines)
	}
	if info, err := os.Stat("../../BENCHMARKS.md"); err != nil {
		t.Error(err)
	} else if info.Size() > benchmarksMaxBytes {
		t.Errorf("BENCHMARKS.md has %d bytes; at most %d (history is in git)", info.Size(), benchmarksMaxBytes)
	}
	for _, l := range readme {
		if n := utf8.RuneCountInString(l.text); !l.code && n > docMaxLineRunes {
			t.Errorf("%s: a line of %d characters outside a code block; at most %d", l, n, docMaxLineRunes)
		}
	}
	contributing, _ := readDoc(t, "../../CONTRIBUTING.md")
	cli, _ := readDoc(t, cliDoc)
	for _, doc := range [][]docLine{readme, architecture, contributing, cli} {
		for _, l := range doc {
			for _, cell := range tableCells(l) {
				if n := utf8.RuneCountInString(cell); n > docMaxCellRunes {
					t.Errorf("%s: a table cell of %d characters; at most %d: %.60s…", l, n, docMaxCellRunes, cell)
				}
			}
		}
	}
}

// nonEmptyTail returns lines without the empty line a final newline
// leaves, so that the count is what wc -l says.
func nonEmptyTail(lines []docLine) []docLine {
	if n := len(lines); n > 0 && lines[n-1].text == "" {
		return lines[:n-1]
	}
	return lines
}

// tableCells returns the cells of a Markdown table row outside a code
// block (a line that starts with |), split at | that is not escaped as \|.
func tableCells(l docLine) []string {
	text := strings.TrimSpace(l.text)
	if l.code || !strings.HasPrefix(text, "|") {
		return nil
	}
	text = strings.ReplaceAll(strings.Trim(text, "|"), `\|`, "\x00")
	var cells []string
	for _, c := range strings.Split(text, "|") {
		cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", `\|`)))
	}
	return cells
}

// TestTableCells holds tableCells to the rows it splits.
func TestTableCells(t *testing.T) {
	for _, tc := range []struct {
		line string
		code bool
		want []string
	}{
		{"| `--status pending\\|failed` | what |", false, []string{"`--status pending\\|failed`", "what"}},
		{"| a | b | c |", false, []string{"a", "b", "c"}},
		{"| a | b |", true, nil},
		{"text | not a row", false, nil},
	} {
		got := tableCells(docLine{text: tc.line, code: tc.code})
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("tableCells(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
