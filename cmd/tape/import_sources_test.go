package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer"
)

// Every source the importer registers is a subcommand of tape import, and
// a word --follow names in its help (docs/ADDING_A_SOURCE.md).
func TestEverySourceIsACommand(t *testing.T) {
	commands := map[string]bool{}
	typ := reflect.TypeOf(ImportCmd{})
	for i := range typ.NumField() {
		if f := typ.Field(i); f.Tag.Get("cmd") != "" || strings.Contains(string(f.Tag), `cmd:""`) {
			commands[strings.ToLower(f.Name)] = true
		}
	}
	follow, _ := reflect.TypeOf(WatchCmd{}).FieldByName("Follow")
	for _, name := range importer.SourceNames() {
		if !commands[name] {
			t.Errorf("source %s: no subcommand of tape import (ImportCmd has %v)", name, commands)
		}
		if !strings.Contains(follow.Tag.Get("help"), name) {
			t.Errorf("source %s: not named in --follow's help %q", name, follow.Tag.Get("help"))
		}
	}
}

func TestAndList(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"claude"}, "claude"},
		{[]string{"claude", "codex"}, "claude and codex"},
		{[]string{"claude", "codex", "gemini"}, "claude, codex and gemini"},
	} {
		if got := andList(tc.names); got != tc.want {
			t.Errorf("andList(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
