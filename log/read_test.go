package log

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The order rule of the package doc, on hand-written folders.
func TestReadOrder(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/t/anchors/001_start/messages.jsonl": strings.Join([]string{
			`{"id":"m1","kind":"message","payload":{},"date":"2026-01-01T00:00:01Z"}`,
			`{"id":"m2","kind":"message","payload":{}}`, // no date: takes 00:00:01
			`{"id":"m3","kind":"message","payload":{},"date":"2026-01-01T00:00:05Z"}`,
			`{"id":"m4","kind":"message","payload":{},"date":"2026-01-01T00:00:02Z"}`, // clock went back: sorts at 00:00:05
		}, "\n") + "\n",
		"tapes/t/anchors/001_start/tool_calls.jsonl": strings.Join([]string{
			`{"id":"c1","kind":"tool_call","payload":{},"date":"2026-01-01T00:00:01Z"}`, // ties m1: file name decides
			`{"id":"c2","kind":"tool_call","payload":{},"date":"2026-01-01T00:00:03Z"}`,
			`{"id":"c3","kind":"tool_call","payload":{},"date":"2026-01-01T00:00:06Z"}`,
		}, "\n") + "\n",
		"tapes/t/anchors/001_start/undated.jsonl": `{"id":"u1","kind":"note","payload":{}}` + "\n",
		"tapes/t/anchors/1000_late/events.jsonl":  `{"id":"late","kind":"event","payload":{},"date":"2020-01-01T00:00:00Z"}` + "\n",
		"tapes/t/anchors/999_before/events.jsonl": `{"id":"before","kind":"event","payload":{}}` + "\n",
	})
	got, bad := readAll(t, mustTape(t, ws, "t"))
	if len(bad) > 0 {
		t.Fatalf("bad lines: %v", bad)
	}
	want := []string{"001_start", "u1", "m1", "m2", "c1", "c2", "m3", "m4", "c3", "999_before", "before", "1000_late", "late"}
	if !slices.Equal(ids(got), want) {
		t.Errorf("order = %v\nwant    %v", ids(got), want)
	}
}

func TestReadHandMadeWorkspace(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/x/anchors/001_start/messages.jsonl": `{"role":"user","content":"hi"}` + "\n" + `{"role":"assistant","content":"hello"}` + "\n",
		"tapes/x/anchors/003_review/notes.jsonl":   `{"kind":"event","payload":{"name":"n"}}` + "\n",
		"tapes/x/anchors/002_bad/anchor.json":      `{"kind":"anchor","payload":{"state":{}}}`,
		"tapes/x/anchors/004_event/anchor.json":    `{"kind":"event","payload":{"name":"not an anchor"}}`,
		"tapes/x/anchors/notes.txt":                "not an anchor",
		"tapes/x/anchors/review/x.jsonl":           `{"kind":"event","payload":{}}` + "\n",
		"tapes/x/anchors/.tmp-123/anchor.json":     `{}`,
		"tapes/x/anchors/001_start/.tmp-9.jsonl":   `{"kind":"event","payload":{}}` + "\n",
		"tapes/x/anchors/001_start/readme.md":      "# not read",
	})
	if !reflect.DeepEqual(ws.Config(), DefaultConfig()) {
		t.Errorf("config without config.json = %+v, want the defaults", ws.Config())
	}
	tp := mustTape(t, ws, "x")
	anchors, err := tp.Anchors()
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	for _, a := range anchors {
		folders = append(folders, a.Folder+"="+a.Name)
	}
	if !slices.Equal(folders, []string{"001_start=start", "002_bad=bad", "003_review=review", "004_event=event"}) {
		t.Errorf("anchors = %v", folders)
	}
	if anchors[1].Err == nil || anchors[1].Err.Line != 1 {
		t.Errorf("002_bad/anchor.json without a name: Err = %v, want a LineError at line 1", anchors[1].Err)
	}
	got, bad := readAll(t, tp)
	want := []string{"001_start", "001_start/messages.jsonl:1", "001_start/messages.jsonl:2", "002_bad", "003_review", "003_review/notes.jsonl:1", "004_event"}
	if !slices.Equal(ids(got), want) {
		t.Errorf("ids = %v\nwant  %v", ids(got), want)
	}
	if len(bad) != 2 || !strings.Contains(bad[1].Reason, `want kind "anchor"`) {
		t.Errorf("bad = %v, want the two bad anchor.json files", bad)
	}
	if got[6].Kind != KindAnchor {
		t.Errorf("the anchor entry of a folder whose anchor.json is an event has kind %q", got[6].Kind)
	}
	if got[1].Kind != KindMessage || got[4].Pos.Line != 0 {
		t.Errorf("bare message kind %q, synthesized anchor line %d", got[1].Kind, got[4].Pos.Line)
	}
}

