package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// logIDs is the ids of `tape log --all --json`, in order.
func logIDs(t *testing.T, dir string) []string {
	t.Helper()
	var ids []string
	for _, r := range jsonRecords(t, mustRun(t, dir, "log", "--all", "--json")) {
		ids = append(ids, r["id"].(string))
	}
	return ids
}

func lines(s string) []string { return strings.Fields(strings.TrimSpace(s)) }

func TestCLIForkMerge(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"before the fork"}`)
	id := strings.TrimSpace(mustRun(t, dir, "fork"))
	if !ulidPattern.MatchString(id) {
		t.Fatalf("fork printed %q, want a ULID", id)
	}
	appended := lines(mustRun(t, dir, "append", "--fork", id, "--kind", "message", `{"role":"assistant","content":"分支里的计划"}`))
	if h := jsonRecords(t, mustRun(t, dir, "handoff", "--fork", id, "--json", "审查", "--summary", "fork phase")); h[0]["folder"] != "001_审查" {
		t.Errorf("handoff --fork --json = %v, want folder 001_审查", h)
	}
	appended = append(appended, lines(mustRun(t, dir, "append", "--fork", id, "--kind", "event", `{"step":"branch-only-word"}`))...)
	forkIDs := forkEntryIDs(t, dir, id)
	if len(forkIDs) != 3 || forkIDs[0] != appended[0] || forkIDs[2] != appended[1] {
		t.Fatalf("the fork holds %v, want %v around its anchor", forkIDs, appended)
	}
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"parent, meanwhile"}`)
	if _, err := os.Stat(filepath.Join(dir, ".tape/tapes/main/forks", id, "anchors/001_审查/anchor.json")); err != nil {
		t.Errorf("the fork's anchor is not a plain folder of the fork: %v", err)
	}

	parent := logIDs(t, dir)
	for _, fid := range forkIDs {
		if slices.Contains(parent, fid) {
			t.Errorf("tape log shows fork entry %s before the merge", fid)
		}
	}
	if out, _, code := runTape(t, dir, "search", "branch-only-word"); code != exitNoMatch {
		t.Errorf("search finds a fork entry before the merge (exit %d): %s", code, out)
	}
	if out, _, code := runTape(t, dir, "search", "分支"); code != exitNoMatch {
		t.Errorf("search 分支 finds a fork entry before the merge (exit %d): %s", code, out)
	}

	rec := jsonRecords(t, mustRun(t, dir, "merge", "--json", id))[0]
	if rec["fork"] != id || rec["entries"] != 2.0 || rec["anchors"] != 1.0 || rec["skipped"] != 0.0 || rec["base"] != "001_session-start" {
		t.Errorf("merge --json = %v", rec)
	}
	if got, want := logIDs(t, dir), append(slices.Clone(parent), forkIDs...); !slices.Equal(got, want) {
		t.Errorf("after the merge:\n got %v\nwant %v", got, want)
	}
	if out := mustRun(t, dir, "search", "分支"); !strings.Contains(out, "里的计划") {
		t.Errorf("search 分支 after the merge = %q", out)
	}
	if anchors := jsonRecords(t, mustRun(t, dir, "anchors", "--json")); len(anchors) != 2 || anchors[1]["name"] != "审查" {
		t.Errorf("anchors after the merge = %v, want the fork's anchor second", anchors)
	}
	if _, err := os.Stat(filepath.Join(dir, ".tape/tapes/main/forks", id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the merged fork is still there: %v", err)
	}
}

func TestCLIDiscard(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	id := strings.TrimSpace(mustRun(t, dir, "fork"))
	mustRun(t, dir, "append", "--fork", id, "--kind", "message", `{"role":"user","content":"丢掉"}`)
	before := logIDs(t, dir)
	rec := jsonRecords(t, mustRun(t, dir, "discard", "--json", id))[0]
	if rec["fork"] != id || rec["tape"] != "main" {
		t.Errorf("discard --json = %v", rec)
	}
	if got := logIDs(t, dir); !slices.Equal(got, before) {
		t.Errorf("discard changed the tape: %v, want %v", got, before)
	}
	if _, stderr, code := runTape(t, dir, "merge", id); code != exitWorkspace || !strings.Contains(stderr, "no such fork") {
		t.Errorf("merge of a discarded fork: exit %d: %s", code, stderr)
	}
}

