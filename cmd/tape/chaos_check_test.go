package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// ledger holds every entry id a command printed, with its tape, and the
// forks the rounds made.
type ledger struct {
	mu        sync.Mutex
	ids       map[string]map[string]int // tape → id → the round that printed it
	forks     map[string]*chaosFork     // fork id → its fork
	busy      map[string]bool           // forks a task of busyRound merges
	busyRound int
}

// chaosFork is a fork and the ids printed into it.
type chaosFork struct {
	tape   string
	round  int
	ids    map[string]int
	merges int // merges tried
}

func newLedger() *ledger {
	return &ledger{ids: map[string]map[string]int{}, forks: map[string]*chaosFork{}}
}

// record notes the ids a command printed on stdout: one per line, or a
// JSON object per line with --json. A line without its newline was cut by
// a kill, and proves nothing.
func (l *ledger) record(c *chaos, args []string, stdout string, round int) {
	tape, fork, asJSON := flagValue(args, "--tape", "main"), flagValue(args, "--fork", ""), slices.Contains(args, "--json")
	lines := strings.Split(stdout, "\n")
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range lines[:len(lines)-1] {
		id := line
		if asJSON {
			var rec struct{ ID, Tape string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.ID == "" {
				c.t.Errorf("tape %v printed %q, not an entry", args, line)
				continue
			}
			id = rec.ID
		}
		if fork != "" {
			if f := l.forks[fork]; f != nil {
				f.ids[id] = round
			}
			continue
		}
		if l.ids[tape] == nil {
			l.ids[tape] = map[string]int{}
		}
		l.ids[tape][id] = round
	}
}

func flagValue(args []string, flag, def string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return def
}

func (l *ledger) fork(id, tape string, round int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forks[id] = &chaosFork{tape: tape, round: round, ids: map[string]int{}}
}

func (l *ledger) noteMerge(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.forks[id]; f != nil {
		f.merges++
	}
}

// leftover picks a fork of an earlier round that is still there (pick,
// in [0, 1), says which), for one task of this round to merge; "" if
// there is none.
func (l *ledger) leftover(c *chaos, pick float64) (id, tape string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == nil || l.busyRound != c.roundNo {
		l.busy, l.busyRound = map[string]bool{}, c.roundNo
	}
	var ids []string
	for id, f := range l.forks {
		if f.round < c.roundNo && !l.busy[id] && forkThere(c.dir, f.tape, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", ""
	}
	slices.Sort(ids)
	id = ids[int(pick*float64(len(ids)))]
	l.busy[id] = true
	return id, l.forks[id].tape
}

// forkThere reports whether a fork's folder is still there: not merged,
// or merged but for its removal (forks/.merged-<id>, which holds nothing
// the tape does not).
func forkThere(dir, tape, id string) bool {
	_, err := os.Stat(filepath.Join(dir, ".tape", "tapes", tape, "forks", id))
	return err == nil
}

// chaosWords are the words every check searches: the writers' and the
// imported transcripts'.
var chaosWords = []string{"common", "错误", "alpha", "fix", "hello", "parse"}

// readArgs are the reads a check compares.
func readArgs(tapes []string, round int) [][]string {
	reads := [][]string{
		{"tapes", "--json", "-n", "0"},
		{"info", "--all-tapes", "--json"},
		{"calls", "--all-tapes", "--json", "-n", "0"},
		{"usage", "--all-tapes", "--json", "-n", "0"},
		{"usage", "--all-tapes", "--by", "model", "--json", "-n", "0"},
		{"search", fmt.Sprintf("rw%d", max(round, 0)), "--all-tapes", "--json", "-n", "100000"},
	}
	for _, w := range chaosWords {
		reads = append(reads, []string{"search", w, "--all-tapes", "--json", "-n", "100000"})
	}
	for _, tape := range tapes {
		reads = append(reads, []string{"log", "--all", "--json", "--tape", tape})
	}
	for _, tape := range chaosTapes {
		reads = append(reads,
			[]string{"anchors", "--json", "--tape", tape},
			[]string{"context", "--json", "--all", "--tape", tape},
			[]string{"context", "--json", "--tape", tape})
	}
	return reads
}

// readOut is what a read printed.
type readOut struct {
	stdout, stderr string
	code           int
}

// check compares every read in the workspace with the same read of a copy
// rebuilt from nothing, and the logs with the ledger.
func (c *chaos) check(what string) {
	c.t.Helper()
	fresh := c.rebuiltCopy()
	defer os.RemoveAll(fresh)
	tapes := c.tapeNames(fresh)
	reads := readArgs(tapes, c.roundNo)
	want := make([]readOut, len(reads))
	for i, args := range reads {
		out, errOut, code := runTape(c.t, fresh, args...)
		want[i] = readOut{out, errOut, code}
	}
	got := c.workspaceReads(reads)
	logs := map[string]string{}
	for i, args := range reads {
		c.stats.count(&c.stats.checks)
		g, w := normalizeRead(args, got[i], c.dir), normalizeRead(args, want[i], fresh)
		if strings.Contains(g.stdout, c.dir) {
			c.t.Errorf("%s: tape %s names the workspace's folder:\n%.1000s", what, strings.Join(args, " "), g.stdout)
		}
		if g.stdout != w.stdout || g.code != w.code || g.stderr != w.stderr {
			c.t.Errorf("%s: tape %s in the workspace differs from a rebuild's: exit %d, %d lines, and %d, %d lines; %s\nstderr: %.1000s\nrebuild's stderr: %.1000s",
				what, strings.Join(args, " "), g.code, strings.Count(g.stdout, "\n"), w.code, strings.Count(w.stdout, "\n"), firstDifference(g.stdout, w.stdout), g.stderr, w.stderr)
		}
		if args[0] == "log" {
			logs[args[len(args)-1]] = got[i].stdout
		}
	}
	c.checkLedger(what, logs)
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\nworkspace: %.1500s\nrebuild:   %.1500s", i+1, gl, wl)
		}
	}
	return "the same lines"
}