func TestBadLinesDoNotHideGoodOnes(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/t/anchors/001_a/events.jsonl": strings.Join([]string{
			`{"kind":"event","payload":{"n":1}}`,
			`not json`,
			"{\"kind\":\"event\",\"payload\":{\"t\":\"\xff\"}}",
			"{\"kind\":\"event\",\"payload\":{\"t\":\"a\x00\"}}",
			`{"kind":"event","payload":{"n":2}}{"kind":"event","pay`,
			`{"kind":"event","payload":{"n":3}}`,
			`{"kind":"event","payload":{"n":4`, // torn tail: in progress
		}, "\n"),
	})
	got, bad := readAll(t, mustTape(t, ws, "t"))
	var payloads []string
	for _, e := range got[1:] {
		payloads = append(payloads, string(e.Payload))
	}
	if !slices.Equal(payloads, []string{`{"n":1}`, `{"n":3}`}) {
		t.Errorf("payloads = %v", payloads)
	}
	var lines []int
	for _, b := range bad {
		lines = append(lines, b.Line)
		if b.Path != "tapes/t/anchors/001_a/events.jsonl" || b.Offset <= 0 || b.Reason == "" {
			t.Errorf("bad line error %+v lacks its file, offset or reason", b)
		}
	}
	if !slices.Equal(lines, []int{2, 3, 4, 5}) {
		t.Errorf("bad lines = %v, want 2, 3, 4, 5", lines)
	}
	if msg := bad[0].Error(); !strings.Contains(msg, "events.jsonl:2:") {
		t.Errorf("error message %q does not name file:line", msg)
	}
}

func TestFindAnchor(t *testing.T) {
	anchors := []Anchor{
		{Seq: 1, Folder: "001_session-start", Name: "session/start"},
		{Seq: 2, Folder: "002_review", Name: "review"},
		{Seq: 3, Folder: "003_review", Name: "review"},
		{Seq: 10, Folder: "010_7", Name: "7"},
	}
	for _, tt := range []struct {
		sel  string
		want int
	}{
		{"001_session-start", 0}, {"session/start", 0}, {"session-start", 0}, {"1", 0},
		{"review", 2}, {"002_review", 1}, {"2", 1}, {"10", 3}, {"7", 3}, {"nope", -1},
	} {
		got, err := FindAnchor(anchors, tt.sel)
		if got != tt.want || (tt.want < 0) != errors.Is(err, ErrNoAnchor) {
			t.Errorf("FindAnchor(%q) = %d, %v; want %d", tt.sel, got, err, tt.want)
		}
	}
}

// MatchAnchors gives every anchor of the first rule that matches: a name
// several anchors share names them all, a folder or seq one.
func TestMatchAnchors(t *testing.T) {
	anchors := []Anchor{
		{Seq: 1, Folder: "001_session-start", Name: "session/start"},
		{Seq: 2, Folder: "002_review", Name: "review"},
		{Seq: 3, Folder: "003_review", Name: "review"},
		{Seq: 10, Folder: "010_7", Name: "7"},
		{Seq: 11, Folder: "011_review-2", Name: "2"},
	}
	for _, tt := range []struct {
		sel    string
		want   []int
		unique bool
	}{
		{"review", []int{1, 2}, false}, {"002_review", []int{1}, true}, {"2", []int{1}, true}, // the seq before the name "2"
		{"7", []int{3}, false}, {"session-start", []int{0}, false}, {"review-2", []int{4}, false}, {"nope", nil, false},
	} {
		got, unique := MatchAnchors(anchors, tt.sel)
		if !slices.Equal(got, tt.want) || unique != tt.unique {
			t.Errorf("MatchAnchors(%q) = %v, %v; want %v, %v", tt.sel, got, unique, tt.want, tt.unique)
		}
	}
}

