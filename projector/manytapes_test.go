package projector

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/short"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// sessionMutator makes and changes a workspace of the users' shape:
// thousands of small tapes, one a session, of about 35 entries in one or
// two anchor folders and three files. It starts sessions, appends to them
// through tape and by hand (to older files of older folders too, with bad
// lines and lines written in two parts), hands off, removes a tape and
// copies one with cp -r, so that ids repeat across tapes.
type sessionMutator struct {
	t    testing.TB
	r    *rand.Rand
	ws   *tapelog.Workspace
	next int               // the number of the next session
	torn map[string]string // a file that ends in the first part of a line, and the rest of it
	log  []string          // what was done, for the failure message
	// prefix starts the names of the sessions it starts and changes:
	// writers in several processes keep to their own.
	prefix string
	// oneTape, if set, is the only tape it writes, which it never removes
	// or copies: the shape of one large tape.
	oneTape string
}

func newSessionMutator(t testing.TB, r *rand.Rand, ws *tapelog.Workspace) *sessionMutator {
	return &sessionMutator{t: t, r: r, ws: ws, torn: map[string]string{}}
}

func (m *sessionMutator) pick(list []string) string { return list[m.r.IntN(len(list))] }

func (m *sessionMutator) words() string {
	var w []string
	for range 1 + m.r.IntN(4) {
		w = append(w, m.pick(vocabulary))
	}
	return strings.Join(w, " ")
}

// tapes lists the tapes it writes.
func (m *sessionMutator) tapes() []string {
	names, err := m.ws.Tapes()
	if err != nil {
		m.t.Fatal(err)
	}
	return slices.DeleteFunc(names, func(name string) bool {
		if m.oneTape != "" {
			return name != m.oneTape
		}
		return !strings.HasPrefix(name, m.prefix)
	})
}

func (m *sessionMutator) appendRaw(path, text string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		_, err = f.WriteString(text)
		f.Close()
	}
	if err != nil {
		m.t.Fatal(err)
	}
}

func (m *sessionMutator) tape(name string) *tapelog.Tape {
	tp, err := m.ws.Tape(name)
	if err != nil {
		m.t.Fatal(err)
	}
	return tp
}

// entry is an entry of a session: a user's or the assistant's message,
// with the working directory and branch in its meta now and then, a tool
// call or its result, a run with its model and usage, or a title.
func (m *sessionMutator) entry() tapelog.Entry {
	mu := &tapetest.Mutator{R: m.r} // its payloads are what the views read
	var e tapelog.Entry
	switch k := m.r.IntN(10); {
	case k < 4:
		e.Kind = tapelog.KindMessage
		e.Payload, _ = json.Marshal(map[string]string{"role": m.pick([]string{"user", "assistant"}), "content": m.words()})
		if m.r.IntN(4) == 0 {
			e.Meta, _ = json.Marshal(map[string]any{"cwd": "/src/" + m.pick([]string{"a", "b"}), "git_branch": m.pick([]string{"main", "fix"}),
				"synthetic": m.r.IntN(3) == 0})
		}
	case k < 6:
		e.Kind = tapelog.KindToolCall
		e.Payload, _ = json.Marshal(mu.Payload("tool_call"))
	case k < 8:
		e.Kind = tapelog.KindToolResult
		e.Payload, _ = json.Marshal(mu.Payload("tool_result"))
	case k < 9:
		e.Kind = "event"
		e.Payload, _ = json.Marshal(mu.Payload("event"))
	default:
		e.Kind = "event"
		e.Payload, _ = json.Marshal(map[string]any{"name": "title", "data": map[string]string{"title": m.words()}})
	}
	return e
}

func (m *sessionMutator) entries(n int) []tapelog.Entry {
	out := make([]tapelog.Entry, n)
	for i := range out {
		out[i] = m.entry()
	}
	return out
}

