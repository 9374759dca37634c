package records

import (
	"bytes"
	"testing"
)

var tapeJSONSeeds = []struct {
	name, title, date string
	entries, forks    int
	set               uint8 // which of workspace, first, last, forks, parent are set: bits 0 to 4
}{
	{"claude-669f5648", "fix the build\nand then <the> tests & more", "2026-11-23T18:00:00Z", 35, 0, 0b01110},
	{"main", "发生了一个错误 \u2028 \x7f \"q\" \\", "", 0, 2, 0b11111},
	{"", "bad \xff\xfe utf8 \xe2\x80 \x00\x1f", "d", -1, -5, 0},
	{"a", "", "2026-01-01T00:00:00.123456789Z", 1 << 40, 1 << 30, 0b10101},
}

func FuzzTapeJSON(f *testing.F) {
	for _, s := range tapeJSONSeeds {
		f.Add(s.name, s.title, s.date, s.entries, s.forks, s.set)
	}
	f.Fuzz(func(t *testing.T, name, title, date string, entries, forks int, set uint8) {
		r := Tape{Name: name, Title: title, CWD: title + name, Branch: name, Model: date, Entries: entries, Anchors: -entries,
			Source: date + name, SessionID: title}
		if set&1 != 0 {
			r.Workspace = &name
		}
		if set&2 != 0 {
			r.First = &date
		}
		if set&4 != 0 {
			r.Last = &title
		}
		if set&8 != 0 {
			r.Forks = &forks
		}
		if set&16 != 0 {
			r.Parent = &name
		}
		if got, want := r.AppendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON:\n got %s\nwant %s", got, want)
		}
	})
}
