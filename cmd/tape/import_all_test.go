package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/testkit/agenthome"
	"github.com/tape-dev/tape/testkit/poll"
)

// agentsHome is a home folder holding the golden transcripts of the
// sources named, each where its agent keeps them.
func agentsHome(t *testing.T, sources ...string) string {
	t.Helper()
	home := t.TempDir()
	for _, s := range sources {
		if _, _, err := agenthome.Build(home, filepath.Join("..", "..", "testdata", "import"), s, 0); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// tapeAt runs tape as a process in dir with HOME set to home (and no
// variable naming an agent's folder), and returns what it printed.
func tapeAt(t *testing.T, dir, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := tapeProcess(dir, args...)
	cmd.Env = append(append(cmd.Env, agenthome.Env...), "HOME="+home, "TAPE_WATCH=off")
	return runCommand(t, cmd)
}

// TestImportEverySourceFound: `tape import` with no source imports every
// agent whose folders are under $HOME, a summary line each, and again
// imports nothing; with none found it says where it looked.
func TestImportEverySourceFound(t *testing.T) {
	t.Parallel()
	home := agentsHome(t, "claude", "codex")
	dir := newCLIWorkspace(t)
	_, stderr, code := tapeAt(t, dir, home, "import")
	if code != exitUsage { // the golden transcripts hold bad lines
		t.Fatalf("tape import: exit %d, want 2 for the bad lines: %s", code, stderr)
	}
	// What each source's own import makes, in another workspace: the same
	// tapes, and the same summary, named by its source.
	one := newCLIWorkspace(t)
	transcripts := 0
	for _, src := range []struct{ name, dir string }{{"claude", ".claude/projects"}, {"codex", ".codex/sessions"}} {
		_, errOut, _ := runTape(t, one, "import", src.name, filepath.Join(home, filepath.FromSlash(src.dir)))
		var summary string // "tape: 4 transcripts, 4 tapes: ..."
		for _, line := range strings.Split(errOut, "\n") {
			if strings.HasPrefix(line, "tape: ") && strings.Contains(line, " transcripts, ") {
				summary = line
			}
		}
		if summary == "" {
			t.Fatalf("tape import %s printed no summary: %s", src.name, errOut)
		}
		if want := strings.Replace(summary, "tape: ", "tape: "+src.name+": ", 1); !strings.Contains(stderr, want+"\n") {
			t.Errorf("tape import said\n%s\nwant the line %q", stderr, want)
		}
		stdout, _, _ := runTape(t, newCLIWorkspace(t), "import", src.name, "--json", filepath.Join(home, filepath.FromSlash(src.dir)))
		transcripts += len(jsonRecords(t, stdout))
	}
	if got, want := tapeFiles(t, filepath.Join(dir, ".tape", "tapes")), tapeFiles(t, filepath.Join(one, ".tape", "tapes")); got != want {
		t.Error("tape import made other tapes than tape import claude and tape import codex")
	}
	stdout, stderr, code := tapeAt(t, dir, home, "import", "--json", "--all")
	recs := jsonRecords(t, stdout)
	if code != exitOK || len(recs) != transcripts || recs[0]["source"] != "claude" || recs[len(recs)-1]["source"] != "codex" || recs[len(recs)-1]["imported"] != 0.0 {
		t.Errorf("tape import again --json --all: exit %d, %d records for %d transcripts: %v\n%s", code, len(recs), transcripts, recs, stderr)
	}
	_, stderr, code = tapeAt(t, dir, t.TempDir(), "import")
	if code != exitWorkspace || !strings.Contains(stderr, "no agent's sessions found in ") || !strings.Contains(stderr, ".codex/sessions") {
		t.Errorf("tape import with no agent's folders: exit %d: %s", code, stderr)
	}
}

// TestSources: tape sources says, for each source, whether its folders
// are there, how many transcripts they hold and how many were imported,
// and whether it is followed.
func TestSources(t *testing.T) {
	t.Parallel()
	home := agentsHome(t, "codex")
	dir := newCLIWorkspace(t)
	bySource := func() map[string]map[string]any {
		stdout, stderr, code := tapeAt(t, dir, home, "sources", "--json")
		if code != exitOK {
			t.Fatalf("tape sources: exit %d: %s", code, stderr)
		}
		m := map[string]map[string]any{}
		for _, r := range jsonRecords(t, stdout) {
			m[r["source"].(string)] = r
		}
		return m
	}
	got := bySource()
	if c := got["codex"]; c["found"] != true || c["transcripts"] != 3.0 || c["imported"] != 0.0 || c["agent"] != "Codex CLI" {
		t.Errorf("codex before an import: %v", c)
	}
	if c := got["claude"]; c["found"] != false || c["transcripts"] != 0.0 || !strings.HasSuffix(fmt.Sprint(c["dirs"]), filepath.Join(".claude", "projects")+"]") {
		t.Errorf("claude, not there: %v", c)
	}
	tapeAt(t, dir, home, "import", "codex")
	config := filepath.Join(dir, ".tape", "config.json")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "{", `{"follow":["all"],`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := bySource()["codex"]; c["imported"] != 3.0 || c["followed"] != true {
		t.Errorf("codex after an import, with follow all: %v", c)
	}
	// Transcripts imported from elsewhere are not among those found here;
	// a follow word is read as tape watch reads it, spaces trimmed.
	elsewhere, err := filepath.Abs(filepath.Join("..", "..", "testdata", "import", "claude", "src"))
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, _ := tapeAt(t, dir, home, "import", "claude", elsewhere); !strings.Contains(stderr, " transcripts, ") {
		t.Fatalf("tape import claude %s: %s", elsewhere, stderr)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "{", `{"follow":[" codex "],`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	got = bySource()
	if c := got["claude"]; c["imported"] != 0.0 || c["followed"] != false {
		t.Errorf("claude, imported from elsewhere and not followed: %v", c)
	}
	if c := got["codex"]; c["followed"] != true {
		t.Errorf("codex, followed as \" codex \": %v", c)
	}
	stdout, _, _ := tapeAt(t, dir, home, "sources")
	if !strings.Contains(stdout, "codex") || !strings.Contains(stdout, "not found: "+home) {
		t.Errorf("tape sources =\n%s", stdout)
	}
}

// TestWatchFollowsAll: tape watch --follow all follows every agent whose
// folders are there, and says which.
func TestWatchFollowsAll(t *testing.T) {
	t.Parallel()
	home := agentsHome(t, "codex")
	dir := newCLIWorkspace(t)
	watch := tapeProcess(dir, "watch", "--quiet", "--follow", "all")
	watch.Env = append(append(watch.Env, agenthome.Env...), "HOME="+home)
	var watchErr syncBuffer
	watch.Stderr = &watchErr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Process.Kill(); watch.Wait() })
	poll.Until(t, 20*time.Second, "the codex sessions to be mirrored", func() bool {
		out, _ := tapeProcess(dir, "tapes", "--json").Output()
		return strings.Count(string(out), `"source":"codex"`) == 3
	})
	if s := watchErr.String(); !strings.Contains(s, "tape: following codex\n") {
		t.Errorf("the watcher said:\n%s\nwant that it follows codex alone", s)
	}
	_, stderr, code := tapeAt(t, newCLIWorkspace(t), t.TempDir(), "watch", "--follow", "all")
	if code == exitOK || !strings.Contains(stderr, "--follow all: no agent's sessions found") {
		t.Errorf("tape watch --follow all with no agent's folders: exit %d: %s", code, stderr)
	}
}
