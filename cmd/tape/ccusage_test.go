package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/testkit/agenthome"
)

// ccusageDay is one day of `ccusage <agent> daily --json`, and of `tape
// usage --by day --json`, in the four counts both give.
type ccusageDay struct {
	Input, Output, CacheWrite, CacheRead int64
	Cost                                 float64 // USD; tape's cost_usd, ccusage's totalCost (costUSD of its per-agent reports)
}

// TestUsageEqualsCcusage: for every source ccusage reads, the tokens of
// each day that tape usage sums from an import equal those that ccusage
// 20.0.24 (testdata/ccusage, installed by .ci/run) counts in the same
// files, in UTC, and so does their cost, to the cent, but for the sources
// of costAsCcusageNot.
//
// costAsCcusageNot are the sources whose cost tape does not reckon as
// ccusage does, and why (decision 0104): ccusage prices a model LiteLLM's
// list lacks from a models.dev snapshot of its own, and shows the cost
// some records carry in place of their tokens' (docs/IMPORT.md, "Cost").
var costAsCcusageNot = map[string]string{
	"droid":    "glm-4.6 (written glm-4-6-0) and gpt-unknown: no LiteLLM entry; ccusage prices the one from models.dev",
	"kimi":     "Kimi's wire names no model; ccusage prices its runs as kimi-for-coding, from models.dev",
	"qwen":     "qwen3-coder-plus: LiteLLM lists it under OpenRouter alone, with no cache-read rate; ccusage prices it from models.dev",
	"openclaw": "ccusage shows the cost OpenClaw's records carry (0 in these fixtures); tape prices their tokens",
}

func TestUsageEqualsCcusage(t *testing.T) {
	t.Parallel()
	bin := ccusageBinary(t)
	for _, f := range agenthome.Folders {
		if agenthome.Uncounted[f.Source] {
			continue // its usage is checked by its golden files (docs/IMPORT.md)
		}
		t.Run(f.Source, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			into, _, err := agenthome.Build(home, filepath.Join("..", "..", "testdata", "import"), f.Source, 0)
			if err != nil {
				t.Fatal(err)
			}
			dir := newCLIWorkspace(t)
			// Exit 2 for the lines it could not import, which the golden
			// transcripts have; but an import it was, with its summary.
			if _, stderr, code := runTape(t, dir, "import", f.Source, into); code != exitOK && code != exitUsage || !strings.Contains(stderr, " transcripts, ") {
				t.Fatalf("tape import %s: exit %d: %s", f.Source, code, stderr)
			}
			got := map[string]ccusageDay{}
			for _, r := range jsonRecords(t, mustRun(t, dir, "usage", "--all-tapes", "--by", "day", "--limit", "0", "--json")) {
				cost, _ := r["cost_usd"].(float64) // null: none priced
				got[r["day"].(string)] = ccusageDay{int64(r["input_tokens"].(float64)), int64(r["output_tokens"].(float64)),
					int64(r["cache_creation_tokens"].(float64)), int64(r["cache_read_tokens"].(float64)), cost}
			}
			want := ccusageDaily(t, bin, home, f.Source)
			if len(want) == 0 {
				t.Fatalf("ccusage %s counts no day in the golden transcripts: nothing to compare", f.Source)
			}
			_, differs := costAsCcusageNot[f.Source]
			costDiffered := false
			for day, w := range want {
				g := got[day]
				near := math.Abs(g.Cost-w.Cost) < 0.005 // to the cent
				costDiffered = costDiffered || !near
				if near || differs {
					g.Cost = w.Cost
				}
				if g != w {
					t.Errorf("%s: tape usage %+v, ccusage %s %+v", day, got[day], f.Source, w)
				}
			}
			for day := range got {
				if _, ok := want[day]; !ok {
					t.Errorf("%s: tape usage %+v, a day ccusage does not count", day, got[day])
				}
			}
			if differs && !costDiffered {
				t.Errorf("every day's cost now equals ccusage's: remove %s from costAsCcusageNot (%s)", f.Source, costAsCcusageNot[f.Source])
			}
			compareSessions(t, dir, bin, home, f.Source, want)
		})
	}
}

// sessionsAsCcusageNot are the sources whose sessions tape does not sum
// as ccusage session does, and why; their sessions are each at least
// ccusage's, and add up to the days both count.
var sessionsAsCcusageNot = map[string]string{
	"claude": "ccusage session leaves out usage that only progress records hold (a subagent's, copied into its parent), which its daily counts; tape counts it in both",
	"gemini": "ccusage session counts each chat file of a Gemini session apart; tape imports a session's chats as one tape",
	"pi":     "ccusage session counts a subagent's file as a session of its own; tape sums it with its session, as Claude Code's",
	"kimi":   "ccusage session counts a subagent's file as a session of its own; tape sums it with its session, as Claude Code's",
}