// Symlinks that lead out of the workspace are not followed, for reading or
// for writing.
func TestSymlinksDoNotEscape(t *testing.T) {
	outside := t.TempDir()
	writeTestFile(t, filepath.Join(outside, "secret.jsonl"), `{"kind":"event","payload":{"secret":1}}`+"\n")
	writeTestFile(t, filepath.Join(outside, "folder/events.jsonl"), `{"kind":"event","payload":{"secret":2}}`+"\n")
	ws := openHandMade(t, map[string]string{
		"tapes/t/anchors/001_a/events.jsonl": `{"kind":"event","payload":{"ok":1}}` + "\n",
	})
	anchors := filepath.Join(ws.Dir(), "tapes/t/anchors")
	if err := os.Symlink(filepath.Join(outside, "secret.jsonl"), filepath.Join(anchors, "001_a/leak.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "folder"), filepath.Join(anchors, "002_out")); err != nil {
		t.Fatal(err)
	}
	tp := mustTape(t, ws, "t")
	got, bad := readAll(t, tp)
	for _, e := range got {
		if strings.Contains(string(e.Payload), "secret") {
			t.Errorf("read %s through a symlink out of the workspace", e.Payload)
		}
	}
	if len(bad) != 1 || !strings.Contains(bad[0].Path, "leak.jsonl") {
		t.Errorf("bad = %v, want the escaping symlink reported", bad)
	}
	// The symlinked folder is not an anchor, so appends cannot go through it.
	if _, err := tp.Append(context.Background(), msg("x")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(outside, "folder/events.jsonl"))
	if strings.Count(string(data), "\n") != 1 {
		t.Errorf("append wrote outside the workspace: %q", data)
	}
}

func TestWorkspaceFindAndInit(t *testing.T) {
	dir := t.TempDir()
	if _, err := Find(dir); !errors.Is(err, ErrNoWorkspace) {
		t.Fatalf("Find in an empty folder = %v, want ErrNoWorkspace", err)
	}
	ws, created, err := Init(dir)
	if err != nil || !created {
		t.Fatalf("Init = %v, created %v", err, created)
	}
	ws.Close()
	if _, created, err = Init(dir); err != nil || created {
		t.Fatalf("second Init = %v, created %v; want nothing created", err, created)
	}
	deep := filepath.Join(dir, "a/b/c")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	found, err := Find(deep)
	if err != nil {
		t.Fatal(err)
	}
	defer found.Close()
	if found.Dir() != filepath.Join(dir, DirName) {
		t.Errorf("Find from %s = %s", deep, found.Dir())
	}
	tapes, err := found.Tapes()
	if err != nil || !slices.Equal(tapes, []string{"main"}) {
		t.Errorf("Tapes = %v, %v; want [main]", tapes, err)
	}
}

// Create makes a workspace without a tape (an import's), and an Init
// after it adds the default tape.
func TestWorkspaceCreateHasNoTape(t *testing.T) {
	dir := t.TempDir()
	ws, created, err := Create(dir)
	if err != nil || !created {
		t.Fatalf("Create = %v, created %v", err, created)
	}
	tapes, err := ws.Tapes()
	ws.Close()
	if err != nil || len(tapes) != 0 {
		t.Fatalf("Tapes after Create = %v, %v; want none", tapes, err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirName, "config.json")); err != nil {
		t.Errorf("Create wrote no config.json: %v", err)
	}
	if ws, created, err = Create(dir); err != nil || created {
		t.Fatalf("second Create = %v, created %v; want nothing created", err, created)
	}
	ws.Close()
	ws, created, err = Init(dir)
	if err != nil || !created {
		t.Fatalf("Init after Create = %v, created %v; want the default tape made", err, created)
	}
	defer ws.Close()
	if tapes, err := ws.Tapes(); err != nil || !slices.Equal(tapes, []string{"main"}) {
		t.Errorf("Tapes after Init = %v, %v; want [main]", tapes, err)
	}
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		want         Config
		wantErr      string
	}{
		{"partial", `{"sync":"always"}`, Config{Version: 1, DefaultTape: "main", Sync: SyncAlways, MaxEntryBytes: DefaultMaxEntryBytes, Watch: WatchAuto}, ""},
		{"limit", `{"max_entry_bytes":1024,"default_tape":"work"}`, Config{Version: 1, DefaultTape: "work", Sync: SyncNone, MaxEntryBytes: 1024, Watch: WatchAuto}, ""},
		{"watch off", `{"watch":"off"}`, Config{Version: 1, DefaultTape: "main", Sync: SyncNone, MaxEntryBytes: DefaultMaxEntryBytes, Watch: WatchOff}, ""},
		{"bad watch", `{"watch":"on"}`, Config{}, `watch is "on"`},
		{"bad sync", `{"sync":"sometimes"}`, Config{}, `sync is "sometimes"`},
		{"bad json", `{"sync":`, Config{}, "config.json"},
		{"bad tape", `{"default_tape":"../x"}`, Config{}, "default_tape"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), DirName)
			writeTestFile(t, filepath.Join(dir, "config.json"), tt.config)
			ws, err := Open(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if !reflect.DeepEqual(ws.Config(), tt.want) {
				t.Errorf("config = %+v, want %+v", ws.Config(), tt.want)
			}
		})
	}
}

