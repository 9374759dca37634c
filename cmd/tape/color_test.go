package main

import (
	"bytes"
	"os"
	"testing"
)

func TestPaletteFollowsFlagTerminalAndNoColor(t *testing.T) {
	_, term := openPTY(t)
	devNull, err := os.Open(os.DevNull) // a character device, but no terminal
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	tests := []struct {
		mode, noColor, term string
		w                   any
		want                bool
	}{
		{"auto", "", "xterm", term, true},
		{"auto", "1", "xterm", term, false},
		{"auto", "", "dumb", term, false},
		{"auto", "", "xterm", devNull, false},
		{"auto", "", "xterm", &bytes.Buffer{}, false}, // a pipe or file
		{"always", "1", "dumb", &bytes.Buffer{}, true},
		{"never", "", "xterm", term, false},
	}
	for _, tt := range tests {
		t.Setenv("NO_COLOR", tt.noColor)
		t.Setenv("TERM", tt.term)
		if got := newPalette(tt.mode, tt.w).on; got != tt.want {
			t.Errorf("newPalette(%q) with NO_COLOR=%q TERM=%q to %T = %v, want %v", tt.mode, tt.noColor, tt.term, tt.w, got, tt.want)
		}
	}
}

// A snippet's marks are painted with color and dropped without; the
// text's own ** stays, and no mark leaves the terminal red.
func TestSnippetCell(t *testing.T) {
	t.Parallel()
	on := palette{on: true}
	tests := []struct {
		p        palette
		in, want string
	}{
		{palette{}, "a **b** c", "a b c"},
		{on, "a **b** c", "a \x1b[1;31mb\x1b[0m c"},
		{on, "**错误**", "\x1b[1;31m错误\x1b[0m"},
		{on, "cut **open", "cut **open"}, // never leave the terminal red
		{on, "make the **`flush`** **timeout** 5s", "make the **`flush`** \x1b[1;31mtimeout\x1b[0m 5s"},
		{palette{}, "make the **`flush`** **timeout** 5s", "make the **`flush`** timeout 5s"},
		{palette{}, "****the****, syn**the**tic", "**the**, synthetic"},
		{on, "**a****b**", "\x1b[1;31ma\x1b[0m\x1b[1;31mb\x1b[0m"},
	}
	for _, tt := range tests {
		if got := tt.p.cell(snippetCell(tt.in)); got != tt.want {
			t.Errorf("snippetCell(%q) painted %v = %q, want %q", tt.in, tt.p.on, got, tt.want)
		}
	}
}
