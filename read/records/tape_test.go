package records

import (
	"bytes"
	"math"
	"testing"
)

var tapeJSONSeeds = []struct {
	name, title, date string
	entries, forks    int
	set               uint8 // which of workspace, first, last, forks, parent, cost are set: bits 0 to 5
}{
	{"claude-669f5648", "fix the build\nand then <the> tests & more", "2026-11-23T18:00:00Z", 35, 0, 0b01110},
	{"main", "发生了一个错误 \u2028 \x7f \"q\" \\", "", 0, 2, 0b11111},
	{"", "bad \xff\xfe utf8 \xe2\x80 \x00\x1f", "d", -1, -5, 0},
	{"a", "", "2026-01-01T00:00:00.123456789Z", 1 << 40, 1 << 30, 0b10101},
	{"cost", "", "", 3, 8, 0b100000},            // 3e-7/7: as e
	{"cost-big", "", "", 1 << 40, 29, 0b100000}, // past 1e21: as e
	{"cost-0", "", "", 0, 17, 0b100000},
	{"cost-f", "", "", 12345, 13, 0b100000},
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
		if set&32 != 0 { // a cost of every size encoding/json writes: 0, 1e-7 (as e), 1e21 and more (as e), between
			cost := float64(entries) * math.Pow(10, float64(forks%30-15)) / 7
			r.CostUSD = &cost
		}
		if got, want := r.AppendJSON(nil), encodingJSON(t, r); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON:\n got %s\nwant %s", got, want)
		}
	})
}