// normalizeRead leaves out what legitimately differs between the
// workspace and its copy: the folder in what stderr says, info's path,
// index size and watcher, and its lag, which it measures before it
// catches up (how far behind the faults left the index, 0 in a rebuild).
func normalizeRead(args []string, r readOut, dir string) readOut {
	r.stderr = strings.ReplaceAll(r.stderr, dir, "<workspace>")
	if args[0] != "info" || r.code != 0 {
		return r
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		return r
	}
	for _, k := range []string{"workspace", "index_bytes", "index_lag_bytes", "watcher", "watcher_pid"} {
		delete(m, k)
	}
	data, _ := json.Marshal(m)
	r.stdout = string(data)
	return r
}

// rebuiltCopy copies the workspace's tapes and config.json into a new
// folder and rebuilds its index from nothing, with no watcher.
func (c *chaos) rebuiltCopy() string {
	c.t.Helper()
	fresh := c.t.TempDir()
	if err := os.CopyFS(filepath.Join(fresh, ".tape", "tapes"), os.DirFS(filepath.Join(c.dir, ".tape", "tapes"))); err != nil {
		c.t.Fatalf("copy the tapes: %v", err)
	}
	config, err := os.ReadFile(filepath.Join(c.dir, ".tape", "config.json"))
	if err == nil {
		err = os.WriteFile(filepath.Join(fresh, ".tape", "config.json"), config, 0o600)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	if _, errOut, code := runTape(c.t, fresh, "reindex", "--full"); code != 0 {
		c.t.Fatalf("reindex --full of a copy: exit %d: %s", code, errOut)
	}
	return fresh
}

// tapeNames are the tapes of the rebuilt copy, and of the ledger.
func (c *chaos) tapeNames(fresh string) []string {
	out, errOut, code := runTape(c.t, fresh, "tapes", "--json", "-n", "0")
	if code != 0 {
		c.t.Fatalf("tapes of the copy: exit %d: %s", code, errOut)
	}
	names := slices.Clone(chaosTapes)
	for _, rec := range jsonRecords(c.t, out) {
		if name, _ := rec["name"].(string); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// workspaceReads runs the reads in the workspace as processes, with
// watchers started on demand, three at a time.
func (c *chaos) workspaceReads(reads [][]string) []readOut {
	out := make([]readOut, len(reads))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cmd := autoProcess(os.Args[0], c.dir, "auto", reads[i]...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				timer := time.AfterFunc(procTimeout, func() { cmd.Process.Kill() })
				cmd.Run()
				timer.Stop()
				out[i] = readOut{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
				c.stats.proc("check read", false)
			}
		}()
	}
	for i := range reads {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// checkLedger holds the logs read in the workspace (tape → log --all
// --json) to the ledger: every printed id once, no id twice.
func (c *chaos) checkLedger(what string, logs map[string]string) {
	c.t.Helper()
	errs := 0
	errorf := func(format string, args ...any) {
		c.t.Helper()
		if errs++; errs <= maxLedgerErrors {
			c.t.Errorf(what+": "+format, args...)
		}
	}
	defer func() {
		if errs > maxLedgerErrors {
			c.t.Errorf("%s: %d more such ids", what, errs-maxLedgerErrors)
		}
	}()
	live := map[string]map[string]int{}
	for tape, out := range logs {
		live[tape] = map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var rec struct{ ID string }
			if line == "" || json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			live[tape][rec.ID]++
			if live[tape][rec.ID] == 2 {
				errorf("tape %s holds id %s twice", tape, rec.ID)
			}
		}
	}
	l := c.led
	l.mu.Lock()
	defer l.mu.Unlock()
	archived := map[string]map[string]int{}
	for tape, ids := range l.ids {
		archived[tape] = c.archiveIDs(tape)
		for id, round := range ids {
			n, a := live[tape][id], archived[tape][id]
			switch {
			case n+a == 0:
				errorf("id %s, printed in round %d, is not on tape %s nor in its archive: lost", id, round, tape)
			case n+a > 1:
				errorf("id %s, printed in round %d, is %d times on tape %s and %d times in its archive", id, round, n, tape, a)
			case a == 1:
				delete(ids, id) // reset --archive took it away: it stays there
			}
		}
	}
	for forkID, f := range l.forks {
		merged := !forkThere(c.dir, f.tape, forkID)
		if archived[f.tape] == nil {
			archived[f.tape] = c.archiveIDs(f.tape)
		}
		for id, round := range f.ids {
			n, a := live[f.tape][id], archived[f.tape][id]
			switch {
			case n > 1 || a > 1:
				errorf("id %s, printed into fork %s in round %d, is %d times on tape %s and %d times in its archive", id, forkID, round, n, f.tape, a)
			case merged && n+a == 0:
				errorf("id %s, printed into fork %s in round %d, is not on tape %s nor in its archive, and the fork is merged: lost", id, forkID, round, f.tape)
			}
		}
	}
}

// maxLedgerErrors is how many ids one check reports one by one.
const maxLedgerErrors = 10

// archiveIDs counts the entry ids of tape's archives (reset --archive),
// which no read shows: it reads the files.
func (c *chaos) archiveIDs(tape string) map[string]int {
	ids := map[string]int{}
	root := filepath.Join(c.dir, ".tape", tapelog.ArchiveDir)
	dirs, _ := os.ReadDir(root)
	name := regexp.MustCompile(`^` + regexp.QuoteMeta(tape) + `-\d{8}T\d{6}Z(-\d+)?$`)
	for _, d := range dirs {
		if !name.MatchString(d.Name()) {
			continue
		}
		filepath.WalkDir(filepath.Join(root, d.Name()), func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				c.t.Errorf("read the archive: %v", err)
				return nil
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if e, err := tapelog.ParseEntry(sc.Bytes()); err == nil && e.ID != "" {
					ids[e.ID]++
				}
			}
			return nil
		})
	}
	return ids
}

// doctor runs tape doctor once the faults stopped, does what it says a
// killed operation left for a user to do, as its fix says, and then
// wants it clean. Two problems may be left: fork_merge, a merge that did
// not finish (run it again; or, if the tape was reset since it began,
// remove merge.json and merge), and temp_file, what a handoff, a fork or
// a merge killed a minute or more before was building, which nothing has
// removed since (remove it; only runs of more rounds than the default
// last that long).
func (c *chaos) doctor() {
	c.t.Helper()
	for attempt := range 3 {
		res := c.exec(chaosProc{op: "doctor", args: []string{"doctor", "--json"}, kill: -1,
			tolerate: func(code int, _ string) bool { return code == exitWorkspace }})
		recs := jsonRecords(c.t, res.stdout)
		if len(recs) == 0 {
			if res.code != 0 {
				c.t.Errorf("tape doctor: exit %d and no problem: %s", res.code, res.stderr)
			}
			return
		}
		if attempt == 2 {
			c.t.Errorf("tape doctor after doing what it said:\n%s", res.stdout)
			return
		}
		for _, rec := range recs {
			if !c.doAsDoctorSays(rec) {
				c.t.Errorf("tape doctor after the faults: %v", rec)
				return
			}
		}
	}
}

// doAsDoctorSays does what a problem's fix says, if it is one a killed
// operation may leave, and reports whether it was.
func (c *chaos) doAsDoctorSays(rec map[string]any) bool {
	path, _ := rec["path"].(string)
	fix, _ := rec["fix"].(string)
	abs := filepath.Join(c.dir, ".tape", path)
	parts := strings.Split(path, "/")
	c.t.Logf("doctor: %s: %s; fix: %s", path, rec["problem"], fix)
	switch {
	case rec["check"] == "temp_file" && parts[0] == "tapes" && strings.HasPrefix(parts[len(parts)-1], ".tmp-"):
		if fix != "remove it: rm -r '"+abs+"'" && fix != "remove it: rm '"+abs+"'" {
			return false
		}
		if err := os.RemoveAll(abs); err != nil {
			c.t.Fatal(err)
		}
		return true
	case rec["check"] == "fork_merge" && len(parts) >= 4 && parts[0] == "tapes" && parts[2] == "forks":
		tape, id := parts[1], strings.TrimPrefix(parts[3], ".merged-")
		if strings.HasPrefix(fix, "rm '"+abs+"', then tape --tape "+tape+" merge "+id) {
			if err := os.Remove(abs); err != nil {
				c.t.Fatal(err)
			}
		}
		c.runOK("", "merge", "--tape", tape, id)
		c.led.noteMerge(id)
		return true
	}
	return false
}
