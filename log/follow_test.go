package log

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// polled describes what a Poll returned: one "kind:text" per entry, and
// the number of bad lines.
func polled(t *testing.T, f *Follower) string {
	t.Helper()
	entries, bad, err := f.Poll(context.Background())
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	var parts []string
	for _, e := range entries {
		var p struct {
			Content string `json:"content"`
			Name    string `json:"name"`
		}
		json.Unmarshal(e.Payload, &p)
		parts = append(parts, e.Kind+":"+p.Content+p.Name)
	}
	if len(bad) > 0 {
		parts = append(parts, fmt.Sprintf("bad:%d", len(bad)))
	}
	return strings.Join(parts, " ")
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

func TestFollowerReadsWhatIsWrittenAfterItStarted(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	msg := func(s string) Entry {
		return Entry{Kind: KindMessage, Payload: json.RawMessage(`{"role":"user","content":"` + s + `"}`)}
	}
	if _, err := tp.Append(ctx, msg("before")); err != nil {
		t.Fatal(err)
	}
	f, err := tp.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := polled(t, f); got != "" {
		t.Fatalf("first poll: %q; want nothing written before Follow", got)
	}
	if _, err := tp.Append(ctx, msg("one"), msg("二")); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start")
	appendLine(t, filepath.Join(folder, "hand.jsonl"), `{"role":"user","content":"by hand"}`+"\n")
	// In tape order: a line with no date sorts before dated ones.
	if got, want := polled(t, f), "message:by hand message:one message:二"; got != want {
		t.Errorf("after appends: %q, want %q", got, want)
	}
	appendLine(t, filepath.Join(folder, "hand.jsonl"), `{"role":"user","content":"to`)
	if got := polled(t, f); got != "" {
		t.Errorf("a torn line was returned: %q", got)
	}
	appendLine(t, filepath.Join(folder, "hand.jsonl"), "rn\"}\nnot json\n")
	if got, want := polled(t, f), "message:torn bad:1"; got != want {
		t.Errorf("after the line completed and a bad one: %q, want %q", got, want)
	}
	if _, err := tp.Handoff(ctx, "review", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Append(ctx, msg("after")); err != nil {
		t.Fatal(err)
	}
	if got, want := polled(t, f), "anchor:review message:after"; got != want {
		t.Errorf("after a handoff: %q, want %q", got, want)
	}
	// A file rewritten under the follower is read again from its start.
	review := filepath.Join(ws.Dir(), "tapes/main/anchors/002_review/messages.jsonl")
	if err := os.WriteFile(review, []byte(`{"role":"user","content":"rewritten"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := polled(t, f), "message:rewritten"; got != want {
		t.Errorf("after a rewrite: %q, want %q", got, want)
	}
}

func TestFollowerOfATapeNotMadeYet(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "later")
	f, err := tp.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := polled(t, f); got != "" {
		t.Fatalf("poll of no tape: %q", got)
	}
	if _, err := tp.Append(ctx, Entry{Kind: KindEvent, Payload: json.RawMessage(`{"name":"first"}`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := polled(t, f), "anchor:session/start event:first"; got != want {
		t.Errorf("after the tape was made: %q, want %q", got, want)
	}
}

// After tape reset, whose new anchors folder may start with a folder of
// the same name as the one followed, the follower reads the new tape
// (review: it went silent for good).
func TestFollowerAfterReset(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	if _, err := tp.Append(ctx, Entry{Kind: KindEvent, Payload: json.RawMessage(`{"name":"old"}`)}); err != nil {
		t.Fatal(err)
	}
	f, err := tp.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Reset(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Append(ctx, Entry{Kind: KindEvent, Payload: json.RawMessage(`{"name":"after reset"}`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := polled(t, f), "anchor:session/start event:after reset"; got != want {
		t.Errorf("after a reset: %q, want %q", got, want)
	}
}

// A reset that replaces the anchors folder while the follower lists it
// makes it list the new one: it read the old one's folders by name from
// the new anchors folder, where they were not, and tape log -f printed an
// anchor named for a folder's slug, with no date, that the tape never had
// (TestLogFollowPrintsWhatIsWritten, once in a CI run).
func TestFollowerOfAResetUnderWay(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	if _, err := tp.Append(ctx, Entry{Kind: KindEvent, Payload: json.RawMessage(`{"name":"old"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Handoff(ctx, "review", nil); err != nil {
		t.Fatal(err)
	}
	f, err := tp.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	anchors := ws.Abs("tapes/main/anchors")
	f.listed = func() { // the first half of a reset, once
		f.listed = nil
		if err := os.Rename(anchors, ws.Abs("tapes/main/.gone")); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(anchors, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if got := polled(t, f); got != "" {
		t.Errorf("polled mid-reset: %q, want nothing (the new anchors folder holds no folder yet)", got)
	}
	if _, err := tp.Reset(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got, want := polled(t, f), "anchor:session/start"; got != want {
		t.Errorf("after the reset: %q, want %q", got, want)
	}
}
