// Package tapetest changes a workspace's files at random, as writers and
// people do, for the property tests of the projections of the files (the
// local index, the team's server): after any sequence of changes, with
// passes at random points, a projection kept incrementally must answer as
// one made from nothing.
package tapetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// Vocabulary is the words the mutator writes: English, Chinese and
// Japanese, a snake_case name, a path.
var Vocabulary = []string{"flush", "timeout", "store", "错误", "重试", "发生了一个错误", "エラー", "fix_42", "/usr/bin", "ok"}

// Mutator makes random changes to a workspace's files, the way writers and
// people do: appends through tape and by hand, torn and bad lines,
// handoffs, hand-made folders, truncations, rewrites and deletions,
// resets, forks merged back.
type Mutator struct {
	T   testing.TB
	R   *rand.Rand
	WS  *tapelog.Workspace
	Log []string // what was done, for the failure message
}

func (m *Mutator) words() string {
	n := 1 + m.R.IntN(4)
	var w []string
	for range n {
		w = append(w, Vocabulary[m.R.IntN(len(Vocabulary))])
	}
	return strings.Join(w, " ")
}

func (m *Mutator) tapes() []string {
	names, err := m.WS.Tapes()
	if err != nil {
		m.T.Fatal(err)
	}
	return names
}

func (m *Mutator) pick(list []string) string { return list[m.R.IntN(len(list))] }

// files lists the tape files of the workspace, relative to it.
func (m *Mutator) files() []string {
	var files []string
	filepath.WalkDir(m.WS.Dir(), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

func (m *Mutator) folders() []string {
	var dirs []string
	for _, tape := range m.tapes() {
		matches, _ := filepath.Glob(filepath.Join(m.WS.Dir(), "tapes", tape, "anchors", "*_*"))
		dirs = append(dirs, matches...)
	}
	return dirs
}

// Payload makes a payload of kind, with what the views read: calls with
// ids and names, results that succeed or fail, run events with and without
// usage.
func (m *Mutator) Payload(kind string) map[string]any {
	p := map[string]any{"content": m.words(), "name": m.words()}
	switch kind {
	case "tool_call":
		var calls []any
		for i := range m.R.IntN(3) {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", m.R.IntN(3)+i),
				"function": map[string]any{"name": m.pick([]string{"bash", "read", "搜索"}), "arguments": m.words()}})
		}
		p["calls"] = calls
	case "tool_result":
		var results []any
		// Results by position, as Bub writes them, and results that
		// carry their call's id, as imported sessions do, one per entry
		// and often for a call that is not pending.
		for range m.R.IntN(3) {
			id := fmt.Sprintf("call_%d", m.R.IntN(4))
			r := []any{m.words(), "Error: " + m.words(),
				map[string]any{"tool_call_id": id, "content": m.words()}, map[string]any{"call_id": id, "is_error": true}}
			results = append(results, r[m.R.IntN(len(r))])
		}
		p["results"] = results
	case "event":
		if m.R.IntN(2) == 0 {
			p["name"] = "run"
			data := map[string]any{"status": "ok", "model": m.pick([]string{"gpt-x", "claude"})}
			if m.R.IntN(3) > 0 {
				data["usage"] = map[string]any{"prompt_tokens": m.R.IntN(500), "completion_tokens": m.R.IntN(100)}
			}
			if m.R.IntN(2) == 0 { // a request reported more than once, on any tape
				data["usage_id"] = fmt.Sprintf("req_%d", m.R.IntN(4))
			}
			p["data"] = data
		}
	}
	return p
}

