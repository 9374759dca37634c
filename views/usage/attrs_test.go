package usage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/views/usage"
)

// Usage by project (the git root of a session's cwd when this machine has
// it, else the cwd), by source, and by session (the tapes of one agent
// session id: a Claude Code subagent's shares its session's; a tape not
// imported is its own), ordered by cost, the highest first; and any of
// them between two times.
func TestUsageByProjectSourceAndSession(t *testing.T) {
	t.Parallel()
	ws, p := newIndexed(t)
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "cmd", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	// tape: the first anchor's state, then runs of m-a (1e-6 a token in)
	// as [day of March 2026, input tokens].
	tapes := []struct {
		name, state string
		runs        [][2]int
	}{
		{"claude-main", fmt.Sprintf(`{"source":"claude","session_id":"A","cwd":%q}`, repo), [][2]int{{5, 1000}, {6, 2000}}},
		{"claude-sub", fmt.Sprintf(`{"source":"claude","session_id":"A","parent_session":"A","cwd":%q}`, filepath.Join(repo, "cmd", "x")), [][2]int{{6, 4000}}},
		{"claude-other", fmt.Sprintf(`{"source":"claude","session_id":"C","cwd":%q}`, filepath.Join(repo, "cmd")), [][2]int{{7, 500}}},
		{"codex-b", `{"source":"codex","session_id":"B","cwd":"/not/on/this/machine"}`, [][2]int{{5, 8000}}},
		{"orphan", `{"source":"codex","session_id":"D-agent","parent_session":"not-imported"}`, [][2]int{{7, 100}}},
		{"own", `{}`, [][2]int{{5, 300}}},
	}
	for _, tp := range tapes {
		dir := filepath.Join(ws.Dir(), "tapes", tp.name, "anchors", "001_start")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		lines := []string{fmt.Sprintf(`{"kind":"anchor","payload":{"name":"start","state":%s},"date":"2026-03-01T00:00:00Z"}`, tp.state)}
		if err := os.WriteFile(filepath.Join(dir, "anchor.json"), []byte(lines[0]+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var runs strings.Builder
		for i, r := range tp.runs {
			fmt.Fprintf(&runs, `{"id":"%s-%d","kind":"event","payload":{"name":"run","data":{"model":"m-a","usage":{"input_tokens":%d}}},"date":"2026-03-%02dT10:00:00Z"}`+"\n", tp.name, i, r[1], r[0])
		}
		if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(runs.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	march := func(day int) time.Time { return time.Date(2026, 3, day, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		by           string
		since, until time.Time
		want         string // group: input tokens, a group a line
	}{
		{by: "project", want: "/not/on/this/machine 8000\n" + repo + " 7500\n 400\n"},
		{by: "source", want: "codex 8100\nclaude 7500\n 300\n"},
		{by: "session", want: "codex-b codex B 8000\nclaude-main claude A 7000\nclaude-other claude C 500\nown   300\norphan codex D-agent 100\n"},
		{by: "session", since: march(6), until: march(7), want: "claude-main claude A 6000\n"},
		{by: "source", since: march(6), want: "claude 6500\ncodex 100\n"},
		{by: "tape", until: march(6), want: "claude-main 1000\ncodex-b 8000\nown 300\n"},
		{by: "model", since: march(7), want: "m-a 600\n"},
	} {
		rows, _, err := usage.Sum(context.Background(), p, usage.Filter{By: c.by, Since: c.since, Until: c.until, Prices: testPrices})
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, u := range rows {
			switch c.by {
			case "project":
				fmt.Fprintf(&got, "%s %d\n", u.Project, u.Input)
			case "source":
				fmt.Fprintf(&got, "%s %d\n", u.Source, u.Input)
			case "session":
				fmt.Fprintf(&got, "%s %s %s %d\n", u.Tape, u.Source, u.SessionID, u.Input)
			case "tape":
				fmt.Fprintf(&got, "%s %d\n", u.Tape, u.Input)
			case "model":
				fmt.Fprintf(&got, "%s %d\n", u.Model, u.Input)
			}
			if want := float64(u.Input) * 1e-6; u.CostUSD < want*0.999999 || u.CostUSD > want*1.000001 {
				t.Errorf("by %s: %+v costs %v, want %v", c.by, u, u.CostUSD, want)
			}
		}
		if got.String() != c.want {
			t.Errorf("by %s from %v until %v:\n%s\nwant\n%s", c.by, c.since, c.until, got.String(), c.want)
		}
	}
}
