package sourcetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// Path is the transcript path the checks convert at. A converter must
// take any path (source.Source.NewConverter); this one is a Codex
// rollout's name, which other sources read as a name without an id.
const Path = "/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"

// ConvertAll converts the complete lines of data (and the line after the
// last newline, for a source.LastLineReader), resuming from a saved
// state at each line where nothing is held when resume is set, and
// returns what was made, one entry a line, and the numbers of bad lines.
// Each entry is checked with CheckOutput.
func ConvertAll(t testing.TB, src source.Source, data []byte, resume bool) string {
	t.Helper()
	conv, err := src.NewConverter(Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	started := map[string]bool{} // the sessions whose first output was seen
	emit := func(outs []source.Output) {
		for _, o := range outs {
			CheckOutput(t, src, o)
			if key := o.Session.Key(); !started[key] {
				started[key] = true
				CheckStart(t, src, o)
			}
			fmt.Fprintf(&out, "%s %v %s %s %s %s %s\n", src.TapeName(o.Session, false), o.Anchor, o.Entry.ID, o.Entry.Kind, o.Entry.Date, o.Entry.Payload, o.Entry.Meta)
		}
	}
	lr := tapelog.NewLineReader(bytes.NewReader(data), 1<<20, 0, 0)
	lines, done := 0, false
	for !done {
		l, err := lr.Next()
		line := conv.Line
		if err != nil {
			// A LastLineReader reads the line after the last newline too.
			last, ok := conv.(source.LastLineReader)
			rest := data[lr.Offset():]
			if !ok || len(rest) == 0 {
				break
			}
			l, line, done = tapelog.RawLine{No: lines + 1, Offset: lr.Offset(), Data: rest}, last.LastLine, true
		}
		lines = l.No
		l.Data = bytes.Clone(l.Data)
		outs, err := line(l)
		if err != nil {
			fmt.Fprintf(&out, "bad %d\n", l.No)
		}
		emit(outs)
		if _, _, held := conv.Held(); resume && !held {
			// What a checkpoint here would resume with.
			state, err := conv.State()
			if err != nil {
				t.Fatal(err)
			}
			if conv, err = src.NewConverter(Path, state); err != nil {
				t.Fatalf("resume from %s: %v", state, err)
			}
		}
	}
	emit(conv.Flush())
	return out.String()
}

// CheckStart checks that o, the first output of its session, is the
// anchor that starts its tape, naming the source and the session as the
// driver reads them back to tell a session's own tape (importer's owns):
// {"name": "session/start", "state": {"source", "session_id",
// "agent_id"}}, agent_id "" for the session itself.
func CheckStart(t testing.TB, src source.Source, o source.Output) {
	t.Helper()
	var p struct {
		Name  string `json:"name"`
		State struct {
			Source    string `json:"source"`
			SessionID string `json:"session_id"`
			AgentID   string `json:"agent_id"`
		} `json:"state"`
	}
	err := json.Unmarshal(o.Entry.Payload, &p)
	if err != nil || !o.Anchor || p.Name != "session/start" || p.State.Source != src.Name() ||
		p.State.SessionID != o.Session.ID || p.State.AgentID != o.Session.Agent {
		t.Fatalf("the first output of session %s is not its session/start anchor naming source %q, session %q and agent %q: anchor %v, %s",
			o.Session.Key(), src.Name(), o.Session.ID, o.Session.Agent, o.Anchor, o.Entry.Payload)
	}
}

// CheckOutput checks that an entry is one a tape takes: a kind, a payload
// that is a JSON object, a meta that names its source line, an id, and a
// session whose tape name is valid.
func CheckOutput(t testing.TB, src source.Source, o source.Output) {
	t.Helper()
	// A number out of float64's range (1e999) is one a tape takes, as
	// written: decoded as a json.Number, not refused.
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(o.Entry.Payload))
	dec.UseNumber()
	if o.Entry.Kind == "" || dec.Decode(&p) != nil || dec.More() {
		t.Fatalf("entry %+v: no kind, or a payload that is not an object", o.Entry)
	}
	var m struct {
		Source struct {
			File string `json:"file"`
		} `json:"source"`
	}
	if json.Unmarshal(o.Entry.Meta, &m) != nil || m.Source.File == "" {
		t.Fatalf("entry %s: meta %s names no source", o.Entry.ID, o.Entry.Meta)
	}
	if o.Entry.ID == "" || o.Session.ID == "" {
		t.Fatalf("entry %+v of session %+v: no id", o.Entry, o.Session)
	}
	if err := tapelog.ValidateTapeName(src.TapeName(o.Session, false)); err != nil {
		t.Fatalf("session %+v: %v", o.Session, err)
	}
}

