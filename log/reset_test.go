package log

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReset(t *testing.T) {
	for _, tc := range []struct {
		name    string
		archive bool
	}{{"delete", false}, {"archive", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ws := newTestWorkspace(t)
			tp := mustTape(t, ws, "main")
			mustAppend(t, tp, msg("旧的一条"))
			if _, err := tp.Handoff(context.Background(), "plan", nil); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, tp, msg("old, in plan"))
			res, err := tp.Reset(context.Background(), tc.archive)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(res.Anchors, ",") != "001_session-start,002_plan" {
				t.Errorf("Reset moved %v, want the two anchor folders", res.Anchors)
			}
			entries := mustRead(t, tp)
			if len(entries) != 1 || entries[0].Kind != KindAnchor || entries[0].Pos.Folder != "001_session-start" {
				t.Fatalf("after reset the tape holds %v, want one bootstrap anchor", ids(entries))
			}
			var payload struct {
				State map[string]string `json:"state"`
			}
			if err := json.Unmarshal(entries[0].Payload, &payload); err != nil {
				t.Fatal(err)
			}
			if payload.State["owner"] != "human" || payload.State["archived"] != res.Archived {
				t.Errorf("bootstrap state = %v, want owner human, archived %q", payload.State, res.Archived)
			}
			if !tc.archive {
				if res.Archived != "" {
					t.Errorf("Archived = %q without --archive", res.Archived)
				}
				left, _ := os.ReadDir(filepath.Join(ws.Dir(), "tapes/main"))
				for _, d := range left {
					if d.Name() != anchorsDir {
						t.Errorf("tapes/main/%s left behind", d.Name())
					}
				}
				return
			}
			if !strings.HasPrefix(res.Archived, ".tape/archive/main-") {
				t.Errorf("Archived = %q, want .tape/archive/main-<time>", res.Archived)
			}
			old, err := os.ReadFile(filepath.Join(ws.Project(), res.Archived, "001_session-start", MessagesFile))
			if err != nil || !strings.Contains(string(old), "旧的一条") {
				t.Errorf("the archive does not hold the old entries: %q, %v", old, err)
			}
			mustAppend(t, tp, msg("new"))
			if got := mustRead(t, tp); len(got) != 2 {
				t.Errorf("an append after the reset: the tape holds %d entries, want 2", len(got))
			}
		})
	}
}
