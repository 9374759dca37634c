package main

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// parseCases are argument lists that name their command plainly: at least
// one per command (TestParseWithOneCommand checks), with global flags
// before and after it, and values that look like commands.
var parseCases = [][]string{
	{"init"}, {"init", "sub/dir"},
	{"info", "--json"}, {"info", "--all-tapes"},
	{"doctor", "--json"},
	{"append", "--kind", "message", `{"role":"user","content":"hi"}`}, {"append", "--jsonl"},
	{"handoff", "plan/next"},
	{"fork"},
	{"merge", "01JFORK"},
	{"discard", "01JFORK"},
	{"reset", "--archive", "--yes"},
	{"import", "bub", "a.jsonl", "b.jsonl"},
	{"log", "--all"}, {"--tape-dir", "/tmp/ws/.tape", "-t", "search", "log"}, {"-tlog", "search", "x"},
	{"anchors"},
	{"show", "2"},
	{"search", "flush", "timeout", "-k", "message", "--all-tapes", "-n", "5", "--json"},
	{"search", "--", "-x", "-h"}, {"--color=never", "search", "log"}, {"search", "x", "--tape", "t2", "--no-catchup"},
	{"search", "git", "--no-ff", "-rf", "--all-tapes", "-n", "3", "--kind=message"}, {"search", "git", "--", "--json"}, {"search", "deploy", "--newest", "--json"},
	{"--session", "log", "context", "--json"},
	{"tapes"}, {"sources"}, {"sources", "--json"}, {"import"}, {"import", "all", "--json"},
	{"calls", "--status", "pending"},
	{"usage"}, {"usage", "--all-tapes", "--by", "model"}, {"usage", "--by", "block", "--since", "20261101", "--timezone", "UTC"},
	{"statusline"}, {"statusline", "--cost-source", "tape"},
	{"prices"}, {"prices", "claude-sonnet-4-5", "--json"}, {"prices", "--all"}, {"prices", "update", "list.json"}, {"prices", "show", "gpt-5"},
	{"messages", "--limit", "3"},
	{"secrets"}, {"secrets", "--all-tapes", "--json"},
	{"ui"}, {"-t", "claude-5d7e6b2e", "ui"},
	{"resume", "claude-5d7e6b2e"}, {"resume", "01KBXH4B8P3S2X5GZ4Q6M8N0RT", "--exec"}, {"resume", "x", "--json"},
	{"export"}, {"export", "t1", "t2", "-o", "out/", "--format", "html", "--no-redact", "--kind", "message", "--since", "2d", "--until", "1d"},
	{"export", "--anchor", "2", "-f", "json", "-o", "x.json"}, {"export", "--all-tapes", "-o", "out", "-a"},
	{"reindex", "--full"},
	{"watch"},
	{"mcp"}, {"--tape-dir", "/tmp/ws/.tape", "mcp", "--allow-write"},
	{"serve"}, {"serve", "--addr", "127.0.0.1:0", "--open", "--token", "t"},
	{"sync"}, {"sync", "postgres://u@h/db", "--json"},
	{"restore", "--remote", "postgres://u@h/db", "--workspace", "w", "/tmp/x"}, {"-t", "main", "restore", "--workspace=w", "--json", "/tmp/x"},
	{"search", "--remote", "postgres://u@h/db", "--workspace", "a,b", "错误"}, {"search", "flush", "--remote=postgres://u@h/db"},
	{"tapes", "--remote", "postgres://u@h/db", "-n", "5"}, {"usage", "--remote", "--by", "workspace"},
	{"watch", "--sync", "postgres://u@h/db"},
	{"demo"},
	{"version"},
}

// parseWith parses args as run does, with the model of one command or
// that of every command; it fails the test if the arguments do not parse.
func parseWith(t *testing.T, args []string, whole bool) (CLI, string) {
	t.Helper()
	var cli CLI
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, wholeModel: whole}
	kctx, err := parse(&cli, env, args)
	if err != nil {
		t.Fatalf("tape %s (whole model %v): %v", strings.Join(args, " "), whole, err)
	}
	return cli, kctx.Command()
}