// The error cases of the fork and reset commands, run as real processes in
// a fresh workspace: exit status and a one-line "tape: ...; hint" message.
func TestForkCommandsProcess(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	tests := []struct {
		name      string
		args      []string
		code      int
		stderrHas string
	}{
		{"merge needs an id", []string{"merge"}, exitUsage, "expected \"<id>\""},
		{"fork id with a slash", []string{"append", "--fork", "../main", "--kind", "message", `{"a":1}`}, exitUsage, "fork id \"../main\" contains a path separator; give the id 'tape fork' printed"},
		{"fork id with dots", []string{"merge", ".."}, exitUsage, "give the id 'tape fork' printed"},
		{"discard dot name", []string{"discard", ".merged-x"}, exitUsage, "give the id 'tape fork' printed"},
		{"merge unknown fork", []string{"merge", "01JD8Z5N0QF3KJ6W2M1T7XG4BC"}, exitWorkspace, "start one with 'tape fork'"},
		{"discard unknown fork", []string{"discard", "01JD8Z5N0QF3KJ6W2M1T7XG4BC"}, exitWorkspace, "no such fork"},
		{"append to unknown fork", []string{"append", "--fork", "nope", "--kind", "message", `{"a":1}`}, exitWorkspace, "no such fork"},
		{"merge on a missing tape", []string{"--tape", "ghost", "merge", "x"}, exitWorkspace, "no such tape"},
		{"reset without --yes in a script", []string{"reset"}, exitUsage, "run 'tape reset --yes'"},
		{"reset of a missing tape", []string{"--tape", "ghost", "reset", "--yes"}, exitWorkspace, "no such tape"},
		{"fork", []string{"fork"}, exitOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, msg, code := runProcess(t, dir, tc.args...)
			if code != tc.code || !strings.Contains(msg, tc.stderrHas) {
				t.Errorf("tape %v: exit %d, stderr %q; want exit %d with %q", tc.args, code, msg, tc.code, tc.stderrHas)
			}
			if code != 0 && (!strings.HasPrefix(msg, "tape: ") || strings.Count(msg, "\n") != 1) {
				t.Errorf("stderr %q is not one 'tape: ...' line", msg)
			}
		})
	}
	if got := logIDs(t, dir); len(got) != 1 {
		t.Errorf("the refused commands changed the tape: %v", got)
	}
}

// A `tape merge` process killed with SIGKILL after a random number of
// writes, again and again until one run finishes, leaves every fork entry
// in the tape exactly once, in order, with its id and date.
func TestKilledMergeProcess(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 4 {
		dir := newCLIWorkspace(t)
		mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"parent first"}`)
		id := strings.TrimSpace(mustRun(t, dir, "fork"))
		for phase := range 3 {
			var in strings.Builder
			for i := range 40 {
				kind := []string{"message", "tool_call", "event"}[i%3]
				fmt.Fprintf(&in, `{"kind":%q,"payload":{"role":"user","content":"第%d段 entry %d"}}`+"\n", kind, phase, i)
			}
			if _, stderr, code := runTapeStdin(t, dir, in.String(), "append", "--fork", id, "--jsonl"); code != 0 {
				t.Fatalf("append --fork --jsonl: exit %d: %s", code, stderr)
			}
			if phase < 2 {
				mustRun(t, dir, "handoff", "--fork", id, fmt.Sprintf("阶段 %d", phase+1))
			}
		}
		mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"parent, meanwhile"}`)
		want := append(logIDs(t, dir), forkEntryIDs(t, dir, id)...)
		wantDates := forkDates(t, dir, id)

		kills := 0
		for run := 0; ; run++ {
			if run > 200 {
				t.Fatalf("trial %d: the merge never finished", trial)
			}
			cmd := tapeProcess(dir, "merge", id)
			cmd.Env = append(cmd.Env, fmt.Sprintf("TAPE_TEST_MERGE_KILL_AFTER=%d", 1+r.IntN(30)))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
				kills++
				continue
			}
			if err != nil {
				t.Fatalf("trial %d: merge: %v: %s", trial, err, out)
			}
			break
		}
		if kills == 0 {
			t.Errorf("trial %d: no run was killed; the test proves nothing", trial)
		}
		if got := logIDs(t, dir); !slices.Equal(got, want) {
			t.Fatalf("trial %d, after %d kills:\n got %d ids %v\nwant %d ids %v", trial, kills, len(got), got, len(want), want)
		}
		for _, rec := range jsonRecords(t, mustRun(t, dir, "log", "--all", "--json")) {
			if d, ok := wantDates[rec["id"].(string)]; ok && rec["date"] != d {
				t.Errorf("trial %d: entry %s has date %v after the merge, %v in the fork", trial, rec["id"], rec["date"], d)
			}
		}
	}
}