// newSession starts a tape as an agent or an import does: a first anchor
// that may name its source, its session and its parent's, then a few
// dozen entries, and a second anchor now and then.
func (m *sessionMutator) newSession() {
	ctx := context.Background()
	name := fmt.Sprintf("%ss%04d", m.prefix, m.next)
	switch {
	case m.oneTape != "":
		name = m.oneTape
	case m.next%7 == 3:
		name = fmt.Sprintf("%s会话-%d", m.prefix, m.next)
	}
	m.next++
	state := map[string]string{"cwd": "/src/" + name}
	if m.r.IntN(2) == 0 {
		state["source"], state["session_id"] = "claude", fmt.Sprintf("sess-%d", m.r.IntN(m.next))
		if m.r.IntN(3) == 0 {
			state["parent_session"] = fmt.Sprintf("sess-%d", m.r.IntN(m.next))
		}
	}
	start, _ := json.Marshal(state)
	tp := m.tape(name)
	defer tp.Close()
	if _, err := tp.Handoff(ctx, "session-start", start); err != nil {
		m.t.Fatal(err)
	}
	if _, err := tp.Append(ctx, m.entries(10+m.r.IntN(40))...); err != nil {
		m.t.Fatal(err)
	}
	if m.r.IntN(3) == 0 {
		m.handoff(tp)
		if _, err := tp.Append(ctx, m.entries(m.r.IntN(20))...); err != nil {
			m.t.Fatal(err)
		}
	}
	m.log = append(m.log, "session "+name)
}

func (m *sessionMutator) handoff(tp *tapelog.Tape) {
	state, _ := json.Marshal(map[string]string{"summary": m.words()})
	if _, err := tp.Handoff(context.Background(), m.pick([]string{"review", "plan/step", "审查"}), state); err != nil {
		m.t.Fatal(err)
	}
}

// files lists the tape files of a tape, older folders first.
func (m *sessionMutator) files(tape string) []string {
	files, _ := filepath.Glob(filepath.Join(m.ws.Dir(), "tapes", tape, "anchors", "*", "*.jsonl"))
	return files
}

// handLine is a line an agent or a person writes without tape: bare
// messages without ids, entries with dates of their own or ids of a few
// digits (which repeat), and bad lines.
func (m *sessionMutator) handLine() string {
	lines := []string{
		fmt.Sprintf(`{"role":"user","content":%q}`, m.words()),
		fmt.Sprintf(`{"kind":"message","payload":{"role":"assistant","content":%q},"date":"2026-0%d-01T00:00:00Z"}`, m.words(), 1+m.r.IntN(9)),
		fmt.Sprintf(`{"id":%d,"kind":"tool_call","payload":{"calls":[{"id":"call_%d","function":{"name":"bash"}}]}}`, m.r.IntN(5), m.r.IntN(3)),
		fmt.Sprintf(`{"kind":"tool_result","payload":{"results":[{"tool_call_id":"call_%d","content":%q}]}}`, m.r.IntN(3), m.words()),
		`not json ` + m.words(),
		"{\"kind\":\"event\",\"payload\":{\"bad\":\"\xff\"}}",
		"",
	}
	return m.pick(lines) + "\n"
}

// handAppend appends to any file of any tape, an older folder's as well
// as the current one's: a whole line, or the first part of one, whose rest
// comes later. A file that ends in a part gets its rest first.
func (m *sessionMutator) handAppend(tape string) {
	files := m.files(tape)
	if len(files) == 0 {
		return
	}
	file := m.pick(files)
	if m.r.IntN(4) == 0 { // a file of the tape's own, beside those tape writes
		file = filepath.Join(filepath.Dir(file), "hand.jsonl")
	}
	if rest, ok := m.torn[file]; ok {
		m.appendRaw(file, rest)
		delete(m.torn, file)
		m.log = append(m.log, "rest "+file)
		return
	}
	line := m.handLine()
	if m.r.IntN(4) == 0 {
		cut := m.r.IntN(len(line))
		line, m.torn[file] = line[:cut], line[cut:]
		m.log = append(m.log, "part "+file)
	} else {
		m.log = append(m.log, "hand "+file)
	}
	m.appendRaw(file, line)
}

