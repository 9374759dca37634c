package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// The documents a user reads first show tape commands; these tests keep
// them true: README.md and docs/*.md render as their writers meant (every
// code block is closed), and every tape command they show is one the CLI
// has, with flags it has.

// docFiles are the documents checked: the README and docs/*.md (the
// decision records are history, and keep the commands of their day).
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

// docLine is one line of a document, with its place.
type docLine struct {
	file string
	no   int
	text string
	lang string // the info string of the code block it is in; "" outside one
	code bool   // inside a code block
}

func (l docLine) String() string { return fmt.Sprintf("%s:%d", filepath.Base(l.file), l.no) }

// fence matches a line that opens or closes a fenced code block, and its
// info string (CommonMark: up to three spaces, three or more backticks).
var fence = regexp.MustCompile("^ {0,3}(```+)\\s*([^`]*?)\\s*$")

// readDoc splits a Markdown file into lines, saying which are inside a
// code block, and reports the fences that do not pair up as CommonMark
// reads them: only a fence without an info string closes a block, so a
// "```sh" inside an open block is text, and everything after it is code.
func readDoc(t *testing.T, file string) ([]docLine, []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []docLine
	var problems []string
	open, openLine, lang := "", 0, ""
	for i, text := range strings.Split(string(data), "\n") {
		l := docLine{file: file, no: i + 1, text: text}
		m := fence.FindStringSubmatch(text)
		switch {
		case m == nil:
			l.code, l.lang = open != "", lang
		case open == "":
			open, openLine, lang = m[1], l.no, m[2]
		case m[2] == "" && len(m[1]) >= len(open):
			open = ""
		default:
			problems = append(problems, fmt.Sprintf("%s: a code block opens here (%s) while the one opened at line %d is not closed", l, strings.TrimSpace(text), openLine))
			l.code, l.lang = true, lang
		}
		lines = append(lines, l)
	}
	if open != "" {
		problems = append(problems, fmt.Sprintf("%s:%d: the code block opened here is never closed", filepath.Base(file), openLine))
	}
	return lines, problems
}

// TestDocsCodeBlocksClosed checks that every code block of the documents
// is closed before the next one opens: an unclosed one turns the rest of
// the page into code.
func TestDocsCodeBlocksClosed(t *testing.T) {
	t.Parallel()
	for _, file := range docFiles(t) {
		_, problems := readDoc(t, file)
		for _, p := range problems {
			t.Error(p)
		}
	}
}

// TestDocsCommandsExist checks every tape command the documents show
// against the CLI's kong model: each command line of a shell code block
// must parse as it is written, and each `tape ...` code span (the tables'
// synopses among them) must name commands and flags that exist.
func TestDocsCommandsExist(t *testing.T) {
	t.Setenv("TAPE_DIR", "")
	t.Setenv("TAPE_NAME", "")
	model := wholeModel(t)
	span := regexp.MustCompile("`(tape [^`]+)`")
	checked := 0
	for _, file := range docFiles(t) {
		lines, _ := readDoc(t, file)
		for _, l := range lines {
			switch {
			case l.code && isShell(l.lang):
				for _, args := range shellTapeCommands(l.text) {
					checked++
					if err := parseArgs(args); err != nil {
						t.Errorf("%s: tape %s: %v", l, strings.Join(args, " "), err)
					}
				}
			case !l.code:
				for _, m := range span.FindAllStringSubmatch(l.text, -1) {
					checked++
					if err := checkSynopsis(model, m[1]); err != nil {
						t.Errorf("%s: `%s`: %v", l, m[1], err)
					}
				}
			}
		}
	}
	if checked < 40 {
		t.Errorf("checked %d commands; the documents show more: is the parsing of them broken?", checked)
	}
}

func isShell(lang string) bool { return lang == "sh" || lang == "bash" || lang == "shell" }

// wholeModel is kong's model of every command.
func wholeModel(t *testing.T) *kong.Application {
	t.Helper()
	var cli CLI
	var out bytes.Buffer
	parser, err := newParser(&cli, &Env{Stdout: &out, Stderr: &out}, "")
	if err != nil {
		t.Fatal(err)
	}
	return parser.Model
}

// parseArgs parses a command line as tape does, without running it.
func parseArgs(args []string) error {
	var cli CLI
	var out bytes.Buffer
	helped := false
	_, err := parse(&cli, &Env{Stdout: &out, Stderr: &out}, args, kong.Exit(func(int) { helped = true }))
	if err == nil && helped {
		return fmt.Errorf("it prints help")
	}
	return err
}

// shellTapeCommands returns the arguments of each tape command on a line
// of shell: the words after "tape" where it starts a command (at the
// start of the line, or after |, ;, &&, ||, & or $( ), up to the end of
// that command. Quotes are removed as the shell removes them; variables
// and globs stay as they are written.
func shellTapeCommands(line string) [][]string {
	words := shellWords(line)
	var cmds [][]string
	for i := 0; i < len(words); i++ {
		if words[i] != "tape" || (i > 0 && !isShellOperator(words[i-1])) {
			continue
		}
		args := []string{}
		for i++; i < len(words) && !isShellOperator(words[i]); i++ {
			args = append(args, words[i])
		}
		cmds = append(cmds, args)
		i--
	}
	return cmds
}

// shellOperators end a command; "$(" starts one.
var shellOperators = []string{"||", "&&", "$(", "|", ";", "&", ")", "<(", ">", "<", "#"}

func isShellOperator(w string) bool {
	for _, op := range shellOperators {
		if w == "\x00"+op {
			return true
		}
	}
	return false
}