// TestParseWithOneCommand checks that the model of one command parses
// what it is given exactly as the model of every command does.
func TestParseWithOneCommand(t *testing.T) {
	t.Setenv("TAPE_DIR", "")
	t.Setenv("TAPE_NAME", "")
	covered := map[string]bool{"completion": true} // never parsed alone
	for _, args := range parseCases {
		command := plainCommand(args)
		if command == "" {
			t.Errorf("plainCommand(%q) = \"\": the case tests nothing", args)
			continue
		}
		covered[command] = true
		one, oneCmd := parseWith(t, args, false)
		whole, wholeCmd := parseWith(t, args, true)
		// The whole model also sets the defaults of the other commands,
		// which do not run.
		f, _ := commandField(command)
		oneFields := []any{one.Globals, reflect.ValueOf(one).FieldByIndex(f.Index).Interface()}
		wholeFields := []any{whole.Globals, reflect.ValueOf(whole).FieldByIndex(f.Index).Interface()}
		if oneCmd != wholeCmd || !reflect.DeepEqual(oneFields, wholeFields) {
			t.Errorf("tape %s:\none command: %s %+v\nwhole model: %s %+v", strings.Join(args, " "), oneCmd, oneFields, wholeCmd, wholeFields)
		}
	}
	var cli CLI
	parser, err := newParser(&cli, &Env{}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parser.Model.Children {
		if _, ok := commandField(n.Name); !ok {
			t.Errorf("command %q: commandField does not find it (kongName?)", n.Name)
		}
		if !covered[n.Name] {
			t.Errorf("command %q: no case in parseCases", n.Name)
		}
	}
	for _, f := range parser.Model.Flags {
		if f.Name == "help" {
			continue
		}
		takes := !f.IsBool()
		if got := globalTakesValue("--" + f.Name); got != takes {
			t.Errorf("global flag --%s: globalTakesValue %v, kong says it takes a value: %v", f.Name, got, takes)
		}
		if f.Short != 0 && globalTakesValue("-"+string(f.Short)) != takes {
			t.Errorf("global flag -%c: globalTakesValue disagrees with kong", f.Short)
		}
	}
}

func TestPlainCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"search", "x"}, "search"},
		{[]string{"-t", "log", "search", "x"}, "search"},
		{[]string{"--tape", "log"}, ""}, // a value, and no command
		{[]string{"--tape=log", "anchors"}, "anchors"},
		{[]string{"--no-catchup", "log"}, "log"},
		{[]string{"search", "--help"}, ""},
		{[]string{"search", "--help=true"}, ""},
		{[]string{"search", "-h"}, ""},
		{[]string{"search", "-nh"}, ""},
		{[]string{"--help"}, ""},
		{[]string{"search", "--", "-h"}, "search"},
		{[]string{"--", "search"}, ""},
		{[]string{"serch", "x"}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{"x", "search"}, ""},
	} {
		if got := plainCommand(tc.args); got != tc.want {
			t.Errorf("plainCommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestParseErrorsAndHelpAsBefore checks that what the model of one
// command cannot answer reads exactly as it does from the model of every
// command: errors of arguments that name their command plainly (the small
// model fails, and the whole one answers), and help and completion, which
// never reach the small model (kong prints help as it parses).
func TestParseErrorsAndHelpAsBefore(t *testing.T) {
	t.Setenv("TAPE_DIR", "")
	dir := t.TempDir()
	fallback := [][]string{
		{"search"}, {"search", "--bogus", "x"}, {"search", "x", "--limit", "0"}, {"search", "x", "--kind"}, {"search", "x", "-n", "--", "y"},
		{"log", "-n"}, {"append", "--kind"}, {"--color", "purple", "version"}, {"version", "extra"},
		{"import", "bub"}, {"show"}, {"merge"},
	}
	whole := [][]string{
		{"--help"}, {"search", "--help"}, {"search", "-h"}, {"search", "x", "-h"}, {"search", "--help=true"}, {"import", "--help"},
		{"import", "bub", "--help"}, {"import", "bub", "--help=1"}, {"serch", "x"},
		{"completion", "bash"}, {"completion", "fish"},
	}
	for _, args := range fallback {
		if plainCommand(args) == "" {
			t.Errorf("plainCommand(%q) = \"\": the case does not try the small model", args)
		}
	}
	for _, args := range whole {
		if c := plainCommand(args); c != "" {
			t.Errorf("plainCommand(%q) = %q: the small model would print help or completion", args, c)
		}
	}
	for _, args := range append(append(fallback, whole...), []string{"version"}) {
		run := func(whole bool) (string, int) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), slices.Clone(args), &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Dir: dir, wholeModel: whole})
			return "stdout:\n" + out.String() + "stderr:\n" + errOut.String(), code
		}
		got, gotCode := run(false)
		want, wantCode := run(true)
		if got != want || gotCode != wantCode {
			t.Errorf("tape %s: exit %d\n%s\nwith the whole model: exit %d\n%s", strings.Join(args, " "), gotCode, got, wantCode, want)
		}
	}
}

