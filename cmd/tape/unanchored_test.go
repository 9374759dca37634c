package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEntriesBeforeTheFirstAnchor: a tape whose first entries were
// written before any anchor, to 000_bub as Bub's store writes them, reads
// with no anchor Bub did not write: not in tape log, not in the context,
// not counted by tape info or tape tapes; tape anchors lists the folder
// as what it is.
func TestEntriesBeforeTheFirstAnchor(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	folder := filepath.Join(dir, ".tape", "tapes", "b", "anchors", "000_bub")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := `{"id":1,"kind":"event","payload":{"name":"start"},"meta":{},"date":"2026-11-28T09:00:00+00:00"}` + "\n" +
		`{"id":2,"kind":"message","payload":{"role":"user","content":"早上好"},"meta":{},"date":"2026-11-28T09:00:01+00:00"}` + "\n"
	if err := os.WriteFile(filepath.Join(folder, "bub.jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "reindex")

	logged := jsonRecords(t, mustRun(t, dir, "log", "--tape", "b", "--json"))
	if len(logged) != 2 || logged[0]["kind"] != "event" || logged[1]["kind"] != "message" {
		t.Errorf("tape log --json = %v, want the event and the message alone", logged)
	}
	if ctx := mustRun(t, dir, "context", "--tape", "b", "--json"); strings.Contains(ctx, "Anchor created") || !strings.Contains(ctx, "早上好") {
		t.Errorf("tape context --json = %s, want the message and no anchor", ctx)
	}
	info := infoJSON(t, dir, "--tape", "b")
	if info["anchors"] != 0.0 || info["last_anchor"] != nil || info["entries"] != 2.0 {
		t.Errorf("tape info: anchors %v, last anchor %v, entries %v; want 0, null, 2", info["anchors"], info["last_anchor"], info["entries"])
	}
	for _, tp := range jsonRecords(t, mustRun(t, dir, "tapes", "--json")) {
		if tp["name"] == "b" && (tp["anchors"] != 0.0 || tp["entries"] != 2.0) {
			t.Errorf("tape tapes --json: %v; want 0 anchors, 2 entries", tp)
		}
	}
	anchors := jsonRecords(t, mustRun(t, dir, "anchors", "--tape", "b", "--json"))
	if len(anchors) != 1 || anchors[0]["name"] != "" || anchors[0]["unanchored"] != true || anchors[0]["entries"] != 2.0 {
		t.Errorf("tape anchors --json = %v, want the folder, unanchored, with its 2 entries", anchors)
	}
	if out := mustRun(t, dir, "anchors", "--tape", "b"); !strings.Contains(out, "000  (before the first anchor)") {
		t.Errorf("tape anchors =\n%s\nwant the folder named for what it is", out)
	}

	mustRun(t, dir, "handoff", "--tape", "b", "session/start")
	logged = jsonRecords(t, mustRun(t, dir, "log", "--tape", "b", "--all", "--json"))
	if len(logged) != 3 || logged[2]["kind"] != "anchor" {
		t.Errorf("after a handoff, tape log --json = %v, want the two entries, then its anchor", logged)
	}
	if info := infoJSON(t, dir, "--tape", "b"); info["anchors"] != 1.0 || info["last_anchor"] != "session/start" {
		t.Errorf("after a handoff, tape info: anchors %v, last anchor %v", info["anchors"], info["last_anchor"])
	}
}
