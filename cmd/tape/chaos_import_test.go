package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// transcripts are copies of the sample Claude Code and Codex transcripts
// (testdata/import) that grow as the rounds go, as agents write them.
type transcripts struct {
	root  string
	files []*growing
	db    *growingDB // OpenCode's (chaos_db_test.go)
}

// growing is one transcript: its whole text, how much of it the plan
// has given out, and how much is written.
type growing struct {
	data             []byte
	dst              string
	planned, written int
}

var chaosAgents = []string{"claude", "codex", chaosDBAgent}

func newTranscripts(t *testing.T) *transcripts {
	t.Helper()
	s := &transcripts{root: t.TempDir()}
	s.db = newGrowingDB(t, s.dir(chaosDBAgent))
	for _, agent := range chaosAgents[:2] {
		src := filepath.Join("..", "..", "testdata", "import", agent, "src")
		err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			dst := filepath.Join(s.dir(agent), rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
				return err
			}
			s.files = append(s.files, &growing{data: data, dst: dst})
			return os.WriteFile(dst, nil, 0o600)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// dir is the folder `tape import AGENT` reads.
func (s *transcripts) dir(agent string) string {
	switch agent {
	case "claude":
		return filepath.Join(s.root, "claude", "projects")
	case chaosDBAgent:
		return filepath.Join(s.root, "opencode")
	}
	return filepath.Join(s.root, "codex", "sessions")
}

// grow draws a round's writes to the transcripts: up to three lines of
// each, a line sometimes in two writes, and sometimes half a line left
// for the next round, which an import must hold back.
func (s *transcripts) grow(c *chaos) func() {
	type write struct {
		f     *growing
		to    int
		pause time.Duration
	}
	var writes []write
	add := func(f *growing, to int) {
		writes = append(writes, write{f, to, time.Duration(c.r.IntN(40)) * time.Millisecond})
		f.planned = to
	}
	for _, f := range s.files {
		for range c.r.IntN(4) {
			if f.planned == len(f.data) {
				break
			}
			end := lineEnd(f.data, f.planned)
			if c.r.IntN(3) == 0 {
				add(f, f.planned+(end-f.planned)/2)
			}
			add(f, end)
		}
		if f.planned < len(f.data) && c.r.IntN(5) == 0 {
			add(f, f.planned+(lineEnd(f.data, f.planned)-f.planned)/2)
		}
	}
	growDB := s.db.grow(c)
	return func() {
		growDB()
		for _, w := range writes {
			file, err := os.OpenFile(w.f.dst, os.O_WRONLY|os.O_APPEND, 0)
			if err == nil {
				_, err = file.Write(w.f.data[w.f.written:w.to])
				file.Close()
			}
			if err != nil {
				c.t.Errorf("grow a transcript: %v", err)
				return
			}
			w.f.written = w.to
			time.Sleep(w.pause) // an agent's pace
		}
	}
}

// lineEnd is the offset just past the line that holds offset from.
func lineEnd(data []byte, from int) int {
	if i := bytes.IndexByte(data[from:], '\n'); i >= 0 {
		return from + i + 1
	}
	return len(data)
}

// finishImports writes the rest of the transcripts, as their agents
// finished them a minute ago, imports them once more, with no fault, and
// holds their tapes to one import of the same files into a new
// workspace: every entry that import makes is on the tape once (a killed
// import lost nothing and doubled nothing), and the tape's usage and calls
// are the same. The tapes may hold more entries: a turn that an import
// found quiet for a second at the end of its transcript is imported then,
// and the lines that came after make entries of their own, which share its
// usage id (docs/IMPORT.md, "Turns still being written"); a call in such
// a later entry has that entry's date, so calls are compared without
// their times (called_at, answered_at, duration_ms).
func (s *transcripts) finishImports(c *chaos) {
	c.t.Helper()
	finished := time.Now().Add(-time.Minute)
	for _, f := range s.files {
		file, err := os.OpenFile(f.dst, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = file.Write(f.data[f.written:])
			file.Close()
		}
		if err == nil {
			err = os.Chtimes(f.dst, finished, finished)
		}
		if err != nil {
			c.t.Fatalf("finish a transcript: %v", err)
		}
		f.planned, f.written = len(f.data), len(f.data)
	}
	s.db.finish(c.t)
	other := newCLIWorkspace(c.t)
	for _, agent := range chaosAgents {
		c.exec(chaosProc{op: "import " + agent, args: []string{"import", agent, s.dir(agent)}, kill: -1, tolerate: importBadLines})
		if _, errOut, code := runTape(c.t, other, "import", agent, s.dir(agent)); code != 0 && !importBadLines(code, errOut) {
			c.t.Fatalf("import %s into a new workspace: exit %d: %s", agent, code, errOut)
		}
	}
	out, _, _ := runTape(c.t, other, "tapes", "--json", "-n", "0")
	imported := 0
	for _, rec := range jsonRecords(c.t, out) {
		tape, _ := rec["name"].(string)
		if tape == "main" {
			continue
		}
		imported++
		want, _, _ := runTape(c.t, other, "log", "--all", "--json", "--tape", tape)
		got, errOut, code := runTape(c.t, c.dir, "log", "--all", "--json", "--tape", tape)
		if code != 0 {
			c.t.Errorf("log of imported tape %s: exit %d: %s", tape, code, errOut)
			continue
		}
		ids := map[string]int{}
		for _, r := range jsonRecords(c.t, got) {
			ids[r["id"].(string)]++
		}
		for _, r := range jsonRecords(c.t, want) {
			if id := r["id"].(string); ids[id] != 1 {
				c.t.Errorf("imported tape %s holds entry %s %d times; one import of the same transcripts makes it once", tape, id, ids[id])
			}
		}
		for _, args := range [][]string{{"calls", "--json", "-n", "0", "--tape", tape}, {"usage", "--json", "--tape", tape}} {
			want, _, wantCode := runTape(c.t, other, args...)
			got, _, code := runTape(c.t, c.dir, args...)
			if args[0] == "calls" {
				got, want = callsWithoutTimes(c.t, got), callsWithoutTimes(c.t, want)
			}
			if got != want || code != wantCode {
				c.t.Errorf("tape %s of the imported tape differs from one import's: exit %d and %d; %s", strings.Join(args, " "), code, wantCode, firstDifference(got, want))
			}
		}
	}
	if imported == 0 {
		c.t.Errorf("one import of the transcripts made no tape")
	}
}

// callsWithoutTimes is `tape calls --json` output without the calls'
// times, in the order of their ids.
func callsWithoutTimes(t *testing.T, out string) string {
	var lines []string
	for _, rec := range jsonRecords(t, out) {
		delete(rec, "called_at")
		delete(rec, "answered_at")
		delete(rec, "duration_ms")
		line, _ := json.Marshal(rec)
		lines = append(lines, string(line))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
