package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/testkit/benchcpu"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// manyTapesWorkspace generates n sessions, and beside them by hand what
// a listing reads besides the index's rows: a first prompt longer than
// the index keeps (read from its file), a subagent and its parent, forks,
// and two names in the tapes folder that no listing shows (a symlink and
// a folder whose name is no tape's).
func manyTapesWorkspace(tb testing.TB, n int) string {
	tb.Helper()
	ws := filepath.Join(tb.TempDir(), ".tape")
	if _, err := corpus.GenerateSessions(ws, corpus.SessionOptions{Tapes: n, Seed: 31}); err != nil {
		tb.Fatal(err)
	}
	long := strings.Repeat("a first prompt longer than the index keeps, ", 2*views.PromptBytes/40)
	write := func(rel, text string) {
		p := filepath.Join(ws, "tapes", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	anchor := func(tape, date, state string) {
		write(tape+"/anchors/001_start/anchor.json", fmt.Sprintf(`{"kind":"anchor","payload":{"name":"start","state":%s},"date":%q}`, state, date))
	}
	anchor("parent", "2026-11-20T09:00:00Z", `{"source":"claude","session_id":"S"}`)
	write("parent/anchors/001_start/m.jsonl", fmt.Sprintf(`{"kind":"message","payload":{"role":"user","content":%q},"date":"2026-11-20T09:00:01Z"}`+"\n", long))
	anchor("sub", "2026-11-20T09:30:00Z", `{"source":"claude","session_id":"S-agent","parent_session":"S"}`)
	write("sub/anchors/001_start/m.jsonl", `{"kind":"message","payload":{"role":"user","content":"a short one <&>"},"date":"2026-11-20T09:30:01Z"}`+"\n")
	w, err := tapelog.Open(ws)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	t, err := w.Tape("parent")
	if err != nil {
		tb.Fatal(err)
	}
	defer t.Close()
	for range 2 {
		if _, err := t.Fork(context.Background()); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink("parent", filepath.Join(ws, "tapes", "link")); err != nil {
		tb.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "tapes", "not a name "), 0o700); err != nil {
		tb.Fatal(err)
	}
	return ws
}

// pageReadWhole is the page read whole (read.ListTapes, on the same
// query the stream reads), each tape's forks counted through the root,
// and each record encoded by encoding/json: it holds the stream's own
// encoding (records.Tape.AppendJSON) and fork counts (TapesDir) to the
// plain way; views/sessions' oracle test holds the query.
func pageReadWhole(t *testing.T, w *tapelog.Workspace, ix *projector.Projector, f sessions.Filter) (string, read.Tapes) {
	t.Helper()
	var b bytes.Buffer
	got, err := writeWhole(&b, w, ix, f)
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), got
}

// writeWhole reads the page of f whole and writes it to out as the
// command did before it streamed: forks counted through the root, each
// record, with its cost, encoded by encoding/json.
func writeWhole(out io.Writer, w *tapelog.Workspace, ix *projector.Projector, f sessions.Filter) (read.Tapes, error) {
	got, err := read.ListTapes(context.Background(), ix, f)
	if err != nil {
		return got, err
	}
	costs, err := usage.CostByTape(context.Background(), ix, pricing.Snapshot(), nil)
	if err != nil {
		return got, err
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, s := range got.Page {
		rec := tapeRecord(s, w.CountForks(s.Name))
		if c, ok := costs[s.Name]; ok {
			rec.CostUSD = &c
		}
		if err := enc.Encode(rec); err != nil {
			return got, err
		}
	}
	return got, nil
}

// The JSON lines written as the rows are read are those of the page read
// whole and encoded by encoding/json, every page of it; the footer and
// the warnings follow as before. (The query both read is held to its
// oracle by views/sessions' tests.)
func TestTapesJSONIsThePageEncodedWhole(t *testing.T) {
	t.Parallel()
	ws := manyTapesWorkspace(t, 150)
	cases := []struct {
		args   []string
		filter sessions.Filter
		footer string // "" for none
	}{
		{[]string{"--limit", "0"}, sessions.Filter{}, ""},
		{nil, sessions.Filter{Page: views.Page{Limit: 20}}, "tape: 1–20 of 152 tapes; --offset 20 for more\n"},
		{[]string{"-n", "7", "--offset", "140"}, sessions.Filter{Page: views.Page{Limit: 7, Offset: 140}}, "tape: 141–147 of 152 tapes; --offset 147 for more\n"},
		{[]string{"--limit", "0", "--offset", "150"}, sessions.Filter{Page: views.Page{Offset: 150}}, "tape: 151–152 of 152 tapes\n"},
		{[]string{"--limit", "0", "--offset", "999"}, sessions.Filter{Page: views.Page{Offset: 999}}, "tape: 152–999 of 152 tapes\n"},
		{[]string{"--limit", "0", "--since", "2026-11-20T09:15:00Z"}, sessions.Filter{Since: time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC)}, ""},
	}
	warnings := "tape: warning: tapes/link: a symlink to parent; tape reads no tape through a symlink, and ignores it; see 'tape doctor'\n" +
		"tape: warning: tapes/not a name : not a tape name (it starts or ends with a space); tape ignores it; see 'tape doctor'\n"
	w, ix := openIndexOf(t, ws)
	for _, c := range cases {
		stdout, stderr, code := runTape(t, "", append([]string{"--tape-dir", ws, "tapes", "--json"}, c.args...)...)
		want, page := pageReadWhole(t, w, ix, c.filter)
		if code != 0 || stdout != want {
			t.Errorf("tapes --json %v: exit %d, %d bytes; want the %d bytes of the %d tapes of the page read whole\n got %.300s\nwant %.300s",
				c.args, code, len(stdout), len(want), len(page.Page), stdout, want)
		}
		if stderr != c.footer+warnings {
			t.Errorf("tapes --json %v: stderr\n%s\nwant\n%s", c.args, stderr, c.footer+warnings)
		}
	}
	// What the streamed lines must show for the test to mean anything.
	stdout, _, _ := runTape(t, "", "--tape-dir", ws, "tapes", "--json", "--limit", "0")
	for _, want := range []string{`"name":"parent","title":"a first prompt longer`, `"forks":2,`, `"parent":"parent"}`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %s in the listing", want)
		}
	}
	if n := strings.Count(stdout, "\n"); n != 152 {
		t.Errorf("%d lines; want 152", n)
	}
}

