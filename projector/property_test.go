package projector

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

var vocabulary = []string{"flush", "timeout", "store", "错误", "重试", "发生了一个错误", "エラー", "fix_42", "/usr/bin", "ok"}

// mutator makes random changes to a workspace's files, the way writers and
// people do: appends through tape and by hand, torn and bad lines,
// handoffs, hand-made folders, truncations, rewrites and deletions.
type mutator struct {
	t   *testing.T
	r   *rand.Rand
	ws  *tapelog.Workspace
	log []string // what was done, for the failure message
}

func (m *mutator) words() string {
	n := 1 + m.r.IntN(4)
	var w []string
	for range n {
		w = append(w, vocabulary[m.r.IntN(len(vocabulary))])
	}
	return strings.Join(w, " ")
}

func (m *mutator) tapes() []string {
	names, err := m.ws.Tapes()
	if err != nil {
		m.t.Fatal(err)
	}
	return names
}

func (m *mutator) pick(list []string) string { return list[m.r.IntN(len(list))] }

// files lists the tape files of the workspace, relative to it.
func (m *mutator) files() []string {
	var files []string
	filepath.WalkDir(m.ws.Dir(), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

func (m *mutator) folders() []string {
	var dirs []string
	for _, tape := range m.tapes() {
		matches, _ := filepath.Glob(filepath.Join(m.ws.Dir(), "tapes", tape, "anchors", "*_*"))
		dirs = append(dirs, matches...)
	}
	return dirs
}

// payload makes a payload of kind, with what the views read: calls with
// ids and names, results that succeed or fail, run events with and without
// usage.
func (m *mutator) payload(kind string) map[string]any {
	p := map[string]any{"content": m.words(), "name": m.words()}
	switch kind {
	case "tool_call":
		var calls []any
		for i := range m.r.IntN(3) {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", m.r.IntN(3)+i),
				"function": map[string]any{"name": m.pick([]string{"bash", "read", "搜索"}), "arguments": m.words()}})
		}
		p["calls"] = calls
	case "tool_result":
		var results []any
		// Results by position, as Bub writes them, and results that
		// carry their call's id, as imported sessions do, one per entry
		// and often for a call that is not pending.
		for range m.r.IntN(3) {
			id := fmt.Sprintf("call_%d", m.r.IntN(4))
			r := []any{m.words(), "Error: " + m.words(),
				map[string]any{"tool_call_id": id, "content": m.words()}, map[string]any{"call_id": id, "is_error": true}}
			results = append(results, r[m.r.IntN(len(r))])
		}
		p["results"] = results
	case "event":
		if m.r.IntN(2) == 0 {
			p["name"] = "run"
			data := map[string]any{"status": "ok", "model": m.pick([]string{"gpt-x", "claude"})}
			if m.r.IntN(3) > 0 {
				data["usage"] = map[string]any{"prompt_tokens": m.r.IntN(500), "completion_tokens": m.r.IntN(100)}
			}
			if m.r.IntN(2) == 0 { // a request reported more than once, on any tape
				data["usage_id"] = fmt.Sprintf("req_%d", m.r.IntN(4))
			}
			p["data"] = data
		}
	}
	return p
}