// After the first word of a query, a word that starts with - is a word,
// unless it is a flag as --help lists it; -- still ends the flags.
func TestQueryWordsAfterTheFirst(t *testing.T) {
	t.Setenv("TAPE_DIR", "")
	t.Setenv("TAPE_NAME", "")
	for _, tc := range []struct {
		args     []string
		query    []string
		allTapes bool
		limit    int
		kinds    []string
	}{
		{[]string{"search", "git", "--no-ff"}, []string{"git", "--no-ff"}, false, 20, nil},
		{[]string{"search", "--all-tapes", "git", "--no-ff"}, []string{"git", "--no-ff"}, true, 20, nil},
		{[]string{"search", "git", "--no-ff", "--all-tapes", "-n", "3"}, []string{"git", "--no-ff"}, true, 3, nil},
		{[]string{"search", "rm", "-rf", "-n5", "--limit=2", "-k", "message"}, []string{"rm", "-rf", "-n5"}, false, 2, []string{"message"}},
		{[]string{"search", "git", "--", "--all-tapes", "--"}, []string{"git", "--all-tapes", "--"}, false, 20, nil},
		{[]string{"search", "--", "--no-ff"}, []string{"--no-ff"}, false, 20, nil},
		{[]string{"-t", "x", "search", "a", "-", "b"}, []string{"a", "-", "b"}, false, 20, nil},
	} {
		for _, whole := range []bool{false, true} {
			cli, _ := parseWith(t, tc.args, whole)
			s := cli.Search
			if !slices.Equal(s.Query, tc.query) || s.AllTapes != tc.allTapes || s.Limit != tc.limit || !slices.Equal(s.Kind, tc.kinds) {
				t.Errorf("tape %s (whole model %v): query %q, all tapes %v, limit %d, kinds %q; want %q, %v, %d, %q",
					strings.Join(tc.args, " "), whole, s.Query, s.AllTapes, s.Limit, s.Kind, tc.query, tc.allTapes, tc.limit, tc.kinds)
			}
		}
	}
}

// FuzzTextAfterWords: rearranging a command line for a text argument
// only moves arguments and the -- that ends the flags; it never drops,
// adds or changes another one (but for a line that ends in a flag without
// its value, which kong must refuse), and leaves a command without a text
// argument as it is.
func FuzzTextAfterWords(f *testing.F) {
	for _, s := range []string{"search git --no-ff -n 3", "search -- --x", "-t x search a - b", "log -n 3 --all", "search rm -rf -n5 --limit=2"} {
		f.Add(s)
	}
	var cli CLI
	parser, err := newParser(&cli, &Env{Stdout: io.Discard, Stderr: io.Discard}, "", kong.Exit(func(int) {})) // --help must not end the fuzzer
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		got := textAfterWords(parser.Model, args)
		without := func(s []string) []string {
			s = slices.DeleteFunc(slices.Clone(s), func(a string) bool { return a == "--" })
			slices.Sort(s)
			return s
		}
		if !slices.Equal(without(got), without(args)) {
			// Only a flag left without its value drops the words, and
			// then kong must refuse the line, saying so.
			if _, err := parser.Parse(got); err == nil {
				t.Fatalf("textAfterWords(%q) = %q: not the same arguments, and kong takes them", args, got)
			}
		}
		if at := commandIndex(args); at < 0 || args[at] != "search" {
			if !slices.Equal(got, args) {
				t.Fatalf("textAfterWords(%q) = %q, changed a command without text", args, got)
			}
		}
	})
}
