package log

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

func msg(content string) Entry {
	p, _ := json.Marshal(map[string]string{"role": "user", "content": content})
	return Entry{Kind: KindMessage, Payload: p}
}

func TestAppendAndReadBack(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	in := []Entry{
		{Kind: KindMessage, Payload: json.RawMessage(`{"role": "user", "content": "hi <b> & 你好"}`)},
		{Kind: KindToolCall, Payload: json.RawMessage(`{"calls":[{"id":"c1","function":{"name":"bash","arguments":"{}"}}]}`)},
		{Kind: KindToolResult, Payload: json.RawMessage("{\n  \"results\": [\"ok\"]\n}"), Meta: json.RawMessage(`{"ms":3}`)},
		{Kind: KindEvent, Payload: json.RawMessage(`{"name":"run","data":{}}`)},
		{Kind: "custom_kind", Payload: json.RawMessage(`{}`)},
	}
	var written []Entry
	for _, e := range in {
		out, err := tp.Append(ctx, e)
		if err != nil {
			t.Fatalf("Append(%s): %v", e.Kind, err)
		}
		written = append(written, out...)
	}
	got, bad := readAll(t, tp)
	if len(bad) > 0 {
		t.Fatalf("bad lines: %v", bad)
	}
	// The bootstrap anchor, then the entries in the order they were written,
	// though they sit in three files.
	if len(got) != len(in)+1 || got[0].Kind != KindAnchor || got[0].Pos.Anchor != BootstrapName {
		t.Fatalf("read %d entries starting with %+v; want the bootstrap anchor and %d entries", len(got), got[0], len(in))
	}
	if !slices.Equal(ids(got[1:]), ids(written)) {
		t.Errorf("read order %v, want write order %v", ids(got[1:]), ids(written))
	}
	wantFiles := []string{MessagesFile, ToolCallsFile, ToolCallsFile, EventsFile, EventsFile}
	for i, e := range got[1:] {
		if e.Pos.File != wantFiles[i] {
			t.Errorf("entry %d (%s) in %s, want %s", i, e.Kind, e.Pos.File, wantFiles[i])
		}
	}
	if string(got[1].Payload) != `{"role":"user","content":"hi <b> & 你好"}` {
		t.Errorf("payload written as %s; want HTML and non-ASCII kept as given", got[1].Payload)
	}
	if string(got[3].Payload) != `{"results":["ok"]}` || string(got[3].Meta) != `{"ms":3}` {
		t.Errorf("multi-line payload read back as %s (meta %s), want it compacted onto one line", got[3].Payload, got[3].Meta)
	}
	if string(got[1].Meta) != "{}" {
		t.Errorf("default meta = %s, want {}", got[1].Meta)
	}
	for i := 2; i < len(got); i++ {
		if got[i].ID <= got[i-1].ID || got[i].Date <= got[i-1].Date {
			t.Errorf("entry %d id/date %s/%s not after %s/%s; ids and dates must increase within a process",
				i, got[i].ID, got[i].Date, got[i-1].ID, got[i-1].Date)
		}
	}
}

