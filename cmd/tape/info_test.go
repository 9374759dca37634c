package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/poll"
)

// infoJSON runs `tape info --json` as a real process and decodes it.
func infoJSON(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := runProcess(t, dir, append([]string{"info", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("tape info: exit %d: %s", code, stderr)
	}
	recs := jsonRecords(t, stdout)
	if len(recs) != 1 {
		t.Fatalf("tape info --json printed %d objects, want 1: %s", len(recs), stdout)
	}
	return recs[0]
}

// tapeBytes sums the sizes of the files of tape main's anchor folders.
func tapeBytes(t *testing.T, dir string) float64 {
	t.Helper()
	var n int64
	files, _ := filepath.Glob(filepath.Join(dir, ".tape", "tapes", "main", "anchors", "*", "*"))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return float64(n)
}

// TestInfoNumbers writes a tape and checks every number tape info gives
// against what was written.
func TestInfoNumbers(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	got := infoJSON(t, dir)
	if got["last_usage"] != nil || got["entries"] != 0.0 || got["anchors"] != 1.0 {
		t.Errorf("a new tape: %v; want no usage, 0 entries, 1 anchor", got)
	}
	mustRun(t, dir, "append", "-k", "message", `{"role":"user","content":"你好"}`)
	mustRun(t, dir, "append", "-k", "event", `{"name":"run","data":{"status":"ok","model":"claude","usage":{"input_tokens":100,"output_tokens":20}}}`)
	mustRun(t, dir, "handoff", "审查")
	mustRun(t, dir, "append", "-k", "event", `{"name":"run","data":{"status":"ok","model":"gpt-4o","usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}}`)
	mustRun(t, dir, "append", "-k", "event", `{"name":"step","data":{"usage":{"input_tokens":1}}}`)
	mustRun(t, dir, "append", "-k", "message", `{"role":"assistant","content":"好"}`)
	mustRun(t, dir, "reindex") // appends do not index; info would show them as lag

	got = infoJSON(t, dir)
	want := map[string]any{
		"tape": "main", "entries": 5.0, "anchors": 2.0, "last_anchor": "审查", "entries_since_anchor": 3.0,
		"bytes": tapeBytes(t, dir), "index_lag_bytes": 0.0, "watcher": false,
		"workspace": filepath.Join(dir, ".tape"),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got["index_bytes"].(float64) <= 0 {
		t.Errorf("index_bytes = %v, want the size of index.db", got["index_bytes"])
	}
	usage, _ := got["last_usage"].(map[string]any)
	if usage["input_tokens"] != 7.0 || usage["output_tokens"] != 3.0 || usage["total_tokens"] != 10.0 || usage["model"] != "gpt-4o" {
		t.Errorf("last_usage = %v, want the latest run's (OpenAI spelling), not the later step's", usage)
	}
	human, _, code := runProcess(t, dir, "info")
	for _, line := range []string{"last anchor:   审查", "entries:       5", "last usage:    7 in, 3 out, 10 total, model gpt-4o", "watcher:       not running"} {
		if code != exitOK || !strings.Contains(human, line) {
			t.Errorf("tape info (exit %d) lacks %q:\n%s", code, line, human)
		}
	}
}

// TestInfoLag appends by hand and checks that the lag is the bytes
// appended, measured before tape info catches up.
func TestInfoLag(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "-k", "message", `{"content":"first"}`)
	mustRun(t, dir, "reindex")
	line := `{"kind":"message","payload":{"content":"手写的一行"}}` + "\n"
	appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), line)
	n := float64(len(line))
	tests := []struct {
		name    string
		args    []string
		lag     float64
		entries float64
	}{
		{"--no-catchup reads the index as it stands", []string{"--no-catchup"}, n, 1},
		{"the lag is measured before the catch-up", nil, n, 2},
		{"after the catch-up", nil, 0, 2},
	}
	for _, tt := range tests {
		got := infoJSON(t, dir, tt.args...)
		if got["index_lag_bytes"] != tt.lag || got["entries"] != tt.entries {
			t.Errorf("%s: index_lag_bytes %v, entries %v; want %v, %v", tt.name, got["index_lag_bytes"], got["entries"], tt.lag, tt.entries)
		}
	}
	torn := `{"kind":"message"`
	appendBytes(t, filepath.Join(firstFolder(t, dir), "messages.jsonl"), torn)
	if got := infoJSON(t, dir); got["index_lag_bytes"] != float64(len(torn)) {
		t.Errorf("a torn tail: index_lag_bytes %v, want %d", got["index_lag_bytes"], len(torn))
	}
}

// TestInfoWatcher runs tape watch as a process and checks that tape info
// sees it, with its pid, and stops seeing it once it exits.
func TestInfoWatcher(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	watch := tapeProcess(dir, "watch", "--quiet")
	var stderr syncBuffer // what the watcher says if it stops early
	watch.Stderr = &stderr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	t.Cleanup(func() { // never leave a watcher behind
		if !exited {
			watch.Process.Kill()
			watch.Wait()
		}
	})
	pid := float64(watch.Process.Pid)
	var got map[string]any
	seen := poll.Wait(10*time.Second, func() bool {
		got = infoJSON(t, dir)
		return got["watcher"] == true && got["watcher_pid"] == pid
	})
	if !seen {
		t.Fatalf("tape info never saw the watcher (pid %v): %v; the watcher said: %q", pid, got, stderr.String())
	}
	if err := watch.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := watch.Wait(); err != nil {
		t.Fatalf("tape watch: %v", err)
	}
	exited = true
	if got := infoJSON(t, dir); got["watcher"] != false || got["watcher_pid"] != nil {
		t.Errorf("after the watcher exited: watcher %v, pid %v; want false and none", got["watcher"], got["watcher_pid"])
	}
}

