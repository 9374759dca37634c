package log

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// scanAll reads a file from pos to its end and returns the ids read and the
// position after them.
func scanAll(t *testing.T, tp *Tape, a Anchor, name string, pos FilePos) ([]string, FilePos) {
	t.Helper()
	return scanAllWith(t, tp, nil, a, name, pos)
}

// scanAllWith is scanAll reading with buf.
func scanAllWith(t *testing.T, tp *Tape, buf *ScanBuffer, a Anchor, name string, pos FilePos) ([]string, FilePos) {
	t.Helper()
	s, err := tp.ScanFileWith(buf, a, name, pos)
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

// One ScanBuffer, reading file after file, reads each as a scanner of its
// own does: the same entries, bad lines and positions (fingerprints too),
// after a file with a line longer than the room it keeps, and from a
// checkpoint.
func TestScanFileWithOneBuffer(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	anchors, _ := tp.Anchors()
	a := anchors[0]
	dir := filepath.Join(ws.Dir(), "tapes/main/anchors", a.Folder)
	line := func(date string) string {
		return `{"kind":"e","payload":{},"date":"2026-01-01T00:00:` + date + `Z"}` + "\n"
	}
	long := `{"kind":"e","payload":{"text":"` + strings.Repeat("x", 2*keptLineBytes) + `"}}` + "\n"
	writeTestFile(t, filepath.Join(dir, "x.jsonl"), line("07")+"bad\n"+line("03"))
	writeTestFile(t, filepath.Join(dir, "long.jsonl"), line("01")+long+line("02"))
	writeTestFile(t, filepath.Join(dir, "y.jsonl"), line("09")+line("08")+`{"kind":"e","pay`)
	var buf ScanBuffer
	var xEnd FilePos
	for _, c := range []struct {
		name string
		from *FilePos
	}{{"x.jsonl", nil}, {"long.jsonl", nil}, {"y.jsonl", nil}, {"x.jsonl", &xEnd}, {"long.jsonl", nil}, {"y.jsonl", nil}} {
		from := FilePos{}
		if c.from != nil {
			from = *c.from
		}
		got, gotEnd := scanAllWith(t, tp, &buf, a, c.name, from)
		want, wantEnd := scanAll(t, tp, a, c.name, from)
		if !slices.Equal(got, want) || gotEnd != wantEnd {
			t.Errorf("%s from %d: with one buffer %v at %+v, alone %v at %+v", c.name, from.Offset, got, gotEnd, want, wantEnd)
		}
		if c.name == "x.jsonl" && c.from == nil {
			xEnd = gotEnd
			appendTestFile(t, filepath.Join(dir, "x.jsonl"), line("05"))
		}
	}
	if cap(buf.lr.buf) > keptLineBytes {
		t.Errorf("after a long line and a file of short ones, the buffer kept %d bytes of room for a line, past %d", cap(buf.lr.buf), keptLineBytes)
	}
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

func appendTestFile(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// Raw gives each line Next returns as the file holds it, its line ending
// included, so that the lines written back with the blank lines between
// them are the file; a line over the read limit has none.
func TestScanFileRaw(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	anchors, _ := tp.Anchors()
	a := anchors[0]
	file := filepath.Join(ws.Dir(), "tapes/main/anchors", a.Folder, "x.jsonl")
	lines := []string{
		`{"kind":"e","payload":{"text":"你好"}}` + "\n",
		"bad\r\n",
		"\n",
		`{"kind":"e","payload":{}}` + "\r\n",
		`{"kind":"e","payload":{"text":"` + strings.Repeat("x", DefaultMaxLineBytes) + `"}}` + "\n",
		`{"kind":"e","payload":{}}` + "\n",
	}
	writeTestFile(t, file, strings.Join(lines, "")+`{"kind":"e"`)
	s, err := tp.ScanFile(a, "x.jsonl", FilePos{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for {
		_, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if le := (*LineError)(nil); err != nil && !errors.As(err, &le) {
			t.Fatal(err)
		}
		got = append(got, string(s.Raw()))
	}
	want := []string{lines[0], lines[1], lines[3], "", lines[5]}
	if !slices.Equal(got, want) {
		short := func(l []string) (out []string) {
			for _, s := range l {
				out = append(out, s[:min(len(s), 60)])
			}
			return out
		}
		t.Errorf("Raw of each line = %q\nwant %q", short(got), short(want))
	}
}

// A scanner told to stop at an offset reads the lines before it and no
// more, and its position is there.
func TestScanFileStopAt(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	anchors, _ := tp.Anchors()
	a := anchors[0]
	line := `{"kind":"e","payload":{}}` + "\n"
	writeTestFile(t, filepath.Join(ws.Dir(), "tapes/main/anchors", a.Folder, "x.jsonl"), line+"\n"+line+line)
	stop := int64(2*len(line) + 1)
	s, err := tp.ScanFile(a, "x.jsonl", FilePos{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.StopAt(stop)
	n := 0
	for {
		if _, err := s.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	pos, err := s.Pos()
	if n != 2 || pos.Offset != stop || pos.Line != 3 {
		t.Errorf("stopped at %d: read %d entries, position %+v (%v); want 2 entries, offset %d, 3 lines", stop, n, pos, err, stop)
	}
}