// completeLine writes the rest of a line written in part, if there is one.
func (m *sessionMutator) completeLine() {
	files := slices.Sorted(maps.Keys(m.torn))
	if len(files) == 0 {
		return
	}
	file := m.pick(files)
	if _, err := os.Stat(file); err == nil { // its tape may be gone
		m.appendRaw(file, m.torn[file])
		m.log = append(m.log, "rest "+file)
	}
	delete(m.torn, file)
}

// step makes one random change.
func (m *sessionMutator) step() {
	ctx := context.Background()
	tapes := m.tapes()
	if len(tapes) == 0 {
		m.newSession()
		return
	}
	tape := m.pick(tapes)
	if m.r.IntN(2) == 0 { // the recent sessions are the busy ones
		tape = tapes[len(tapes)-1-m.r.IntN(min(len(tapes), 10))]
	}
	k := m.r.IntN(100)
	if m.oneTape != "" && k >= 68 && k < 96 {
		k = 0 // an append, where another shape starts, removes or copies a session
	}
	switch {
	case k < 35: // an agent appends to its session
		tp := m.tape(tape)
		if _, err := tp.Append(ctx, m.entries(1+m.r.IntN(4))...); err != nil {
			m.t.Fatal(err)
		}
		tp.Close()
		m.log = append(m.log, "append "+tape)
	case k < 60:
		m.handAppend(tape)
	case k < 68:
		tp := m.tape(tape)
		m.handoff(tp)
		tp.Close()
		m.log = append(m.log, "handoff "+tape)
	case k < 90:
		m.newSession()
	case k < 93: // a session deleted by hand
		if len(tapes) > 1 {
			os.RemoveAll(filepath.Join(m.ws.Dir(), "tapes", tape))
			m.log = append(m.log, "rm -r "+tape)
		}
	case k < 96: // a session copied by hand: cp -r, so its ids repeat on two tapes
		name := fmt.Sprintf("%s-copy%d", tape, m.next)
		m.next++
		if err := os.CopyFS(filepath.Join(m.ws.Dir(), "tapes", name), os.DirFS(filepath.Join(m.ws.Dir(), "tapes", tape))); err != nil {
			m.t.Fatal(err)
		}
		m.log = append(m.log, "cp -r "+tape+" "+name)
	default:
		m.completeLine()
	}
}

// fileMark is what changes of a path in the tapes folder when it is
// written, for changedPaths.
type fileMark struct {
	size, mtime int64
	ino         uint64
	dir         bool
}

// marks records every path under the workspace's tapes folder.
func marks(ws *tapelog.Workspace) map[string]fileMark {
	out := map[string]fileMark{}
	filepath.WalkDir(filepath.Join(ws.Dir(), "tapes"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(ws.Dir(), path)
		mk := fileMark{dir: d.IsDir(), ino: inode(fi)}
		if !mk.dir { // a folder's times change when the settler dates it, which makes no event worth a pass
			mk.size, mk.mtime = fi.Size(), fi.ModTime().UnixNano()
		}
		out[rel] = mk
		return nil
	})
	return out
}

// changedScope is the scope a watcher would have gathered from the events
// of the changes between two marks: every path made, written or removed.
func changedScope(before, after map[string]fileMark) *scope {
	sc := newScope()
	for rel, mk := range after {
		if was, ok := before[rel]; !ok || was != mk {
			sc.add(rel)
		}
	}
	for rel := range before {
		if _, ok := after[rel]; !ok {
			sc.add(rel)
		}
	}
	return sc
}