// compareSessions: each session's tokens that tape usage --by session
// sums equal those ccusage <agent> session counts, and so does their
// cost to the cent, but as costAsCcusageNot and sessionsAsCcusageNot say.
// ccusage names a Codex or OpenClaw session by its file's path or name,
// which ends with the session's id.
func compareSessions(t *testing.T, dir, bin, home, source string, days map[string]ccusageDay) {
	t.Helper()
	got := map[string]ccusageDay{}
	var sum ccusageDay
	for _, r := range jsonRecords(t, mustRun(t, dir, "usage", "--all-tapes", "--by", "session", "--limit", "0", "--json")) {
		cost, _ := r["cost_usd"].(float64)
		s := ccusageDay{int64(r["input_tokens"].(float64)), int64(r["output_tokens"].(float64)),
			int64(r["cache_creation_tokens"].(float64)), int64(r["cache_read_tokens"].(float64)), cost}
		got[r["session_id"].(string)] = s
		sum.Input, sum.Output, sum.CacheWrite, sum.CacheRead = sum.Input+s.Input, sum.Output+s.Output, sum.CacheWrite+s.CacheWrite, sum.CacheRead+s.CacheRead
	}
	var daysSum ccusageDay
	for _, d := range days {
		daysSum.Input, daysSum.Output, daysSum.CacheWrite, daysSum.CacheRead = daysSum.Input+d.Input, daysSum.Output+d.Output, daysSum.CacheWrite+d.CacheWrite, daysSum.CacheRead+d.CacheRead
	}
	if sum != daysSum {
		t.Errorf("tape's sessions sum to %+v, ccusage's days to %+v", sum, daysSum)
	}
	want := ccusageSessions(t, bin, home, source)
	if len(want) == 0 {
		t.Fatalf("ccusage %s session counts no session: nothing to compare", source)
	}
	_, costDiffers := costAsCcusageNot[source]
	_, sessionsDiffer := sessionsAsCcusageNot[source]
	equal := 0
	for id, w := range want {
		g, ok := got[id]
		for gid, s := range got {
			if strings.HasSuffix(id, "-"+gid) || strings.HasSuffix(id, "_"+gid) { // Codex's and OpenClaw's file names
				g, ok = s, true
			}
		}
		if !ok {
			if !sessionsDiffer {
				t.Errorf("session %s: ccusage %s %+v, not in tape usage --by session", id, source, w)
			}
			continue
		}
		if math.Abs(g.Cost-w.Cost) < 0.005 || costDiffers {
			g.Cost = w.Cost
		}
		switch {
		case g == w:
			equal++
		case !sessionsDiffer:
			t.Errorf("session %s: tape usage %+v, ccusage %s %+v", id, g, source, w)
		case g.Input < w.Input || g.Output < w.Output || g.CacheWrite < w.CacheWrite || g.CacheRead < w.CacheRead:
			t.Errorf("session %s: tape usage %+v, below ccusage %s %+v", id, g, source, w)
		}
	}
	if sessionsDiffer && equal == len(want) {
		t.Errorf("every session now equals ccusage's: remove %s from sessionsAsCcusageNot (%s)", source, sessionsAsCcusageNot[source])
	}
}

// ccusageSessions runs `ccusage <agent> session --json --offline` on the
// home folder home and returns its sessions by id.
func ccusageSessions(t *testing.T, bin, home, agent string) map[string]ccusageDay {
	return ccusageReport(t, bin, home, agent, "session")
}

// ccusageDaily runs `ccusage <agent> daily --json --offline` on the home
// folder home, in UTC, and returns its days.
func ccusageDaily(t *testing.T, bin, home, agent string) map[string]ccusageDay {
	return ccusageReport(t, bin, home, agent, "daily")
}

// ccusageReport runs `ccusage <agent> <report> --json --offline` on the
// home folder home, in UTC, and returns its rows by key: a day's date, a
// session's id.
func ccusageReport(t *testing.T, bin, home, agent, report string) map[string]ccusageDay {
	t.Helper()
	cmd := exec.Command(bin, agent, report, "--json", "--offline")
	cmd.Env = []string{"HOME=" + home, "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage %s %s: %v", agent, report, err)
	}
	type row struct {
		Date, SessionID     string
		InputTokens         int64
		OutputTokens        int64
		CacheCreationTokens int64
		CacheReadTokens     int64
		TotalCost, CostUSD  float64
	}
	var got struct{ Daily, Sessions []row }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("read ccusage's report: %v\n%s", err, out)
	}
	rows := map[string]ccusageDay{}
	for _, r := range append(got.Daily, got.Sessions...) {
		rows[r.Date+r.SessionID] = ccusageDay{r.InputTokens, r.OutputTokens, r.CacheCreationTokens, r.CacheReadTokens, r.TotalCost + r.CostUSD}
	}
	return rows
}

// ccusageBinary is the ccusage that testdata/ccusage names, which .ci/run
// installs. Without it the test is skipped, unless
// TAPE_REQUIRE_CCUSAGE=1 (.ci/run sets it) makes that a failure.
func ccusageBinary(t *testing.T) string {
	bin, err := filepath.Abs(filepath.Join("..", "..", "testdata", "ccusage", "node_modules", ".bin", "ccusage"))
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		if os.Getenv("TAPE_REQUIRE_CCUSAGE") == "1" {
			t.Fatalf("TAPE_REQUIRE_CCUSAGE=1 but no ccusage: %v", err)
		}
		t.Skip("no ccusage: run `npm install --no-package-lock --prefix testdata/ccusage` (.ci/run does)")
	}
	return bin
}
