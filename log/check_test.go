package log

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A FIFO where a tape's anchors folder should be is reported as a folder
// that cannot be listed, with a fix that fits (no chmod makes it one), and
// neither the check nor the listings of the tapes block on it.
func TestCheckAnchorsFIFO(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/main/anchors/001_a/messages.jsonl": `{"kind":"message","payload":{"content":"留下"}}` + "\n",
	})
	if err := os.MkdirAll(ws.Abs("tapes/pipe"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(ws.Abs("tapes/pipe/anchors"), 0o600); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		res *CheckResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := ws.CheckFiles(context.Background(), nil)
		done <- answer{res, err}
	}()
	var got answer
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(ws.Abs("tapes/pipe/anchors"), os.O_WRONLY, 0); err == nil {
			f.Close() // lets the blocked open return, so the test ends
		}
		<-done
		t.Fatal("CheckFiles blocked on a FIFO named anchors")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	found := false
	for _, p := range got.res.Problems {
		if p.Check == CheckUnreadable && p.Path == "tapes/pipe/anchors" {
			found = true
			if !strings.Contains(p.Fix, "not a folder") {
				t.Errorf("fix %q; want it to say the anchors folder is not a folder", p.Fix)
			}
		}
	}
	if !found {
		t.Errorf("no unreadable problem at tapes/pipe/anchors in %+v", got.res.Problems)
	}
	tp, _ := ws.Tape("pipe")
	if _, err := tp.Folders(); err == nil {
		t.Error("listing the folders of a tape whose anchors folder is a FIFO did not fail")
	}
}
