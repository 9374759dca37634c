package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/internal/wording"
)

// tape statusline prints the model, the session's cost, today's and the
// active block's, with the time the block has left and its burn rate; it
// takes Claude Code's own figure for the session when given; and refuses
// stdin that is not Claude Code's object, with exit 2.
func TestStatusline(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	now := time.Now().UTC()
	// Two runs of 100,000 input tokens of claude-sonnet-4-5 ($0.30 each):
	// 120 and 30 minutes ago, in one block, active; one of another
	// session, 30 hours ago, in no block of now.
	write := func(tape, session string, ago ...time.Duration) {
		folder := filepath.Join(dir, ".tape", "tapes", tape, "anchors", "001_start")
		if err := os.MkdirAll(folder, 0o700); err != nil {
			t.Fatal(err)
		}
		anchor := fmt.Sprintf(`{"kind":"anchor","payload":{"name":"start","state":{"source":"claude","session_id":%q}},"date":%q}`+"\n", session, now.Add(-48*time.Hour).Format(time.RFC3339Nano))
		if err := os.WriteFile(filepath.Join(folder, "anchor.json"), []byte(anchor), 0o600); err != nil {
			t.Fatal(err)
		}
		var lines strings.Builder
		for i, d := range ago {
			fmt.Fprintf(&lines, `{"id":"%s-%d","kind":"event","payload":{"name":"run","data":{"model":"claude-sonnet-4-5","usage":{"input_tokens":100000}}},"date":%q}`+"\n",
				tape, i, now.Add(-d).Format(time.RFC3339Nano))
		}
		if err := os.WriteFile(filepath.Join(folder, "runs.jsonl"), []byte(lines.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("s1", "session-one", 120*time.Minute, 30*time.Minute)
	write("s2", "session-two", 30*time.Hour)
	mustRun(t, dir, "reindex") // statusline reads the index as it stands
	today := 0.0
	for _, d := range []time.Duration{120 * time.Minute, 30 * time.Minute, 30 * time.Hour} {
		if now.Add(-d).In(time.Local).Format(time.DateOnly) == now.In(time.Local).Format(time.DateOnly) {
			today += 0.3
		}
	}
	blockEnd := now.Add(-120 * time.Minute).Truncate(time.Hour).Add(5 * time.Hour)
	for _, c := range []struct {
		stdin, want string
	}{
		{`{"session_id": "session-one", "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"}}`,
			fmt.Sprintf(`^🤖 Sonnet 4\.5 \| 💰 \$0\.60 session / \$%.2f today / \$0\.60 block \((\d+h )?\d+m left\) \| 🔥 \$0\.40/hr\n$`, today)},
		{`{"session_id": "session-one", "model": {"display_name": "Sonnet 4.5"}, "cost": {"total_cost_usd": 1.5}}`,
			`^🤖 Sonnet 4\.5 \| 💰 \$1\.50 session / `},
		{`{"session_id": "not-indexed", "model": {"id": "claude-opus-4-5"}}`, `^🤖 claude-opus-4-5 \| 💰 \$0\.00 session / `},
	} {
		out, stderr, code := runTapeStdin(t, dir, c.stdin, "statusline")
		if code != 0 || !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("tape statusline < %s: exit %d, %q (stderr %q), want %s", c.stdin, code, out, stderr, c.want)
		}
	}
	left := time.Until(blockEnd).Round(time.Minute)
	out, _, _ := runTapeStdin(t, dir, `{"session_id": "session-one"}`, "statusline")
	if want := wording.HoursMinutes(left); !strings.Contains(out, "("+want+" left)") && !strings.Contains(out, "("+wording.HoursMinutes(left-time.Minute)+" left)") {
		t.Errorf("tape statusline: %q, want %s left", out, want)
	}
	for _, stdin := range []string{``, `{}`, `not json`, `{"session_id": 7}`} {
		if out, stderr, code := runTapeStdin(t, dir, stdin, "statusline"); code != exitUsage || out != "" || !strings.Contains(stderr, "status line") && !strings.Contains(stderr, "session_id") {
			t.Errorf("tape statusline < %q: exit %d, %q, %q; want exit 2 naming what it wants", stdin, code, out, stderr)
		}
	}
}
