package log

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestHandoff(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	a, err := tp.Handoff(ctx, "plan/step 1", json.RawMessage(`{"summary":"did x","n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Seq != 2 || a.Folder != "002_plan-step-1" || a.Name != "plan/step 1" || string(a.State) != `{"summary":"did x","n":1}` {
		t.Errorf("Handoff = %+v", a)
	}
	data, err := os.ReadFile(filepath.Join(ws.Dir(), "tapes/main/anchors/002_plan-step-1", AnchorFile))
	if err != nil {
		t.Fatal(err)
	}
	var line map[string]json.RawMessage
	if err := json.Unmarshal(data, &line); err != nil {
		t.Fatalf("anchor.json = %q: %v", data, err)
	}
	if string(line["kind"]) != `"anchor"` || string(line["payload"]) != `{"name":"plan/step 1","state":{"summary":"did x","n":1}}` {
		t.Errorf("anchor.json = %s", data)
	}
	out, err := tp.Append(ctx, msg("in step 1"))
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Pos.Folder != a.Folder || out[0].Pos.Anchor != a.Name {
		t.Errorf("append after handoff went to %s (%s), want %s", out[0].Pos.Folder, out[0].Pos.Anchor, a.Folder)
	}
	entries, _ := os.ReadDir(filepath.Join(ws.Dir(), "tapes/main/anchors"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary %s left in the anchors folder", e.Name())
		}
	}
}

func TestHandoffCreatesTape(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "fresh")
	a, err := tp.Handoff(context.Background(), "review", nil)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := tp.Anchors()
	if err != nil {
		t.Fatal(err)
	}
	if len(anchors) != 2 || anchors[0].Name != BootstrapName || string(anchors[0].State) != bootstrapState || a.Seq != 2 {
		t.Errorf("anchors of a tape created by handoff = %+v", anchors)
	}
}

func TestHandoffRefuses(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	for _, tt := range []struct {
		name, anchor string
		state        string
		is           error
	}{
		{"empty name", "", "", ErrBadName},
		{"newline in name", "a\nb", "", ErrBadName},
		{"state not object", "x", `[1]`, ErrInvalid},
		{"state not json", "x", `{`, ErrInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var state json.RawMessage
			if tt.state != "" {
				state = json.RawMessage(tt.state)
			}
			if _, err := tp.Handoff(ctx, tt.anchor, state); !errors.Is(err, tt.is) {
				t.Errorf("Handoff error = %v, want %v", err, tt.is)
			}
		})
	}
	anchors, _ := tp.Anchors()
	if len(anchors) != 1 {
		t.Errorf("refused handoffs left %d anchors, want 1", len(anchors))
	}
}

// An agent may mkdir the next folder by hand; tape's handoff then takes the
// seq after it.
func TestHandoffAfterHandMadeFolder(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	if err := os.Mkdir(filepath.Join(ws.Dir(), "tapes/main/anchors/002_review"), 0o700); err != nil {
		t.Fatal(err)
	}
	a, err := tp.Handoff(context.Background(), "review", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Folder != "003_review" {
		t.Errorf("handoff after a hand-made 002_review made %s, want 003_review", a.Folder)
	}
}

func TestHandoffConcurrentGoroutines(t *testing.T) {
	ws := newTestWorkspace(t)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		tp := mustTape(t, ws, "main")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := tp.Handoff(context.Background(), "step", json.RawMessage(`{"i":`+itoa(i)+`}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	anchors, err := mustTape(t, ws, "main").Anchors()
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, a := range anchors {
		seqs = append(seqs, a.Seq)
	}
	want := make([]int64, n+1)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if !slices.Equal(seqs, want) {
		t.Errorf("seqs after %d concurrent handoffs = %v, want 1..%d, each once", n, seqs, n+1)
	}
}

func TestHandoffRefusesSeqOverflow(t *testing.T) {
	ws := newTestWorkspace(t)
	if err := os.Mkdir(filepath.Join(ws.Dir(), "tapes/main/anchors/9223372036854775807_big"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := mustTape(t, ws, "main").Handoff(context.Background(), "next", nil); err == nil || !strings.Contains(err.Error(), "no seq left") {
		t.Errorf("handoff after the largest seq = %v, want an error", err)
	}
}

// A handoff killed after it made its temporary folder leaves it in the
// anchors folder; the next handoff, holding the tape's lock under which
// every such folder is made, removes it. A temporary folder of the tape's
// folder (WriteFolder's, made without the lock) is not its to remove.
func TestHandoffRemovesDeadTempFolders(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	anchors := filepath.Join(ws.Dir(), "tapes/main/anchors")
	dead := filepath.Join(anchors, ".tmp-0123456789abcdef")
	writeTestFile(t, filepath.Join(dead, AnchorFile), `{"kind":"anchor","payload":{"name":"killed"}}`+"\n")
	building := filepath.Join(ws.Dir(), "tapes/main/.tmp-fedcba9876543210")
	writeTestFile(t, filepath.Join(building, "messages.jsonl"), "{}\n")
	a, err := tp.Handoff(context.Background(), "next", nil)
	if err != nil || a.Folder != "002_next" {
		t.Fatalf("Handoff = %+v, %v; want 002_next", a, err)
	}
	if _, err := os.Lstat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed handoff's folder is still there (%v)", err)
	}
	if _, err := os.Lstat(building); err != nil {
		t.Errorf("a temporary folder outside anchors/ was removed: %v", err)
	}
}