// TestInfoAndDoctorErrors checks the error cases: one line on stderr with
// a hint, and the documented exit status.
func TestInfoAndDoctorErrors(t *testing.T) {
	t.Parallel()
	ws := newCLIWorkspace(t)
	tests := []struct {
		name string
		dir  string
		args []string
		code int
		has  string
	}{
		{"info outside a workspace", t.TempDir(), []string{"info"}, exitWorkspace, "tape init"},
		{"doctor outside a workspace", t.TempDir(), []string{"doctor"}, exitWorkspace, "tape init"},
		{"info of no such tape", ws, []string{"--tape", "其他", "info"}, exitWorkspace, `no such tape "其他"`},
		{"info with an argument", ws, []string{"info", "x"}, exitUsage, "unexpected argument"},
		{"doctor with an unknown flag", ws, []string{"doctor", "--fix"}, exitUsage, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runProcess(t, tt.dir, tt.args...)
			if code != tt.code || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "tape: ") || !strings.Contains(stderr, tt.has) {
				t.Errorf("exit %d, stderr %q; want %d and one line holding %q", code, stderr, tt.code, tt.has)
			}
		})
	}
}

// TestRunUsage reads usage in both spellings, and refuses what is not a
// run event with a usage.
func TestRunUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		payload        string
		in, out, total int64 // -1: null
		none           bool
	}{
		{"anthropic", `{"name":"run","data":{"usage":{"input_tokens":5,"output_tokens":2}}}`, 5, 2, 7, false},
		{"openai", `{"name":"run","data":{"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":9}}}`, 5, 2, 9, false},
		{"total only", `{"name":"run","data":{"usage":{"total_tokens":9}}}`, -1, -1, 9, false},
		{"float counts", `{"name":"run","data":{"usage":{"input_tokens":5.0,"output_tokens":1e1}}}`, 5, 10, 15, false},
		{"no usage", `{"name":"run","data":{"status":"ok"}}`, 0, 0, 0, true},
		{"not a run", `{"name":"step","data":{"usage":{"input_tokens":5}}}`, 0, 0, 0, true},
		{"usage not numbers", `{"name":"run","data":{"usage":{"input_tokens":"五"}}}`, 0, 0, 0, true},
		{"not an object", `[1]`, 0, 0, 0, true},
	}
	n := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	for _, tt := range tests {
		u := runUsage(tapelog.Entry{Kind: "event", Payload: json.RawMessage(tt.payload)})
		switch {
		case tt.none && u != nil:
			t.Errorf("%s: got %+v, want none", tt.name, u)
		case !tt.none && u == nil:
			t.Errorf("%s: got none", tt.name)
		case !tt.none && (n(u.InputTokens) != tt.in || n(u.OutputTokens) != tt.out || n(u.TotalTokens) != tt.total):
			t.Errorf("%s: got %d/%d/%d, want %d/%d/%d", tt.name, n(u.InputTokens), n(u.OutputTokens), n(u.TotalTokens), tt.in, tt.out, tt.total)
		}
	}
}

// FuzzRunUsage feeds runUsage any payload: it must not panic, and a usage
// it returns has a count.
func FuzzRunUsage(f *testing.F) {
	for _, seed := range []string{
		`{"name":"run","data":{"usage":{"input_tokens":5,"output_tokens":2}}}`,
		`{"name":"run","data":{"usage":{"prompt_tokens":1e30,"completion_tokens":-2}}}`,
		`{"name":"run","data":{"usage":null}}`,
		`{"name":"run","data":[]}`,
		`null`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		u := runUsage(tapelog.Entry{Payload: payload})
		if u != nil && u.InputTokens == nil && u.OutputTokens == nil && u.TotalTokens == nil {
			t.Errorf("usage without a count from %q", payload)
		}
	})
}

// TestInfoAndUsageAgree: tape info's last usage and tape usage read a run
// event by the same rule, so for a tape whose only run is that event they
// give the same counts, whatever spelling and counts the event has.
func TestInfoAndUsageAgree(t *testing.T) {
	t.Parallel()
	for _, usage := range []string{
		`{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":5,"cache_read_input_tokens":1000}`,
		`{"prompt_tokens":7,"completion_tokens":3}`,
		`{"input_tokens":4,"output_tokens":2,"total_tokens":50}`,
		`{"cache_read_input_tokens":9}`,
		`{"output_tokens":2.5e1}`,
	} {
		dir := newCLIWorkspace(t)
		mustRun(t, dir, "append", "-k", "event", `{"name":"run","data":{"model":"m","usage":`+usage+`}}`)
		info, _ := infoJSON(t, dir)["last_usage"].(map[string]any)
		stdout, stderr, code := runProcess(t, dir, "usage", "--by", "tape", "--json")
		if code != exitOK {
			t.Fatalf("tape usage: exit %d: %s", code, stderr)
		}
		sums := jsonRecords(t, stdout)
		if info == nil || len(sums) != 1 {
			t.Fatalf("usage %s: info last_usage %v, tape usage %v; want one of each", usage, info, sums)
		}
		for _, k := range []string{"input_tokens", "output_tokens", "total_tokens"} {
			got, want := info[k], sums[0][k]
			if got == nil { // a count the event did not give: tape usage sums it as 0
				got = 0.0
			}
			if got != want {
				t.Errorf("usage %s: %s is %v in tape info, %v in tape usage", usage, k, info[k], want)
			}
		}
	}
}