// forkEntryIDs reads a fork's ids in order with the library's reader, as
// `tape log` would read it were it the tape.
func forkEntryIDs(t *testing.T, dir, id string) []string {
	t.Helper()
	var ids []string
	for _, e := range forkEntries(t, dir, id) {
		ids = append(ids, e.ID) // 000_fork, of seq 0 without anchor.json, has no anchor entry
	}
	return ids
}

func forkDates(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	dates := map[string]any{}
	for _, e := range forkEntries(t, dir, id) {
		dates[e.ID] = e.Date
	}
	return dates
}

func forkEntries(t *testing.T, dir, id string) []tapelog.Entry {
	t.Helper()
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tp, err := ws.Tape("main")
	if err != nil {
		t.Fatal(err)
	}
	fork, err := tp.OpenFork(id)
	if err != nil {
		t.Fatal(err)
	}
	var entries []tapelog.Entry
	for e, err := range fork.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	return entries
}

// The whole fork flow through real processes: fork, append and hand off
// into it, discard one fork and merge another.
func TestForkFlowProcess(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	tape := func(stdin string, args ...string) string {
		t.Helper()
		cmd := tapeProcess(dir, args...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tape %v: %v", args, err)
		}
		return string(out)
	}
	keep := strings.TrimSpace(tape("", "fork"))
	drop := strings.TrimSpace(tape("", "fork", "--json"))
	dropID, _ := jsonRecords(t, drop)[0]["fork"].(string)
	tape(`{"kind":"message","payload":{"role":"user","content":"保留"}}`+"\n", "append", "--fork", keep, "--jsonl")
	tape("", "handoff", "--fork", keep, "next")
	tape("", "append", "--fork", dropID, "--kind", "message", `{"role":"user","content":"discarded-word"}`)
	tape("", "discard", dropID)
	tape("", "merge", keep)
	out := tape("", "log", "--all")
	if !strings.Contains(out, "保留") || strings.Contains(out, "discarded-word") || !strings.Contains(out, "── 002 next") {
		t.Errorf("log --all after discard and merge =\n%s", out)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, ".tape/tapes/main/forks")); len(left) != 0 {
		t.Errorf("forks left behind: %v", left)
	}
}

// A `tape merge` of a large fork SIGKILLed from outside at random times,
// then run to the end: every entry once, in order.
func TestMergeKilledAtRandomTimes(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	id := strings.TrimSpace(mustRun(t, dir, "fork"))
	for phase := range 3 {
		var in strings.Builder
		for i := range 1500 {
			fmt.Fprintf(&in, `{"kind":"message","payload":{"role":"user","content":"阶段%d 第%d条 %s"}}`+"\n", phase, i, strings.Repeat("x", i%500))
		}
		if _, stderr, code := runTapeStdin(t, dir, in.String(), "append", "--fork", id, "--jsonl"); code != 0 {
			t.Fatalf("append --fork --jsonl: exit %d: %s", code, stderr)
		}
		mustRun(t, dir, "handoff", "--fork", id, fmt.Sprint("phase-", phase))
	}
	want := append(logIDs(t, dir), forkEntryIDs(t, dir, id)...)
	// How long a whole merge takes here, on a copy: the kills are spread
	// over that time.
	probe := t.TempDir()
	if err := os.CopyFS(filepath.Join(probe, ".tape"), os.DirFS(filepath.Join(dir, ".tape"))); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := tapeProcess(probe, "merge", id).CombinedOutput(); err != nil {
		t.Fatalf("merge of the copy: %v: %s", err, out)
	}
	span := max(time.Since(start), time.Millisecond)
	r := rand.New(rand.NewPCG(11, 11))
	for round := range 8 {
		cmd := tapeProcess(dir, "merge", id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int64N(int64(span)))) // a random point of the merge, not a wait for something
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil {
			t.Logf("round %d: the merge finished before the kill", round)
			break
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".tape/tapes/main/forks", id)); err == nil {
		out, err := tapeProcess(dir, "merge", "--json", id).Output()
		if err != nil {
			t.Fatalf("merge after the kills: %v: %s", err, out)
		}
		t.Logf("the last merge: %s", out) // "skipped" says how far the killed ones got
	}
	if got := logIDs(t, dir); !slices.Equal(got, want) {
		t.Fatalf("after the kills: got %d ids, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