// ConvertLines converts lines, each a transcript line, as one import of
// a quiet file does, and returns the entries made (kind and payload),
// without the session's first anchor, and the errors of its lines.
func ConvertLines(t testing.TB, src source.Source, lines ...string) (entries []string, errs []error) {
	t.Helper()
	conv, err := src.NewConverter(Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	offset := int64(0)
	for i, line := range lines {
		o, err := conv.Line(tapelog.RawLine{No: i + 1, Offset: offset, Data: []byte(line)})
		if err != nil {
			errs = append(errs, err)
		}
		outs = append(outs, o...)
		offset += int64(len(line)) + 1
	}
	outs = append(outs, conv.Flush()...)
	for _, o := range outs {
		CheckOutput(t, src, o)
		if o.Anchor && bytes.Contains(o.Entry.Payload, []byte(`"session/start"`)) {
			continue
		}
		entries = append(entries, o.Entry.Kind+" "+string(o.Entry.Payload))
	}
	return entries, errs
}

// CheckShape runs a subtest called name that converts lines
// (ConvertLines) and checks that they make want, the kind and payload of
// each entry, without an error: a table test's case.
func CheckShape(t *testing.T, src source.Source, name string, lines, want []string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		got, errs := ConvertLines(t, src, lines...)
		if len(errs) > 0 {
			t.Errorf("errors %v", errs)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// Fixtures are the source's golden transcripts: every transcript under
// testdata/import/<name>/src at the module's root, in path order. It
// fails the test when there are none: every source has some.
func Fixtures(tb testing.TB, src source.Source) [][]byte {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "import", src.Name(), "src")
	var paths []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && src.IsTranscript(path) {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no transcripts of %s in %s (%v): every source has golden transcripts there", src.Name(), dir, err)
	}
	slices.Sort(paths)
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// moduleRoot is the folder of the go.mod above the working folder (a
// test runs in its package's folder).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working folder")
		}
		dir = parent
	}
}

// FuzzResume fuzzes the source's converter on transcripts seeded with its
// Fixtures and seeds: resuming from a state saved wherever nothing is
// held makes what one pass makes (a checkpoint loses nothing and adds
// nothing), and every entry is one a tape takes.
func FuzzResume(f *testing.F, src source.Source, seeds ...string) {
	for _, data := range Fixtures(f, src) {
		f.Add(data)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if once, resumed := ConvertAll(t, src, data, false), ConvertAll(t, src, data, true); once != resumed {
			t.Fatalf("resumed:\n%s\nin one pass:\n%s", resumed, once)
		}
	})
}

// Convert runs the lines of data through a new converter of src, from a
// transcript's start, and drops what it made: a benchmark's loop, the
// part of an import that is the source's.
func Convert(tb testing.TB, src source.Source, data []byte) {
	c, err := src.NewConverter(Path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	lr := tapelog.NewLineReader(bytes.NewReader(data), tapelog.DefaultMaxLineBytes, 0, 0)
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := c.Line(l); err != nil {
			tb.Fatal(err)
		}
	}
	if last, ok := c.(source.LastLineReader); ok && lr.Offset() < int64(len(data)) {
		if _, err := last.LastLine(tapelog.RawLine{Offset: lr.Offset(), Data: data[lr.Offset():]}); err != nil {
			tb.Fatal(err)
		}
	}
	c.Flush()
}