// BenchmarkTapesJSON measures the listing of `tape tapes --limit 0
// --json` on 2,000 generated sessions, its index already fresh (the
// command's catch-up or barrier is not in it): "stream" is the command's
// own (TapesCmd.streamJSON), "whole" the page read whole and encoded by
// encoding/json, as the command printed it before (pageReadWhole), in
// the same run. Both report CPU time, on a machine shared with others:
//
//	go test ./cmd/tape -run '^$' -bench TapesJSON -count 6
func BenchmarkTapesJSON(b *testing.B) {
	ws := manyTapesWorkspace(b, 2000)
	w, ix := openIndexOf(b, ws)
	if _, err := ix.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, ctx: context.Background()}
	b.Run("stream", func(b *testing.B) {
		cmd := &TapesCmd{JSON: true}
		cpu := benchcpu.Start()
		for b.Loop() {
			if err := cmd.streamJSON(env, ix, sessions.Filter{}); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report(b)
	})
	b.Run("whole", func(b *testing.B) {
		cpu := benchcpu.Start()
		for b.Loop() {
			if _, err := writeWhole(bufio.NewWriterSize(io.Discard, 64<<10), w, ix, sessions.Filter{}); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report(b)
	})
}

// openIndexOf opens the workspace ws and its index, closed when tb ends.
func openIndexOf(tb testing.TB, ws string) (*tapelog.Workspace, *projector.Projector) {
	tb.Helper()
	w, err := tapelog.Open(ws)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	ix, err := projector.Open(context.Background(), w)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return w, ix
}