func (m *mutator) step() {
	ctx := context.Background()
	tapes := m.tapes()
	tape := "main"
	if len(tapes) > 0 {
		tape = m.pick(tapes)
	}
	switch k := m.r.IntN(100); {
	case k < 35: // append through tape
		tp, _ := m.ws.Tape(tape)
		kinds := []string{"message", "tool_call", "tool_result", "event", "error", "note"}
		kind := m.pick(kinds)
		payload, _ := json.Marshal(m.payload(kind))
		if _, err := tp.Append(ctx, tapelog.Entry{Kind: kind, Payload: payload}); err != nil {
			m.t.Fatal(err)
		}
		tp.Close()
		m.log = append(m.log, "append "+tape)
	case k < 50: // append by hand: bare messages, no ids, odd dates, torn or bad lines
		folders := m.folders()
		if len(folders) == 0 {
			return
		}
		file := filepath.Join(m.pick(folders), m.pick([]string{"messages.jsonl", "events.jsonl", "hand.jsonl"}))
		lines := []string{
			fmt.Sprintf(`{"role":"user","content":%q}`, m.words()),
			fmt.Sprintf(`{"kind":"event","payload":{"name":%q},"date":"2026-0%d-01T00:00:00Z"}`, m.words(), 1+m.r.IntN(9)),
			fmt.Sprintf(`{"id":%d,"kind":"message","payload":{"content":%q}}`, m.r.IntN(5), m.words()),
			`not json ` + m.words(),
			"{\"kind\":\"event\",\"payload\":{\"bad\":\"\xff\"}}",
			`{"kind":"event","payload":{"torn":"` + m.words(), // no newline: a torn tail
			"\n",
		}
		line := m.pick(lines)
		if !strings.HasPrefix(line, `{"kind":"event","payload":{"torn"`) && line != "\n" {
			line += "\n"
		}
		appendRaw(m.t, file, line)
		m.log = append(m.log, "hand "+file)
	case k < 58: // handoff
		tp, _ := m.ws.Tape(tape)
		if _, err := tp.Handoff(ctx, m.pick([]string{"review", "plan/step", "审查"}), json.RawMessage(`{"summary":"`+m.words()+`"}`)); err != nil {
			m.t.Fatal(err)
		}
		m.log = append(m.log, "handoff "+tape)
	case k < 62: // a folder made by hand
		dir := filepath.Join(m.ws.Dir(), "tapes", tape, "anchors", fmt.Sprintf("%03d_hand", 50+m.r.IntN(50)))
		os.MkdirAll(dir, 0o700)
		m.log = append(m.log, "mkdir "+dir)
	case k < 68: // truncate a file (a rewrite the projector must notice)
		if files := m.files(); len(files) > 0 {
			f := m.pick(files)
			fi, _ := os.Stat(f)
			os.Truncate(f, m.r.Int64N(fi.Size()+1))
			m.log = append(m.log, "truncate "+f)
		}
	case k < 72: // rewrite a file in place with other content
		if files := m.files(); len(files) > 0 {
			f := m.pick(files)
			os.WriteFile(f, []byte(fmt.Sprintf(`{"role":"assistant","content":%q}`+"\n", m.words())), 0o600)
			m.log = append(m.log, "rewrite "+f)
		}
	case k < 76: // delete a file
		if files := m.files(); len(files) > 0 {
			f := m.pick(files)
			os.Remove(f)
			m.log = append(m.log, "rm "+f)
		}
	case k < 79: // delete a folder
		if folders := m.folders(); len(folders) > 1 {
			f := m.pick(folders)
			os.RemoveAll(f)
			m.log = append(m.log, "rm -r "+f)
		}
	case k < 82: // a new tape
		name := m.pick([]string{"side", "会话", "copy"})
		if name == "copy" && slices.Contains(tapes, "main") && !slices.Contains(tapes, "copy") {
			os.CopyFS(filepath.Join(m.ws.Dir(), "tapes", "copy"), os.DirFS(filepath.Join(m.ws.Dir(), "tapes", "main")))
		} else {
			tp, _ := m.ws.Tape(name)
			tp.Handoff(ctx, "start", nil)
		}
		m.log = append(m.log, "tape "+name)
	case k < 84: // a symlink out of the workspace: an unreadable file
		if folders := m.folders(); len(folders) > 0 {
			outside := filepath.Join(m.t.TempDir(), "outside.jsonl")
			os.WriteFile(outside, []byte(`{"role":"user","content":"secret"}`+"\n"), 0o600)
			os.Symlink(outside, filepath.Join(m.pick(folders), "leak.jsonl"))
			m.log = append(m.log, "symlink out")
		}
	case k < 85: // delete a tape
		if len(tapes) > 1 {
			os.RemoveAll(filepath.Join(m.ws.Dir(), "tapes", tape))
			m.log = append(m.log, "rm tape "+tape)
		}
	default: // a catch-up in the middle
		m.log = append(m.log, "catch-up")
	}
}

// seeds is how many seeds a property test runs: n, or a fifth of them
// with -short, which .ci/run's pass under the race detector uses (the
// detector slows these tests tenfold, and they look for wrong answers,
// not races; the pass without it runs them all).
func seeds(n uint64) uint64 {
	if testing.Short() {
		return max(1, n/5)
	}
	return n
}

// TestIncrementalEqualsRebuild is the projector's main property: after any
// sequence of changes to the files, with catch-ups at random points, the
// incremental index answers exactly as a full rebuild of the same files.
func TestIncrementalEqualsRebuild(t *testing.T) {
	for seed := range seeds(25) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			p := openProjector(t, ws)
			p.foldChunk = 1 + int(seed%3)     // folds that span chunks; the rebuild it is compared with reads 4096 at a time
			p.checkpointsAt = 1 + int(seed%2) // the first build writes its checkpoints folder by folder
			m := &mutator{t: t, r: rand.New(rand.NewPCG(seed, 7)), ws: ws}
			for step := range 80 {
				before := len(m.log)
				m.step()
				if (len(m.log) > before && m.log[len(m.log)-1] == "catch-up") || step%9 == 0 {
					catchUp(t, p)
				}
			}
			catchUp(t, p)
			got, want := everything(t, p, vocabulary, nil), rebuiltEverything(t, ws, vocabulary, nil)
			if got != want {
				t.Fatalf("after %v\nincremental:\n%s\nrebuild:\n%s", m.log, got, want)
			}
		})
	}
}