// The projector's main property on the users' shape: a hundred or two
// small tapes, sessions starting and being written to, appended to by
// hand in older folders too, removed and copied, with catch-ups at random
// points, full ones and ones scoped to what changed as a watcher's are.
// After each catch-up, the index answers exactly as a full rebuild of the
// same files, table by table and through the read API (of the tapes that
// changed, and at the end of every tape).
func TestIncrementalEqualsRebuildManyTapes(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	var mu sync.Mutex
	done := map[string]int{}           // what the runs did, by the first word of their log
	var listed, folders int            // of the settled runs' catch-ups
	t.Run("runs", func(t *testing.T) { // returns once its runs, each on a core of its own, are done
		type run struct {
			seed    uint64
			settled bool // folders dated in the past after every change, so catch-ups skip unchanged ones, as in a workspace of old sessions
		}
		runs := []run{{0, false}, {1, true}, {2, true}}
		if testing.Short() { // the race detector's pass: a run of each kind (seed 1's settled run lists too much in one round)
			runs = []run{runs[0], runs[2]}
		}
		for _, c := range runs {
			name := fmt.Sprintf("fresh/seed%d", c.seed)
			if c.settled {
				name = fmt.Sprintf("settled/seed%d", c.seed)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				log, st := manyTapesRun(t, c.seed, c.settled)
				mu.Lock()
				defer mu.Unlock()
				for _, l := range log {
					done[strings.Fields(l)[0]]++
				}
				if c.settled {
					listed, folders = listed+st.Listed, folders+st.Folders
				}
			})
		}
	})
	for _, op := range []string{"session", "append", "hand", "part", "rest", "handoff", "rm", "cp", "scoped", "catch-up"} {
		if done[op] == 0 {
			t.Errorf("no run did %q: the property was not tested on it (%v)", op, done)
		}
	}
	if listed*2 > folders {
		t.Errorf("the settled runs' catch-ups listed %d of %d folders; the settled-folder path was hardly taken", listed, folders)
	}
}

// manyTapesRun runs the property for one seed, and returns what it did
// and the sum of its catch-ups' stats.
func manyTapesRun(t *testing.T, seed uint64, settled bool) ([]string, Stats) {
	ws := newWorkspace(t)
	done := ws.DeferSyncs() // tapes are made by the hundred, and the test needs none of their fsyncs
	defer done()
	p := openProjector(t, ws)
	p.foldChunk = 3 + int(seed%3)     // folds that span chunks on most tapes
	p.checkpointsAt = 2 + int(seed%3) // the first build writes its checkpoints folder by folder
	r := rand.New(rand.NewPCG(seed, 18))
	m := newSessionMutator(t, r, ws)
	for range short.Sized(100, 25) + r.IntN(short.Sized(50, 10)) {
		m.newSession()
	}
	var s settler
	if settled {
		s.settle(ws)
	}
	catchUp(t, p)
	seen := marks(ws)
	m.log = append(m.log, fmt.Sprintf("catch-up of %d sessions", len(m.tapes())))
	var sum Stats
	rounds := short.Sized(2, 1)
	for round := range rounds {
		for range 10 + r.IntN(30) {
			m.step()
			if settled {
				s.settle(ws)
			}
		}
		now := marks(ws)
		sc := changedScope(seen, now)
		var changed []string // the tapes whose answers are compared, all of them in the last round
		for tape := range sc.tapes {
			if _, err := os.Stat(filepath.Join(ws.Dir(), "tapes", tape)); err == nil {
				changed = append(changed, tape)
			}
		}
		slices.Sort(changed)
		if round == rounds-1 {
			changed = nil
		}
		var st Stats
		var err error
		if r.IntN(3) > 0 {
			st, err = p.catchUpScoped(context.Background(), sc)
			m.log = append(m.log, "scoped catch-up")
		} else {
			st, err = p.CatchUp(context.Background())
			m.log = append(m.log, "catch-up")
		}
		if err != nil {
			t.Fatal(err)
		}
		sum.Listed, sum.Folders = sum.Listed+st.Listed, sum.Folders+st.Folders
		seen = now
		if got, want := everything(t, p, vocabulary, changed), rebuiltEverything(t, ws, vocabulary, changed); got != want {
			t.Fatalf("seed %d: after ...%s\n%s", seed, strings.Join(m.log[max(0, len(m.log)-40):], "; "), firstDiff(got, want))
		}
	}
	return m.log, sum
}
