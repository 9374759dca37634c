package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// ccusageCases are the sources whose token counts ccusage reads too: the
// golden transcripts of each (testdata/import/<source>/src), laid out under
// a home folder where ccusage looks for them. A source ccusage reads gets
// a line here.
var ccusageCases = []struct {
	source  string // tape import's source
	ccusage string // ccusage's command for the agent
	home    string // where, under $HOME, the agent keeps the transcripts
}{
	{"claude", "claude", ".claude/projects"},
	{"codex", "codex", ".codex/sessions"},
	{"qwen", "qwen", ".qwen/projects"},
	{"copilot", "copilot", ".copilot"},
	{"openclaw", "openclaw", ".openclaw"},
}

// ccusageDay is one day of `ccusage <agent> daily --json`, and of `tape
// usage --by day --json`, in the four counts both give.
type ccusageDay struct {
	Input, Output, CacheWrite, CacheRead int64
}

// TestUsageEqualsCcusage: for every source ccusage reads, the tokens of
// each day that tape usage sums from an import equal those that ccusage
// 20.0.24 (testdata/ccusage, installed by .ci/run) counts in the same
// files, in UTC.
func TestUsageEqualsCcusage(t *testing.T) {
	t.Parallel()
	bin := ccusageBinary(t)
	for _, tc := range ccusageCases {
		t.Run(tc.source, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			into := filepath.Join(home, filepath.FromSlash(tc.home))
			if err := os.CopyFS(into, os.DirFS(filepath.Join("..", "..", "testdata", "import", tc.source, "src"))); err != nil {
				t.Fatal(err)
			}
			settle(t, into) // finished sessions: the import holds no line back as still being written
			dir := newCLIWorkspace(t)
			if _, stderr, code := runTape(t, dir, "import", tc.source, into); code != exitOK && code != exitUsage { // 2: lines it could not import, which the golden transcripts have
				t.Fatalf("tape import %s: exit %d: %s", tc.source, code, stderr)
			}
			got := map[string]ccusageDay{}
			for _, r := range jsonRecords(t, mustRun(t, dir, "usage", "--all-tapes", "--by", "day", "--limit", "0", "--json")) {
				got[r["day"].(string)] = ccusageDay{int64(r["input_tokens"].(float64)), int64(r["output_tokens"].(float64)),
					int64(r["cache_creation_tokens"].(float64)), int64(r["cache_read_tokens"].(float64))}
			}
			want := ccusageDaily(t, bin, home, tc.ccusage)
			if len(want) == 0 {
				t.Fatalf("ccusage %s counts no day in the golden transcripts: nothing to compare", tc.ccusage)
			}
			for day, w := range want {
				if got[day] != w {
					t.Errorf("%s: tape usage %+v, ccusage %s %+v", day, got[day], tc.ccusage, w)
				}
			}
			for day := range got {
				if _, ok := want[day]; !ok {
					t.Errorf("%s: tape usage %+v, a day ccusage does not count", day, got[day])
				}
			}
		})
	}
}

// settle dates every file under dir an hour back.
func settle(t *testing.T, dir string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(path, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ccusageDaily runs `ccusage <agent> daily --json --offline` on the home
// folder home, in UTC, and returns its days.
func ccusageDaily(t *testing.T, bin, home, agent string) map[string]ccusageDay {
	t.Helper()
	cmd := exec.Command(bin, agent, "daily", "--json", "--offline")
	cmd.Env = []string{"HOME=" + home, "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage %s daily: %v", agent, err)
	}
	var report struct {
		Daily []struct {
			Date                string
			InputTokens         int64
			OutputTokens        int64
			CacheCreationTokens int64
			CacheReadTokens     int64
		}
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("read ccusage's report: %v\n%s", err, out)
	}
	days := map[string]ccusageDay{}
	for _, d := range report.Daily {
		days[d.Date] = ccusageDay{d.InputTokens, d.OutputTokens, d.CacheCreationTokens, d.CacheReadTokens}
	}
	return days
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