func TestAppendPermissions(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "secret")
	if _, err := tp.Append(context.Background(), msg("token=abc")); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(ws.Dir(), func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(filePerm)
		if fi.IsDir() {
			want = dirPerm
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefusesAndWritesNothing(t *testing.T) {
	ws := newTestWorkspace(t)
	ws.config.MaxEntryBytes = 1000
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	tests := []struct {
		name string
		e    Entry
		is   error
	}{
		{"array payload", Entry{Kind: KindEvent, Payload: json.RawMessage(`[1]`)}, ErrInvalid},
		{"string payload", Entry{Kind: KindEvent, Payload: json.RawMessage(`"x"`)}, ErrInvalid},
		{"invalid json", Entry{Kind: KindEvent, Payload: json.RawMessage(`{"a":`)}, ErrInvalid},
		{"invalid utf8", Entry{Kind: KindEvent, Payload: json.RawMessage("{\"a\":\"\xff\"}")}, ErrInvalid},
		{"missing payload", Entry{Kind: KindEvent}, ErrInvalid},
		{"missing kind", Entry{Payload: json.RawMessage(`{}`)}, ErrInvalid},
		{"anchor kind", Entry{Kind: KindAnchor, Payload: json.RawMessage(`{"name":"x"}`)}, ErrInvalid},
		{"meta not object", Entry{Kind: KindEvent, Payload: json.RawMessage(`{}`), Meta: json.RawMessage(`1`)}, ErrInvalid},
		{"bad date", Entry{Kind: KindEvent, Payload: json.RawMessage(`{}`), Date: "soon"}, ErrInvalid},
		{"too large", Entry{Kind: KindEvent, Payload: json.RawMessage(`{"a":"` + strings.Repeat("x", 1000) + `"}`)}, ErrTooLarge},
	}
	before := snapshot(t, ws.Dir())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tp.Append(ctx, tt.e)
			if !errors.Is(err, tt.is) {
				t.Fatalf("Append error = %v, want %v", err, tt.is)
			}
		})
	}
	// A batch with one bad entry writes none of them.
	_, err := tp.Append(ctx, msg("ok"), Entry{Kind: KindEvent, Payload: json.RawMessage(`[]`)}, msg("ok too"))
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Index != 1 {
		t.Fatalf("batch Append error = %v, want an EntryError at index 1", err)
	}
	if after := snapshot(t, ws.Dir()); after != before {
		t.Errorf("refused appends changed the workspace:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshot lists every file under dir with its content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		b.WriteString(path + "=" + string(data) + ";")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A writer that died mid-line leaves a torn tail, as a SIGKILL in the middle
// of a write of many pages does (tornWriter): the next append ends it with
// TornMark, readers skip it without reporting it, and the lines after it
// are whole. A whole line left without its newline is read.
func TestAppendAfterTornTail(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, tail string
		want       []string // the contents read, in order
	}{
		{"torn write", `{"role":"user","content":"torn`, []string{"before", "after"}},
		{"cut in a character", "{\"kind\":\"message\",\"payload\":{\"content\":\"\xe4\xbd", []string{"before", "after"}},
		{"cut before its newline", `{"role":"user","content":"whole"}`, []string{"before", "whole", "after"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newTestWorkspace(t)
			tp := mustTape(t, ws, "main")
			if _, err := tp.Append(ctx, msg("before")); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start", MessagesFile)
			tornWriter(t, file, tt.tail)

			// While torn, the tail is in progress: neither an entry nor an error.
			got, bad := readAll(t, tp)
			if len(got) != 2 || len(bad) != 0 {
				t.Fatalf("with a torn tail: %d entries, bad %v; want 2 entries and no bad line", len(got), bad)
			}
			if _, err := tp.Append(ctx, msg("after")); err != nil {
				t.Fatal(err)
			}
			got, bad = readAll(t, tp)
			if contents := contentsOf(got[1:]); !slices.Equal(contents, tt.want) || len(bad) != 0 {
				t.Errorf("contents = %q, bad lines %v; want %q and no bad line", contents, bad, tt.want)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			if len(lines) != 4 || lines[1] != tt.tail+TornMark {
				t.Errorf("file lines %q; want the tail kept and ended with %s", lines, TornMark)
			}
		})
	}
}

// tornWriter appends the start of a line, without its newline, to file, as
// a writer killed in the middle of its write leaves it (etcd's WAL tests
// tear their files the same way).
func tornWriter(t *testing.T, file, partial string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(partial); err != nil {
		t.Fatal(err)
	}
}

// contentsOf is the content of each message entry.
func contentsOf(entries []Entry) []string {
	var contents []string
	for _, e := range entries {
		var m struct{ Content string }
		_ = json.Unmarshal(e.Payload, &m)
		contents = append(contents, m.Content)
	}
	return contents
}

// shortFile is a file whose writes stop after limit bytes in all, as on a
// full disk; grow is what a writer without the lock appends when the write
// falls short.
type shortFile struct {
	*os.File
	limit int
	grow  string
}

func (f *shortFile) Write(p []byte) (int, error) {
	n := min(len(p), f.limit)
	f.limit -= n
	if _, err := f.File.Write(p[:n]); err != nil {
		return 0, err
	}
	if n < len(p) {
		if f.grow != "" {
			if _, err := f.File.WriteString(f.grow); err != nil {
				return n, err
			}
		}
		return n, syscall.ENOSPC
	}
	return n, nil
}

// An append whose write falls short takes back the part of its line it
// wrote, holding the lock, so that it leaves no torn line; unless the file
// grew otherwise meanwhile, which the next append ends. The same holds for
// the TornMark it writes after another's torn line.
func TestAppendTakesBackAShortWrite(t *testing.T) {
	line := []byte(`{"kind":"event","payload":{"pad":"xxxxxxxxxxxxxxxxxxxx"}}` + "\n")
	for _, tt := range []struct {
		name, before string
		limit        int
		grow         string
		want         string // the file after the append
		wantErr      string
		lines        int // how many lines the write holds; 1 when 0
	}{
		{"short line", "{}\n", 10, "", "{}\n", "taken back", 0},
		{"nothing written", "{}\n", 0, "", "{}\n", "no space", 0},
		{"grew meanwhile", "{}\n", 10, "other", "{}\n" + string(line[:10]) + "other", "not taken back", 0},
		{"short mark", "{}\n{\"torn", 3, "", "{}\n{\"torn", "taken back", 0},
		{"short line after the mark", "{}\n{\"torn", len(TornMark) + 1 + 5, "", "{}\n{\"torn" + TornMark + "\n", "taken back", 0},
		// Of a write of several lines, the whole ones stay: a reader may
		// have read them.
		{"second line short", "{}\n", len(line) + 10, "", "{}\n" + string(line), "taken back", 3},
		{"second line short, grew meanwhile", "{}\n", len(line) + 10, "x", "{}\n" + string(line) + string(line[:10]) + "x", "not taken back", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sf := &shortFile{File: f, limit: tt.limit, grow: tt.grow}
			at, err := endLine(sf)
			if err == nil {
				err = writeOwn(sf, at, bytes.Repeat(line, max(tt.lines, 1)))
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("append error = %v; want ENOSPC, saying %q", err, tt.wantErr)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.want {
				t.Errorf("file after the short write = %q, want %q", data, tt.want)
			}
		})
	}
}

func TestAppendSync(t *testing.T) {
	ws := newTestWorkspace(t)
	var synced []string
	ws.onSync = func(rel string) { synced = append(synced, rel) }
	ctx := context.Background()

	// sync: none writes without fsync.
	if _, err := mustTape(t, ws, "main").Append(ctx, msg("fast")); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 0 {
		t.Errorf("sync none fsynced %v", synced)
	}
	// sync: always fsyncs the file, a new file's folder, and the parents of
	// a new tape's folders.
	tp := mustTape(t, ws, "fresh")
	tp.Sync = SyncAlways
	out, err := tp.Append(ctx, msg("durable"))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Pos.Folder != "001_session-start" || out[0].Pos.Offset != 0 {
		t.Errorf("position = %+v, want offset 0 in 001_session-start", out[0].Pos)
	}
	for _, want := range []string{"tapes", "tapes/fresh", "tapes/fresh/anchors",
		"tapes/fresh/anchors/001_session-start/messages.jsonl", "tapes/fresh/anchors/001_session-start"} {
		if !slices.Contains(synced, want) {
			t.Errorf("fsynced %v; %s is missing", synced, want)
		}
	}
}

// Appends from goroutines sharing one Tape, and from several Tape values,
// are all kept whole.
func TestAppendConcurrentGoroutines(t *testing.T) {
	ws := newTestWorkspace(t)
	ctx := context.Background()
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		tp := mustTape(t, ws, "main")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				big := strings.Repeat("x", (w*each+i)%9000) // across the 4 KiB pipe-buffer size
				if _, err := tp.Append(ctx, msg(big)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, bad := readAll(t, mustTape(t, ws, "main"))
	if len(got) != writers*each+1 || len(bad) != 0 {
		t.Errorf("read %d entries and %d bad lines, want %d and 0", len(got), len(bad), writers*each+1)
	}
}

func TestAppendGoesToNewAnchorAfterHandoff(t *testing.T) {
	ws := newTestWorkspace(t)
	writer := mustTape(t, ws, "main")
	other := mustTape(t, ws, "main") // another handle, as another process would have
	ctx := context.Background()
	if _, err := writer.Append(ctx, msg("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Handoff(ctx, "next", nil); err != nil {
		t.Fatal(err)
	}
	out, err := writer.Append(ctx, msg("two"))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Pos.Folder != "002_next" {
		t.Errorf("append after another handle's handoff went to %s, want 002_next", out[0].Pos.Folder)
	}
}

func TestAppendLineIsOneJSONLine(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	if _, err := tp.Append(context.Background(), Entry{Kind: KindEvent, Payload: json.RawMessage("{\"a\":\n\"b\\nc\"}")}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start", EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte("\n")) != 1 || !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("file = %q, want one line ending in a newline", data)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"id", "kind", "payload", "meta", "date"} {
		if _, ok := env[key]; !ok {
			t.Errorf("written line lacks %q: %s", key, data)
		}
	}
}

// On a file system with coarse timestamps, a handoff by another process can
// leave the anchors folder's mtime as it was when a writer cached it; the
// writer must still see the new folder.
func TestAppendSeesHandoffDespiteCoarseMtime(t *testing.T) {
	ws := newTestWorkspace(t)
	anchorsDir := filepath.Join(ws.Dir(), "tapes/main/anchors")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(anchorsDir, old, old); err != nil {
		t.Fatal(err)
	}
	writer := mustTape(t, ws, "main")
	ctx := context.Background()
	if _, err := writer.Append(ctx, msg("one")); err != nil { // caches 001 with the old mtime
		t.Fatal(err)
	}
	other, err := Open(ws.Dir()) // another process's view
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := mustTape(t, other, "main").Handoff(ctx, "next", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(anchorsDir, old, old); err != nil { // the clock did not tick
		t.Fatal(err)
	}
	out, err := writer.Append(ctx, msg("two"))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Pos.Folder != "002_next" {
		t.Errorf("append after another process's handoff went to %s, want 002_next", out[0].Pos.Folder)
	}
	// The same handle's own handoff is seen at once.
	if _, err := writer.Handoff(ctx, "third", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(anchorsDir, old, old); err != nil {
		t.Fatal(err)
	}
	if out, err = writer.Append(ctx, msg("three")); err != nil || out[0].Pos.Folder != "003_third" {
		t.Errorf("append after its own handoff went to %v (%v), want 003_third", out, err)
	}
}

// A writer that gives up while another holds the file's lock writes
// nothing, even after the lock is released.
func TestAppendGivesUpWaitingForLock(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	if _, err := tp.Append(context.Background(), msg("first")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start", MessagesFile)
	holder, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := fileutil.Lock(holder); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := tp.Append(ctx, msg("too late")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("append while the lock is held = %v, want a deadline error", err)
	}
	fileutil.Unlock(holder)
	got, _ := readAll(t, tp)
	if len(got) != 2 {
		t.Errorf("the tape has %d entries after a given-up append, want 2", len(got))
	}
}

// While syncs are deferred, making a tape and handing off fsync nothing;
// done syncs the file system once. Without, the same fsyncs its folders.
func TestDeferSyncs(t *testing.T) {
	ws := newTestWorkspace(t)
	var synced []string
	ws.onSync = func(rel string) { synced = append(synced, rel) }
	ctx := context.Background()
	done := ws.DeferSyncs()
	if _, err := mustTape(t, ws, "imported").HandoffRecorded(ctx, Entry{ID: "s1", Kind: KindAnchor, Payload: json.RawMessage(`{"name":"session/start"}`)}); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 0 {
		t.Errorf("deferred syncs fsynced %v", synced)
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if _, err := mustTape(t, ws, "made").HandoffRecorded(ctx, Entry{ID: "s2", Kind: KindAnchor, Payload: json.RawMessage(`{"name":"session/start"}`)}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(synced, "tapes/made/anchors") {
		t.Errorf("after done, a handoff fsynced %v; want its anchors folder", synced)
	}
	a, err := mustTape(t, ws, "imported").Anchors()
	if err != nil || len(a) != 1 || a[0].Entry.Date != "" || a[0].Entry.ID != "s1" {
		t.Errorf("the recorded anchor: %+v, %v; want s1 without a date", a, err)
	}
}

// AppendRecordedEach writes every entry the tape takes and hands the
// others to refused, with their index among the entries given.
func TestAppendRecordedEach(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	entries := []Entry{msg("one"), {Kind: KindEvent, Payload: json.RawMessage(`[1]`)}, msg("three"), {Kind: "", Payload: json.RawMessage(`{}`)}, msg("five")}
	var refused []int
	n, err := tp.AppendRecordedEach(context.Background(), entries, func(i int, err error) error {
		if !Refused(err) {
			t.Errorf("entry %d: %v is not a refusal", i, err)
		}
		refused = append(refused, i)
		return nil
	})
	if err != nil || n != 3 || !slices.Equal(refused, []int{1, 3}) {
		t.Fatalf("AppendRecordedEach = %d, %v, refused %v; want 3 written, 1 and 3 refused", n, err, refused)
	}
	var texts []string
	for e, err := range tp.All(context.Background()) {
		if err == nil && e.Kind == KindMessage {
			texts = append(texts, string(e.Payload))
		}
	}
	if len(texts) != 3 {
		t.Errorf("the tape holds %q; want the three messages", texts)
	}
}
