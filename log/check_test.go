package log

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestCheckFilesCounts checks what CheckFiles counts per file, which the
// index's drift check compares with the index: entries in complete lines,
// where they end, and the entries before a given offset.
func TestCheckFilesCounts(t *testing.T) {
	m1 := `{"kind":"message","payload":{"content":"第一"}}` + "\n"
	m2 := `{"kind":"message","payload":{"content":"第二"}}` + "\n"
	torn := `{"kind":"message","payload":`
	ws := openHandMade(t, map[string]string{
		"tapes/main/anchors/001_a/messages.jsonl": m1 + "\n坏\n" + m2 + torn,
		"tapes/main/anchors/001_a/events.jsonl":   "",
	})
	key := FileKey{Tape: "main", Folder: "001_a", Name: "messages.jsonl"}
	tests := []struct {
		name string
		upTo map[FileKey]int64
		want int // EntriesUpTo
	}{
		{"no offsets", nil, -1},
		{"at the start", map[FileKey]int64{key: 0}, 0},
		{"after the first line", map[FileKey]int64{key: int64(len(m1))}, 1},
		{"after the bad line", map[FileKey]int64{key: int64(len(m1) + len("\n坏\n"))}, 1},
		{"at the end of the complete lines", map[FileKey]int64{key: int64(len(m1) + len("\n坏\n") + len(m2))}, 2},
	}
	for _, tt := range tests {
		res, err := ws.CheckFiles(context.Background(), tt.upTo)
		if err != nil {
			t.Fatal(err)
		}
		var got *FileCount
		for i := range res.Files {
			if res.Files[i].Key == key {
				got = &res.Files[i]
			}
		}
		if got == nil {
			t.Fatalf("%s: %v lacks %v", tt.name, res.Files, key)
		}
		complete := int64(len(m1) + len("\n坏\n") + len(m2))
		if got.Entries != 2 || got.Complete != complete || got.EntriesUpTo != tt.want {
			t.Errorf("%s: entries %d, complete %d, up to %d; want 2, %d, %d", tt.name, got.Entries, got.Complete, got.EntriesUpTo, complete, tt.want)
		}
		var checks []string
		for _, p := range res.Problems {
			checks = append(checks, p.Check+":"+itoa(p.Line))
		}
		if strings.Join(checks, " ") != "bad_line:3 torn_tail:5" {
			t.Errorf("%s: problems %v, want bad_line:3 torn_tail:5", tt.name, checks)
		}
	}
}

// A line that ends after the scan stopped is no torn tail (second review:
// doctor read the size after the scan and reported a complete line).
func TestTornTail(t *testing.T) {
	tests := []struct {
		content  string
		complete int64
		want     int64
	}{
		{"a\nb\n", 4, 0},
		{"a\nhalf", 2, 4},
		{"a\nwhole line now\n", 2, 0}, // completed by a writer after the scan
		{"a\n", 2, 0},
	}
	for _, tt := range tests {
		f, err := os.CreateTemp(t.TempDir(), "x.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(tt.content)
		if got := tornTail(f, tt.complete); got != tt.want {
			t.Errorf("tornTail(%q, %d) = %d, want %d", tt.content, tt.complete, got, tt.want)
		}
		f.Close()
	}
}
