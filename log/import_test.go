package log

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// HandoffEntry keeps the anchor entry it is given, and on a new tape makes
// it the first anchor, with no bootstrap anchor before it.
func TestHandoffEntry(t *testing.T) {
	ctx := context.Background()
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "imported")
	first := Entry{ID: "1", Kind: KindAnchor, Payload: json.RawMessage(`{"name":"session/start","state":{"owner":"人"},"extra":1}`),
		Meta: json.RawMessage(`{"m":"元"}`), Date: "2025-06-01T08:00:00.000001+00:00"}
	a, err := tp.HandoffEntry(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if a.Seq != 1 || a.Folder != "001_session-start" || a.Entry.ID != "1" || a.Entry.Date != first.Date || string(a.Entry.Meta) != `{"m":"元"}` {
		t.Errorf("first anchor = seq %d folder %s id %s date %s meta %s; want the entry as given in 001_session-start",
			a.Seq, a.Folder, a.Entry.ID, a.Entry.Date, a.Entry.Meta)
	}
	if _, err := tp.Append(ctx, Entry{ID: "2", Kind: KindMessage, Payload: json.RawMessage(`{"role":"user"}`)}); err != nil {
		t.Fatal(err)
	}
	b, err := tp.HandoffEntry(ctx, Entry{ID: "3", Kind: KindAnchor, Payload: json.RawMessage(`{"name":"审查"}`)})
	if err != nil || b.Seq != 2 || b.Entry.ID != "3" || b.Entry.Date == "" {
		t.Errorf("second anchor = %+v, %v; want seq 2, id 3, a date assigned", b, err)
	}
	entries, bad := readAll(t, tp)
	if got := ids(entries); len(bad) != 0 || len(got) != 3 || got[0] != "1" || got[1] != "2" || got[2] != "3" {
		t.Errorf("tape reads %v (bad %v), want ids 1 2 3", got, bad)
	}
	fi, err := os.Stat(filepath.Join(ws.Dir(), "tapes/imported/anchors/002_审查/anchor.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("anchor.json: %v, %v; want mode 0600", fi, err)
	}

	refused := []struct {
		name    string
		payload string
		date    string
		want    error
	}{
		{"no name", `{"state":{}}`, "", ErrInvalid},
		{"empty name", `{"name":""}`, "", ErrBadName},
		{"state not an object", `{"name":"x","state":[1]}`, "", ErrInvalid},
		{"bad date", `{"name":"x"}`, "tomorrow", ErrInvalid},
		{"payload not an object", `[1]`, "", ErrInvalid},
	}
	for _, tt := range refused {
		_, err := tp.HandoffEntry(ctx, Entry{ID: "9", Kind: KindAnchor, Payload: json.RawMessage(tt.payload), Date: tt.date})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if anchors, _ := tp.Anchors(); len(anchors) != 2 {
		t.Errorf("%d anchors after refused handoffs, want 2", len(anchors))
	}
}

// One import at a time: a second LockImports waits while the first holds
// the lock, gives up when its context does, and gets it once released.
func TestLockImportsIsExclusive(t *testing.T) {
	ws := newTestWorkspace(t)
	unlock, err := ws.LockImports(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := ws.LockImports(ctx); err == nil || !strings.Contains(err.Error(), "another tape import") {
		t.Fatalf("a second import while the first holds the lock: %v; want it to wait, then say why", err)
	}
	unlock()
	again, err := ws.LockImports(context.Background())
	if err != nil {
		t.Fatalf("after the first import released the lock: %v", err)
	}
	again()
}
