package log

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// scanAll reads a file from pos to its end and returns the ids read and the
// position after them.
func scanAll(t *testing.T, tp *Tape, a Anchor, name string, pos FilePos) ([]string, FilePos) {
	t.Helper()
	s, err := tp.ScanFile(a, name, pos)
	if err != nil {
		t.Fatalf("ScanFile from %+v: %v", pos, err)
	}
	defer s.Close()
	var got []string
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			got = append(got, "bad:"+itoa(le.Line))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.ID+"@"+e.Pos.Time.Format("05"))
	}
	end, err := s.Pos()
	if err != nil {
		t.Fatal(err)
	}
	return got, end
}

// Reading a file in two parts, from a checkpoint, gives what reading it
// whole gives: the same entries, ids, line numbers and effective times.
func TestScanFileResumes(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	anchors, _ := tp.Anchors()
	a := anchors[0]
	file := filepath.Join(ws.Dir(), "tapes/main/anchors", a.Folder, "x.jsonl")
	part1 := `{"kind":"e","payload":{},"date":"2026-01-01T00:00:07Z"}` + "\n" + `bad` + "\n" + `{"kind":"e","payload":{}}` + "\n" + `{"kind":"e","pay`
	part2 := `load":{}}` + "\n" + `{"kind":"e","payload":{},"date":"2026-01-01T00:00:03Z"}` + "\n" + `{"kind":"e","payload":{},"date":"2026-01-01T00:00:09Z"}` + "\n"
	writeTestFile(t, file, part1)
	first, pos := scanAll(t, tp, a, "x.jsonl", FilePos{})
	if pos.Line != 3 || pos.Offset != int64(len(part1)-len(`{"kind":"e","pay`)) {
		t.Errorf("position after the complete lines = %+v", pos)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(part2)
	f.Close()
	second, _ := scanAll(t, tp, a, "x.jsonl", pos)
	whole, _ := scanAll(t, tp, a, "x.jsonl", FilePos{})
	if got := append(first, second...); !slices.Equal(got, whole) {
		t.Errorf("read in two parts: %v\nread whole:        %v", got, whole)
	}
	want := []string{"001_session-start/x.jsonl:1@07", "bad:2", "001_session-start/x.jsonl:3@07", "001_session-start/x.jsonl:4@07", "001_session-start/x.jsonl:5@07", "001_session-start/x.jsonl:6@09"}
	if !slices.Equal(whole, want) {
		t.Errorf("whole = %v\nwant    %v", whole, want)
	}

	// A file rewritten under the checkpoint is detected.
	writeTestFile(t, file, `{"kind":"other","payload":{}}`+"\n"+part1[30:]+part2)
	if _, err := tp.ScanFile(a, "x.jsonl", pos); !errors.Is(err, ErrFileChanged) {
		t.Errorf("ScanFile after a rewrite = %v, want ErrFileChanged", err)
	}
}
