package amp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/amp"
	tapelog "github.com/tape-dev/tape/log"
)

const threadID = "T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a42"

// home is a workspace and a threads folder.
type home struct {
	t       *testing.T
	ws      *tapelog.Workspace
	threads string
}

func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".tape"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	threads := filepath.Join(dir, "threads")
	if err := os.Mkdir(threads, 0o700); err != nil {
		t.Fatal(err)
	}
	return &home{t: t, ws: ws, threads: threads}
}

// write writes the thread as Amp does: JSON.stringify(thread, null, 2)
// to T-<id>.json.amptmp, renamed over T-<id>.json (a new file each
// time). settled dates it an hour back: a file the importer takes as
// quiet.
func (h *home) write(thread map[string]any, settled bool) {
	h.t.Helper()
	data, err := json.MarshalIndent(thread, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	path := filepath.Join(h.threads, threadID+".json")
	if err := os.WriteFile(path+".amptmp", data, 0o600); err != nil {
		h.t.Fatal(err)
	}
	if settled {
		past := time.Now().Add(-time.Hour)
		if err := os.Chtimes(path+".amptmp", past, past); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := os.Rename(path+".amptmp", path); err != nil {
		h.t.Fatal(err)
	}
}

// importAll imports the threads folder; it returns the file's stats.
func (h *home) importAll() importer.FileStats {
	h.t.Helper()
	im := importer.New(h.ws, amp.Source{})
	im.Warn = func(err error) { h.t.Errorf("warning: %v", err) }
	st, err := im.Import(context.Background(), []string{h.threads})
	if err != nil {
		h.t.Fatal(err)
	}
	if len(st) != 1 {
		h.t.Fatalf("stats %+v, want one file's", st)
	}
	return st[0]
}

// entries are the thread's tape's entries: id, kind and payload.
func (h *home) entries() []string {
	h.t.Helper()
	tape, err := h.ws.Tape("amp-1b7d5a42")
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for e, err := range tape.All(context.Background()) {
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, e.ID+" "+e.Kind+" "+string(e.Payload))
	}
	return out
}

func thread(title string, messages ...map[string]any) map[string]any {
	list := make([]any, len(messages))
	for i, m := range messages {
		list[i] = m
	}
	return map[string]any{"v": len(messages), "id": threadID, "created": 1773475199000, "messages": list, "title": title}
}

func user(id int, text string, sentAt int64) map[string]any {
	return map[string]any{"role": "user", "messageId": id, "content": []any{map[string]any{"type": "text", "text": text}}, "meta": map[string]any{"sentAt": sentAt}}
}

func answer(id int, text, state string, blocks ...any) map[string]any {
	content := append([]any{map[string]any{"type": "text", "text": text}}, blocks...)
	m := map[string]any{"role": "assistant", "messageId": id, "content": content, "state": map[string]any{"type": state}}
	if state != "streaming" {
		m["usage"] = map[string]any{"model": "claude-opus-4-6", "inputTokens": 5, "outputTokens": 9, "timestamp": "2026-03-14T08:00:0" + string(rune('0'+id)) + ".000Z"}
	}
	return m
}

func result(id int, status string) map[string]any {
	return map[string]any{"role": "user", "messageId": id, "content": []any{
		map[string]any{"type": "tool_result", "toolUseID": "toolu_1", "run": map[string]any{"status": status, "result": "ok: " + status}}}}
}

var call = map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"cmd": "go test"}, "complete": true}

// Amp writes a thread whole again at every change, to a new file renamed
// over the old: each import of a new version reads it from its start, and
// writes only what the tape does not hold. A tool still running is an
// event, and its result, once the run ends, is the call's result.
func TestRewrittenThreadAddsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	u0 := user(0, "run the tests", 1773475200000)
	a1 := answer(1, "running them", "complete", call)
	h.write(thread("tests", u0, a1, result(2, "in-progress")), true)
	if st := h.importAll(); st.Imported != 7 { // anchor, message, text, calls, run, tool_run, title
		t.Fatalf("first import: %+v\n%s", st, strings.Join(h.entries(), "\n"))
	}
	h.write(thread("tests pass", u0, a1, result(2, "done"), answer(3, "all pass", "complete")), true)
	st := h.importAll()
	if st.Imported != 4 { // the result, the text, its run, the new title
		t.Errorf("second import: %+v, want 4 new entries\n%s", st, strings.Join(h.entries(), "\n"))
	}
	if st := h.importAll(); !st.Unchanged || st.Imported != 0 {
		t.Errorf("third import: %+v, want nothing", st)
	}
	all := strings.Join(h.entries(), "\n")
	for _, want := range []string{threadID + "/1/calls tool_call", threadID + "/2/run/toolu_1/in-progress event",
		threadID + `/2/result/toolu_1 tool_result {"results":[{"tool_call_id":"toolu_1","content":"ok: done"}]}`, `"title":"tests pass"`} {
		if strings.Count(all, want) != 1 {
			t.Errorf("%s is on the tape %d times, want once:\n%s", want, strings.Count(all, want), all)
		}
	}
}

// A thread whose last answer Amp is still streaming is held, not
// imported: the answer's entries would take the ids of the finished one.
// Once it is finished, the thread is imported whole.
func TestStreamingAnswerIsHeld(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	u0 := user(0, "explain the parser", 1773475200000)
	h.write(thread("parser", u0, answer(1, "The parser rea", "streaming")), false)
	if st := h.importAll(); st.Imported != 0 || st.Held == 0 {
		t.Fatalf("a streaming thread: %+v, want it held", st)
	}
	h.write(thread("parser", u0, answer(1, "The parser reads tokens.", "complete")), true)
	if st := h.importAll(); st.Imported != 5 { // anchor, message, text, run, title
		t.Errorf("the finished thread: %+v\n%s", st, strings.Join(h.entries(), "\n"))
	}
	all := strings.Join(h.entries(), "\n")
	if strings.Contains(all, "The parser rea\"") || strings.Contains(all, "amp/streaming") {
		t.Errorf("the streamed part is on the tape:\n%s", all)
	}
}

// An answer still streaming in a file that has been quiet (Amp stopped
// mid-answer) is imported as it stands, as an event: its entries are not
// those the finished answer would make, should Amp finish it.
func TestQuietStreamingAnswerIsAnEvent(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.write(thread("parser", user(0, "explain the parser", 1773475200000), answer(1, "The parser rea", "streaming")), true)
	h.importAll()
	all := strings.Join(h.entries(), "\n")
	if !strings.Contains(all, threadID+`/1/streaming event {"data":{"content":[{"text":"The parser rea"`) {
		t.Errorf("no amp/streaming event of the answer:\n%s", all)
	}
}

// Editing a message (or a rewind) makes Amp drop it and the messages
// after it, and number the new ones on: what the tape holds stays, and
// the new messages follow it.
func TestTruncatedThreadKeepsWhatWasImported(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	u0 := user(0, "first question", 1773475200000)
	h.write(thread("q", u0, answer(1, "first answer", "complete")), true)
	h.importAll()
	h.write(thread("q", user(2, "edited question", 1773475300000), answer(3, "second answer", "complete")), true)
	h.importAll()
	all := strings.Join(h.entries(), "\n")
	for _, want := range []string{"first question", "first answer", "edited question", "second answer"} {
		if strings.Count(all, want) != 1 {
			t.Errorf("%q is on the tape %d times, want once:\n%s", want, strings.Count(all, want), all)
		}
	}
}