// Step makes one change; a catch-up, which the caller makes, is one of
// them (Log says "catch-up").
func (m *Mutator) Step() {
	ctx := context.Background()
	tapes := m.tapes()
	tape := "main"
	if len(tapes) > 0 {
		tape = m.pick(tapes)
	}
	switch k := m.R.IntN(100); {
	case k < 35: // append through tape
		tp, _ := m.WS.Tape(tape)
		kinds := []string{"message", "tool_call", "tool_result", "event", "error", "note"}
		kind := m.pick(kinds)
		payload, _ := json.Marshal(m.Payload(kind))
		if _, err := tp.Append(ctx, tapelog.Entry{Kind: kind, Payload: payload}); err != nil {
			m.T.Fatal(err)
		}
		tp.Close()
		m.Log = append(m.Log, "append "+tape)
	case k < 50: // append by hand: bare messages, no ids, odd dates, torn or bad lines
		folders := m.folders()
		if len(folders) == 0 {
			return
		}
		file := filepath.Join(m.pick(folders), m.pick([]string{"messages.jsonl", "events.jsonl", "hand.jsonl"}))
		lines := []string{
			fmt.Sprintf(`{"role":"user","content":%q}`, m.words()),
			fmt.Sprintf(`{"kind":"event","payload":{"name":%q},"date":"2026-0%d-01T00:00:00Z"}`, m.words(), 1+m.R.IntN(9)),
			fmt.Sprintf(`{"id":%d,"kind":"message","payload":{"content":%q}}`, m.R.IntN(5), m.words()),
			`not json ` + m.words(),
			"{\"kind\":\"event\",\"payload\":{\"bad\":\"\xff\"}}",
			`{"kind":"event","payload":{"torn":"` + m.words(), // no newline: a torn tail
			"\n",
		}
		line := m.pick(lines)
		if !strings.HasPrefix(line, `{"kind":"event","payload":{"torn"`) && line != "\n" {
			line += "\n"
		}
		AppendRaw(m.T, file, line)
		m.Log = append(m.Log, "hand "+file)
	case k < 58: // handoff
		tp, _ := m.WS.Tape(tape)
		if _, err := tp.Handoff(ctx, m.pick([]string{"review", "plan/step", "审查"}), json.RawMessage(`{"summary":"`+m.words()+`"}`)); err != nil {
			m.T.Fatal(err)
		}
		m.Log = append(m.Log, "handoff "+tape)
	case k < 62: // a folder made by hand; one of seq 0 holds entries before the first anchor
		seq := 50 + m.R.IntN(50)
		if m.R.IntN(3) == 0 {
			seq = 0
		}
		dir := filepath.Join(m.WS.Dir(), "tapes", tape, "anchors", fmt.Sprintf("%03d_hand", seq))
		os.MkdirAll(dir, 0o700)
		m.Log = append(m.Log, "mkdir "+dir)
		if folders := m.folders(); m.R.IntN(3) == 0 && len(folders) > 0 {
			// An anchor.json put in later: a folder of seq 0 becomes an anchor.
			f := filepath.Join(m.pick(folders), "anchor.json")
			if _, err := os.Stat(f); err != nil {
				os.WriteFile(f, []byte(`{"kind":"anchor","payload":{"name":"later","state":{}}}`+"\n"), 0o600)
				m.Log = append(m.Log, "anchor.json "+f)
			}
		}
	case k < 68: // truncate a file (a rewrite the projector must notice)
		if files := m.files(); len(files) > 0 {
			f := m.pick(files)
			fi, _ := os.Stat(f)
			os.Truncate(f, m.R.Int64N(fi.Size()+1))
			m.Log = append(m.Log, "truncate "+f)
		}
	case k < 72: // rewrite a file in place with other content
		if files := m.files(); len(files) > 0 {
			f := m.pick(files)
			os.WriteFile(f, []byte(fmt.Sprintf(`{"role":"assistant","content":%q}`+"\n", m.words())), 0o600)
			m.Log = append(m.Log, "rewrite "+f)
		}
	case k < 76: // delete a file
		if files := m.files(); len(files) > 0 {
			f := m.pick(files)
			os.Remove(f)
			m.Log = append(m.Log, "rm "+f)
		}
	case k < 79: // delete a folder
		if folders := m.folders(); len(folders) > 1 {
			f := m.pick(folders)
			os.RemoveAll(f)
			m.Log = append(m.Log, "rm -r "+f)
		}
	case k < 82: // a new tape
		name := m.pick([]string{"side", "会话", "copy"})
		if name == "copy" && slices.Contains(tapes, "main") && !slices.Contains(tapes, "copy") {
			os.CopyFS(filepath.Join(m.WS.Dir(), "tapes", "copy"), os.DirFS(filepath.Join(m.WS.Dir(), "tapes", "main")))
		} else {
			tp, _ := m.WS.Tape(name)
			tp.Handoff(ctx, "start", nil)
		}
		m.Log = append(m.Log, "tape "+name)
	case k < 84: // a symlink out of the workspace: an unreadable file
		if folders := m.folders(); len(folders) > 0 {
			outside := filepath.Join(m.T.TempDir(), "outside.jsonl")
			os.WriteFile(outside, []byte(`{"role":"user","content":"secret"}`+"\n"), 0o600)
			os.Symlink(outside, filepath.Join(m.pick(folders), "leak.jsonl"))
			m.Log = append(m.Log, "symlink out")
		}
	case k < 85: // delete a tape
		if len(tapes) > 1 {
			os.RemoveAll(filepath.Join(m.WS.Dir(), "tapes", tape))
			m.Log = append(m.Log, "rm tape "+tape)
		}
	case k < 87: // start a tape over
		tp, _ := m.WS.Tape(tape)
		if _, err := tp.Reset(ctx, m.R.IntN(2) == 0); err != nil && !errors.Is(err, tapelog.ErrNoTape) {
			m.T.Fatal(err)
		}
		tp.Close()
		m.Log = append(m.Log, "reset "+tape)
	case k < 89: // a fork, written to and merged back
		m.forkAndMerge(ctx, tape)
	default: // a catch-up in the middle
		m.Log = append(m.Log, "catch-up")
	}
}

// forkAndMerge forks the tape, writes to the fork (a handoff too, at
// times), and merges it back.
func (m *Mutator) forkAndMerge(ctx context.Context, tape string) {
	tp, _ := m.WS.Tape(tape)
	defer tp.Close()
	id, err := tp.Fork(ctx)
	if err != nil {
		m.Log = append(m.Log, "fork "+tape+" failed: "+err.Error())
		return
	}
	fork, err := tp.OpenFork(id)
	if err != nil {
		m.T.Fatal(err)
	}
	for range 1 + m.R.IntN(3) {
		payload, _ := json.Marshal(m.Payload("message"))
		if _, err := fork.Append(ctx, tapelog.Entry{Kind: "message", Payload: payload}); err != nil {
			m.T.Fatal(err)
		}
		if m.R.IntN(3) == 0 {
			fork.Handoff(ctx, "fork step", nil)
		}
	}
	fork.Close()
	if _, err := tp.Merge(ctx, id, tapelog.MergeOptions{}); err != nil {
		m.T.Fatal(err)
	}
	m.Log = append(m.Log, "fork and merge "+tape)
}

// Files lists the tape files of the workspace.
func (m *Mutator) Files() []string { return m.files() }

// Folders lists the anchor folders of the workspace.
func (m *Mutator) Folders() []string { return m.folders() }
