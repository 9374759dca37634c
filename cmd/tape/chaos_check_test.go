package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

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
		// The kept totals by hour, tape attribute and block start; a block's
		// burn rate moves with the clock, so the blocks are compared by count.
		{"usage", "--all-tapes", "--by", "day", "--timezone", "Asia/Shanghai", "--json", "-n", "0"},
		{"usage", "--all-tapes", "--by", "session", "--json", "-n", "0"},
		{"usage", "--all-tapes", "--by", "project", "--json", "-n", "0"},
		{"usage", "--all-tapes", "--by", "block", "--count"},
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
		// A database source's entries name the mirror file in the
		// workspace they were imported from (decision 0097): data, kept
		// as it is by a rebuild.
		mirrors := filepath.Join(c.dir, ".tape", "import") + string(filepath.Separator)
		if strings.Contains(strings.ReplaceAll(g.stdout, mirrors, ""), c.dir) {
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