// shellWords splits a line of shell into words, with quotes removed, and
// operators, marked with a leading NUL so that no word is taken for one.
// A comment ends the line. It is enough for the documents' examples: no
// here-documents, no nested quotes inside $( ).
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				end = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
		case c == '\\' && i+1 < len(line):
			inWord = true
			i++
			w.WriteByte(line[i])
		case c == '#' && !inWord:
			flush()
			return append(words, "\x00#")
		default:
			op := ""
			for _, o := range shellOperators {
				if strings.HasPrefix(line[i:], o) && o != "#" {
					op = o
					break
				}
			}
			if op == "" {
				inWord = true
				w.WriteByte(c)
				continue
			}
			flush()
			words = append(words, "\x00"+op)
			i += len(op) - 1
		}
	}
	flush()
	return words
}

// checkSynopsis checks a `tape ...` code span against the model: its
// command words must lead to a command, and each flag must be one of that
// command or a global one. A synopsis may hold placeholders (FILE, ID),
// [optional parts], alternatives (claude\|codex: each must exist) and
// "..." for more.
func checkSynopsis(app *kong.Application, synopsis string) error {
	r := strings.NewReplacer(`\|`, " | ", "[", " ", "]", " ", "...", " ", "…", " ")
	words := strings.Fields(r.Replace(synopsis))[1:] // after "tape"
	node := app.Node
	inText := false // past the first word of a text argument (search's query): a -word is text
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "|" {
			continue
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			name, listed := strings.CutSuffix(w, ",") // "--a, --b": a list of flags
			name, _, inline := strings.Cut(name, "=")
			f := findFlag(node, name)
			if f == nil && inText {
				continue
			}
			if f == nil {
				return fmt.Errorf("no flag %s on 'tape%s'", name, commandPath(node))
			}
			if !f.IsBool() && !inline && !listed {
				i++ // its value
			}
			continue
		}
		if !hasCommands(node) {
			inText = takesText(node)
			continue // an argument
		}
		next := childCommand(node, w)
		if next == nil {
			if isPlaceholder(w) {
				continue
			}
			return fmt.Errorf("'tape%s' has no command %s", commandPath(node), w)
		}
		// Alternatives after it (claude | codex) must be commands too.
		for i+2 < len(words) && words[i+1] == "|" {
			if childCommand(node, words[i+2]) == nil {
				return fmt.Errorf("'tape%s' has no command %s", commandPath(node), words[i+2])
			}
			i += 2
		}
		node = next
	}
	return nil
}

// findFlag finds a flag by its --long or -s name on node or a parent.
func findFlag(node *kong.Node, name string) *kong.Flag {
	for n := node; n != nil; n = n.Parent {
		for _, f := range n.Flags {
			if name == "--"+f.Name || (f.Short != 0 && name == "-"+string(f.Short)) {
				return f
			}
			if f.Negated && name == "--no-"+f.Name {
				return f
			}
		}
	}
	return nil
}

// takesText reports whether node's last argument is text (tagged text:""),
// which takes the words after its first, as the CLI does (textAfterWords).
func takesText(node *kong.Node) bool {
	return len(node.Positional) > 0 && node.Positional[len(node.Positional)-1].Tag.Has("text")
}

func hasCommands(node *kong.Node) bool {
	for _, c := range node.Children {
		if c.Type == kong.CommandNode {
			return true
		}
	}
	return false
}

func childCommand(node *kong.Node, name string) *kong.Node {
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && c.Name == name {
			return c
		}
	}
	return nil
}

// isPlaceholder reports whether a synopsis word stands for a value: in
// capitals (FILE, ID), or not a plain word (<tape>, $id).
func isPlaceholder(w string) bool {
	return strings.ToUpper(w) == w || !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w)
}

func commandPath(node *kong.Node) string {
	var path []string
	for n := node; n != nil && n.Type == kong.CommandNode; n = n.Parent {
		path = append([]string{n.Name}, path...)
	}
	if len(path) == 0 {
		return ""
	}
	return " " + strings.Join(path, " ")
}

// TestDocsCheckersFindMistakes holds the checkers above to what they
// must catch, so that a document check that passes means something.
func TestDocsCheckersFindMistakes(t *testing.T) {
	t.Parallel()
	model := wholeModel(t)
	for _, tc := range []struct {
		synopsis string
		ok       bool
	}{
		{"tape log [--all \\| --from A --to B] [--kind K] [-n N] [-f] [--json]", true},
		{"tape import claude\\|codex [PATH...] [--json]", true},
		{"tape --tape main merge ID", true},
		{"tape watch --follow claude,codex", true},
		{"tape loog", false},
		{"tape log --bogus", false},
		{"tape import claude\\|nosuchagent", false},
		{"tape import nosuchagent", false},
		{"tape reindex --full --fast", false},
	} {
		if err := checkSynopsis(model, tc.synopsis); (err == nil) != tc.ok {
			t.Errorf("checkSynopsis(%q) = %v, want ok %v", tc.synopsis, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		line string
		want []string // the commands, each joined by spaces
	}{
		{`tape log -f                 # follow the tape`, []string{"log -f"}},
		{`id=$(tape fork)   # try`, []string{"fork"}},
		{`echo '{"a":"b | tape x"}' | tape append --kind tool_result -`, []string{"append --kind tool_result -"}},
		{`tape append --fork "$id" --kind message '{"role":"assistant"}'`, []string{`append --fork $id --kind message {"role":"assistant"}`}},
		{`tape watch &                # keep`, []string{"watch"}},
		{`go run ./cmd/tape demo`, nil},
	} {
		var got []string
		for _, args := range shellTapeCommands(tc.line) {
			got = append(got, strings.Join(args, " "))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("shellTapeCommands(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	if err := parseArgs([]string{"search", "--bogus", "x"}); err == nil {
		t.Error("parseArgs accepts an unknown flag")
	}
}
