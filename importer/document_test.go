package importer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/cline"
	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/testkit/poll"
)

// A transcript that is one JSON document without a newline at its end,
// written over at every change (Cline's, decision 0094): a
// source.LastLineReader is given that line. A document caught mid-write
// waits; once whole it is imported; written over with more, only what is
// new is added, whether the agent renamed a new file into place or wrote
// the old one over; written over with less (a checkpoint restored), nothing
// is lost or added twice.
func TestDocumentWrittenOverImportsWhatIsNew(t *testing.T) {
	t.Parallel()
	const rel = "tasks/1768004321987/api_conversation_history.json"
	// A message's ts is when the agent added it: one that replaces another
	// is added later.
	ts := map[string]int{"修复 the test": 0, "on it": 1, "done?": 2, "no: this": 3}
	msg := func(i int, text string) string {
		return `{"role":"` + []string{"user", "assistant"}[i%2] + `","content":"` + text + `","ts":` + strconv.Itoa(1768004321987+ts[text]) + `}`
	}
	doc := func(texts ...string) []byte {
		var items []string
		for i, t := range texts {
			items = append(items, msg(i, t))
		}
		return []byte("[" + strings.Join(items, ",") + "]")
	}
	b := newBench(t)
	whole := doc("修复 the test", "on it")
	path := b.write(rel, whole[:len(whole)-9]) // caught mid-write
	if st := b.importAt(cline.Source{}, fresh); st[0].Imported != 0 || st[0].Held != 1 {
		t.Fatalf("a document caught mid-write: %+v", st[0])
	}
	b.write(rel, whole)
	if st := b.importAt(cline.Source{}, fresh); st[0].Imported != 3 || st[0].Held != 0 || st[0].Skipped != 0 {
		t.Fatalf("the document, whole: %+v", st[0]) // the anchor and two messages
	}
	if st := b.importAt(cline.Source{}, fresh); !st[0].Unchanged {
		t.Fatalf("the same document again: %+v", st[0])
	}
	// Renamed into place, with one more message.
	tmp := path + ".tmp.1"
	if err := os.WriteFile(tmp, doc("修复 the test", "on it", "done?"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if st := b.importAt(cline.Source{}, fresh); st[0].Imported != 1 {
		t.Fatalf("the document renamed into place with one more message: %+v", st[0])
	}
	// Written over in place, with the last message gone and another.
	b.write(rel, doc("修复 the test", "on it", "no: this"))
	if st := b.importAt(cline.Source{}, fresh); st[0].Imported != 1 {
		t.Fatalf("the document written over with another last message: %+v", st[0])
	}
	b.write(rel, doc("修复 the test"))
	if st := b.importAt(cline.Source{}, fresh); st[0].Imported != 0 {
		t.Fatalf("the document written over shorter: %+v", st[0])
	}
	tapes := b.tapes()
	for _, text := range []string{"修复 the test", "on it", "done?", "no: this"} {
		if n := strings.Count(tapes, `"content":"`+text+`"`); n != 1 {
			t.Errorf("%q is on the tape %d times:\n%s", text, n, tapes)
		}
	}
	if len(b.bad) != 0 {
		t.Errorf("warnings %v", b.bad)
	}
}

// The last line without a newline is read for a LastLineReader alone: it
// is still being written in any other transcript.
func TestLastLineIsReadOnlyForALastLineReader(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	b.write("rollout-2025-10-29T00-59-38-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl",
		[]byte(`{"timestamp":"2025-10-29T00:59:38Z","type":"session_meta","payload":{"id":"019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"}}`))
	if st := b.importAt(codex.Source{}, quiet); st[0].Imported != 0 || st[0].Lines != 0 {
		t.Errorf("codex's last line without its newline was read: %+v", st[0])
	}
}

// A FileRanker's files of a folder are read in its order, then by name;
// any other source's by name. So a Roo Code subtask's tape starts with
// history_item.json's anchor, which names its parent, though
// api_conversation_history.json sorts first by name.
func TestFilesOfAFolderInTheirSourcesOrder(t *testing.T) {
	t.Parallel()
	paths := []string{"/t/b/ui_messages.json", "/t/a/ui_messages.json", "/t/a/history_item.json", "/t/a/api_conversation_history.json", "/t/a/task_metadata.json"}
	sortTranscripts(cline.Source{}, paths)
	want := []string{"/t/a/history_item.json", "/t/a/task_metadata.json", "/t/a/api_conversation_history.json", "/t/a/ui_messages.json", "/t/b/ui_messages.json"}
	if !slices.Equal(paths, want) {
		t.Errorf("cline's files in the order %v, want %v", paths, want)
	}
	sortTranscripts(codex.Source{}, paths)
	if !slices.IsSorted(paths) {
		t.Errorf("codex's files in the order %v, want by name", paths)
	}

	b := newBench(t)
	const task = "rooveterinaryinc.roo-cline/tasks/a3f9c21b-5d6e-4f70-8a9b-0c1d2e3f4a5b/"
	b.write(task+"api_conversation_history.json", []byte(`[{"role":"user","content":"<task>\nx\n</task>","ts":1772800005100}]`))
	b.write(task+"history_item.json", []byte(`{"id":"a3f9c21b-5d6e-4f70-8a9b-0c1d2e3f4a5b","parentTaskId":"7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5","task":"x","ts":1772800085100}`))
	b.importAt(cline.Source{}, quiet)
	anchor, err := os.ReadFile(filepath.Join(b.ws.Dir(), "tapes", "cline-a3f9c21b", "anchors", "001_session-start", "anchor.json"))
	if err != nil || !strings.Contains(string(anchor), `"parent_session":"7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5"`) {
		t.Errorf("the subtask's first anchor names no parent (%v):\n%s", err, anchor)
	}
}

// A followed task is mirrored as the agent writes it: a new task folder,
// and each file written over by a temporary file renamed into place (as
// Cline 3.40 and later, and Roo Code, write them), the file's new messages
// on the tape at each write, none twice; the temporary files are not read.
func TestFollowerMirrorsATaskWrittenOver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := newWorkspace(t, root)
	tasks := filepath.Join(root, "saoudrizwan.claude-dev", "tasks")
	if err := os.MkdirAll(tasks, 0o700); err != nil {
		t.Fatal(err)
	}
	f := &Follower{WS: ws, Dirs: map[source.Source][]string{cline.Source{}: {tasks}}, Reconcile: time.Hour, Settle: 300 * time.Millisecond,
		Warn: func(err error) { t.Errorf("follower: %v", err) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	task := filepath.Join(tasks, "1771234567890")
	if err := os.Mkdir(task, 0o700); err != nil {
		t.Fatal(err)
	}
	var items []string
	write := func(text string) {
		items = append(items, `{"role":"user","content":"`+text+`","ts":`+strconv.Itoa(1771234567890+len(items))+`}`)
		path := filepath.Join(task, "api_conversation_history.json")
		tmp := path + ".tmp." + strconv.Itoa(len(items))
		if err := os.WriteFile(tmp, []byte("["+strings.Join(items, ",")+"]"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	messages := ws.Abs("tapes/cline-34567890/anchors/001_session-start/messages.jsonl")
	has := func(texts ...string) func() bool {
		return func() bool {
			data, _ := os.ReadFile(messages)
			for _, text := range texts {
				if strings.Count(string(data), `"content":"`+text+`"`) != 1 {
					return false
				}
			}
			return true
		}
	}
	write("修复 the test")
	poll.Until(t, 10*time.Second, "the task's first message", has("修复 the test"))
	write("and the docs")
	poll.Until(t, 10*time.Second, "its second, each once", has("修复 the test", "and the docs"))
}