// The same property when folders look settled: after every change, the
// folders changed in the last minute get a distinct time an hour ago, so
// later catch-ups trust their listings and skip unchanged folders, the
// paths a test run within the 2 s racy window never takes otherwise.
func TestIncrementalEqualsRebuildOnSettledFolders(t *testing.T) {
	var listed, visited int
	for seed := range seeds(25) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			p := openProjector(t, ws)
			m := &mutator{t: t, r: rand.New(rand.NewPCG(seed, 11)), ws: ws}
			var s settler
			settle := func() { s.settle(ws) }
			for step := range 80 {
				before := len(m.log)
				m.step()
				settle()
				if (len(m.log) > before && m.log[len(m.log)-1] == "catch-up") || step%9 == 0 {
					st := catchUp(t, p)
					listed += st.Listed
					visited += len(m.folders())
				}
			}
			catchUp(t, p)
			if got, want := everything(t, p, vocabulary, nil), rebuiltEverything(t, ws, vocabulary, nil); got != want {
				t.Fatalf("after %v\nincremental:\n%s\nrebuild:\n%s", m.log, got, want)
			}
		})
	}
	if listed*2 > visited {
		t.Errorf("listed %d folders of %d visited; the settled-folder path was hardly taken", listed, visited)
	}
}

// The same property on a workspace of many small tapes, the shape of
// issue 18: more tapes than the scan holds ahead of the walk (tapeChunk,
// scanAhead), one of them with more folders than the scan stats itself
// (prefetchChunk), settled, so that catch-ups take the tapes' kept
// listings and stat through the tapes folder, and walks that find a
// change stop with chunks scanned and not walked.
func TestIncrementalEqualsRebuildAcrossTapeChunks(t *testing.T) {
	ctx := context.Background()
	tapes := tapeChunk*(scanAhead+1) + 3
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			for i := range tapes {
				appendMsgs(t, ws, fmt.Sprintf("t%03d", i), []string{vocabulary[i%len(vocabulary)]})
			}
			big, err := ws.Tape("t000")
			if err != nil {
				t.Fatal(err)
			}
			for i := range prefetchChunk + 2 {
				if _, err := big.Handoff(ctx, fmt.Sprintf("step %d", i), nil); err != nil {
					t.Fatal(err)
				}
				appendMsgs(t, ws, "t000", []string{vocabulary[i%len(vocabulary)]})
			}
			big.Close()
			p := openProjector(t, ws)
			m := &mutator{t: t, r: rand.New(rand.NewPCG(seed, 13)), ws: ws}
			var s settler
			s.settle(ws)
			catchUp(t, p)
			for step := range 40 {
				before := len(m.log)
				m.step()
				s.settle(ws)
				if (len(m.log) > before && m.log[len(m.log)-1] == "catch-up") || step%5 == 0 {
					catchUp(t, p)
				}
			}
			catchUp(t, p)
			if got, want := dump(t, p, vocabulary), rebuiltDump(t, ws, vocabulary); got != want {
				t.Fatalf("after %v\nincremental:\n%s\nrebuild:\n%s", m.log, got, want)
			}
			if got, want := indexedIDs(t, p), readIDs(t, ws); got != want {
				t.Fatalf("after %v\nindexed:\n%s\nin the files:\n%s", m.log, got, want)
			}
		})
	}
}

// indexedIDs lists the tape and id of every entry of the index, sorted.
func indexedIDs(t *testing.T, p *Projector) string {
	t.Helper()
	rows, err := p.db.Query(`SELECT tape || ' ' || id FROM entries ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return strings.Join(ids, "\n")
}

// readIDs lists the tape and id of every entry the log package reads from
// the files, sorted as indexedIDs.
func readIDs(t *testing.T, ws *tapelog.Workspace) string {
	t.Helper()
	names, err := ws.Tapes()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range names {
		tp, err := ws.Tape(name)
		if err != nil {
			t.Fatal(err)
		}
		for e, err := range tp.All(context.Background()) {
			if err == nil {
				ids = append(ids, name+" "+e.ID)
			}
		}
		tp.Close()
	}
	slices.Sort(ids)
	return strings.Join(ids, "\n")
}

// settler dates the anchor folders, and the tapes' anchors folders,
// changed in the last minute to distinct times an hour back, so that later
// catch-ups trust their listings (see racyWindow) and skip unchanged
// folders.
type settler struct{ tick int }

func (s *settler) settle(ws *tapelog.Workspace) {
	dirs, _ := filepath.Glob(filepath.Join(ws.Dir(), "tapes/*/anchors/*"))
	tapes, _ := filepath.Glob(filepath.Join(ws.Dir(), "tapes/*/anchors"))
	for _, d := range append(dirs, tapes...) {
		if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) < time.Minute {
			s.tick++
			old := time.Now().Add(-time.Hour).Add(time.Duration(s.tick) * time.Millisecond)
			os.Chtimes(d, old, old)
		}
	}
}