func TestRange(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	for _, step := range []string{"a", "b", "c"} {
		if _, err := tp.Handoff(ctx, step, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tp.Append(ctx, msg("in "+step)); err != nil {
			t.Fatal(err)
		}
	}
	anchorsOf := func(from, to string) ([]string, error) {
		var names []string
		for e, err := range tp.Range(ctx, from, to) {
			if err != nil {
				return nil, err
			}
			if e.Kind == KindAnchor {
				names = append(names, e.Pos.Anchor)
			}
		}
		return names, nil
	}
	for _, tt := range []struct {
		from, to string
		want     []string
	}{
		{"", "", []string{BootstrapName, "a", "b", "c"}},
		{"b", "", []string{"b", "c"}},
		{"", "a", []string{BootstrapName, "a"}},
		{"a", "b", []string{"a", "b"}},
		{"c", "c", []string{"c"}},
	} {
		got, err := anchorsOf(tt.from, tt.to)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Range(%q, %q) anchors = %v, %v; want %v", tt.from, tt.to, got, err, tt.want)
		}
	}
	if _, err := anchorsOf("c", "a"); err == nil {
		t.Error("Range(c, a) succeeded; want an error for a reversed range")
	}
	if _, err := anchorsOf("zzz", ""); !errors.Is(err, ErrNoAnchor) {
		t.Errorf("Range(zzz) error = %v, want ErrNoAnchor", err)
	}
}

func TestTapeSyncFromConfig(t *testing.T) {
	ws := openHandMade(t, map[string]string{"config.json": `{"sync":"always"}`})
	if tp := mustTape(t, ws, "main"); tp.Sync != SyncAlways {
		t.Errorf("tape Sync = %q with sync always in config.json", tp.Sync)
	}
}

// A FIFO named like a tape file neither blocks a reader nor swallows an
// append.
func TestFIFOIsNotATapeFile(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	dir := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	for _, name := range []string{"notes.jsonl", MessagesFile} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, _ := readAll(t, tp)
		if len(got) != 1 {
			t.Errorf("read %d entries, want the anchor only", len(got))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading a folder with a FIFO blocked")
	}
	if _, err := tp.Append(context.Background(), msg("lost?")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("append into a FIFO named messages.jsonl = %v, want ErrNotRegular", err)
	}
}
