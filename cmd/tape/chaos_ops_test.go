package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/testkit/poll"
)

// chaosTask is one thing a round does, on a goroutine of its own: a
// process, a chain of them, or a fault the test makes itself.
type chaosTask struct {
	what  string
	delay time.Duration
	run   func()
}

// killChance is how often the plan draws a kill for a process it may
// kill; about half the kills land before the process ends.
const killChance = 0.5

// plan draws a round's tasks, and one to run after them, alone, or none.
// Every random choice is made here, on the test's goroutine.
//
// The one after them is issue 29's fault: with a watcher running (a
// read starts one if none does) and synced with (a read, so that it has
// nothing left to do), index.db* deleted, and a reindex, killed half
// the time. Deleted amid the writes, the index is reopened and
// filled by the watcher's next pass, which has something to do then, and
// a reader could not tell a watcher that trusts the index it had open
// from one that does not.
func (c *chaos) plan(round int) (tasks []chaosTask, last chaosTask) {
	add := func(what string, run func()) {
		tasks = append(tasks, chaosTask{what: what, delay: time.Duration(c.r.IntN(300)) * time.Millisecond, run: run})
	}
	add("grow transcripts", c.src.grow(c))
	// Drawn apart: the other tasks a seed draws stay as they were. Not in
	// -short (the race detector's pass), whose two rounds keep the timing
	// they had: a read of a tape that a reset --archive moves away
	// meanwhile fails there (closing note of 2026-11-28).
	if c.dbr.IntN(3) == 0 && !testing.Short() {
		args := []string{"import", chaosDBAgent, "--json", c.src.dir(chaosDBAgent)}
		kill := c.killAfterWith(c.dbr, "import", killChance)
		tasks = append(tasks, chaosTask{what: "import opencode", delay: time.Duration(c.dbr.IntN(300)) * time.Millisecond,
			run: func() { c.exec(chaosProc{op: "import opencode", args: args, kill: kill, tolerate: importBadLines}) }})
	}
	// The fault of issue 29 amid the others: the index deleted, and a
	// reindex, killed more often than not.
	if c.r.IntN(2) == 0 {
		add("delete index.db*, reindex", c.deleteThenReindex(0.7))
	}
	watchers := 0
	for range 5 + c.r.IntN(6) {
		switch k := c.r.IntN(100); {
		case k < 12:
			add("append", c.appendArg())
		case k < 24:
			add("append --jsonl", c.appendJSONL())
		case k < 34:
			add(">>", c.appendFlock(round, len(tasks)))
		case k < 40:
			add("handoff", c.handoff())
		case k < 48:
			add("fork chain", c.forkChain())
		case k < 52:
			add("merge leftover", c.mergeLeftover())
		case k < 56:
			add("reset --archive", c.resetArchive())
		case k < 62:
			add("import claude", c.importRun("claude"))
		case k < 68:
			add("import codex", c.importRun("codex"))
		case k < 73:
			add("reindex", c.reindex(false))
		case k < 77:
			add("reindex --full", c.reindex(true))
		case k < 81:
			add("delete index.db*", c.deleteIndex())
		case k < 90:
			add("read", c.read())
		case k < 95 && watchers == 0:
			watchers++
			add("watch", c.watch())
		default:
			add("kill watcher", c.killWatcher())
		}
	}
	if c.r.IntN(3) > 0 {
		fault := c.deleteThenReindex(killChance)
		last = chaosTask{what: "watcher, delete index.db*, reindex", run: func() {
			read := chaosProc{op: "read", args: []string{"tapes", "--count"}, kill: -1}
			c.exec(read)
			if !poll.Wait(20*time.Second, func() bool { return c.watcher() != 0 }) { // not Until: this runs on a task's goroutine
				c.t.Errorf("round %d: a read started no watcher within 20 s", c.roundNo)
				return
			}
			c.exec(read)
			fault()
		}}
	}
	return tasks, last
}

// words are what the writers write, so that searches find them.
func (c *chaos) words() string {
	w := []string{"common", fmt.Sprintf("rw%d", c.roundNo), "错误", "alpha", "beta"}
	return fmt.Sprintf("%s %s %s", w[0], w[1], w[2+c.r.IntN(3)])
}

func (c *chaos) pickTape() string { return chaosTapes[c.r.IntN(len(chaosTapes))] }

// appendArg is `tape append` of one message.
func (c *chaos) appendArg() func() {
	tape := c.pickTape()
	args := []string{"append", "--tape", tape, "--kind", "message", fmt.Sprintf(`{"role":"user","content":"%s"}`, c.words())}
	kill, round := c.killAfter("append", killChance), c.roundNo
	return func() {
		res := c.exec(chaosProc{op: "append", args: args, kill: kill})
		c.led.record(c, args, res.stdout, round)
	}
}

// chaosLines is a batch for `tape append --jsonl`: messages, tool calls
// with results (one failed), and runs with token usage, each line far
// under 64 KiB, so that a SIGKILL cannot tear one (one small write).
func (c *chaos) chaosLines(tag string) string {
	var b strings.Builder
	for i := range 1 + c.r.IntN(30) {
		call := fmt.Sprintf("call-%s-%d", tag, i)
		switch c.r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, `{"kind":"tool_call","payload":{"calls":[{"id":%q,"type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls %d\"}"}}]}}`+"\n", call, i)
			status := "ok"
			if i%5 == 0 {
				status = "error"
			}
			fmt.Fprintf(&b, `{"kind":"tool_result","payload":{"results":[{"tool_call_id":%q,"content":"%s","status":%q}]}}`+"\n", call, c.words(), status)
		case 1:
			fmt.Fprintf(&b, `{"kind":"event","payload":{"name":"run","data":{"status":"ok","model":"m%d","usage":{"input_tokens":%d,"output_tokens":%d},"usage_id":"u-%s-%d"}}}`+"\n",
				c.r.IntN(3), c.r.IntN(1000), c.r.IntN(100), tag, i)
		case 2:
			fmt.Fprintf(&b, `{"role":"assistant","content":"%s %s"}`+"\n", c.words(), strings.Repeat("pad ", c.r.IntN(2000)))
		default:
			fmt.Fprintf(&b, `{"kind":"message","payload":{"role":"user","content":"%s"}}`+"\n", c.words())
		}
	}
	return b.String()
}

// appendJSONL is `tape append --jsonl --json` of a batch.
func (c *chaos) appendJSONL() func() {
	tape := c.pickTape()
	args := []string{"append", "--tape", tape, "--jsonl", "--json"}
	stdin := c.chaosLines(fmt.Sprintf("%d-%d", c.roundNo, c.r.IntN(1<<30)))
	kill, round := c.killAfter("append --jsonl", killChance), c.roundNo
	return func() {
		res := c.exec(chaosProc{op: "append --jsonl", args: args, stdin: stdin, kill: kill})
		c.led.record(c, args, res.stdout, round)
	}
}

// appendFlock is the `>>` writer: lines with ids of its own, appended
// under the file's flock as docs/FORMAT.md says.
func (c *chaos) appendFlock(round, n int) func() {
	tape := c.pickTape()
	prefix := fmt.Sprintf("flk-s%d-r%d-t%d", c.seed, round, n)
	spec := fmt.Sprintf("%s,%s,%d,%s", filepath.Join(c.dir, ".tape", "tapes", tape), prefix, 1+c.r.IntN(20), c.words())
	kill := c.killAfter(">>", killChance)
	args := []string{">>", "--tape", tape}
	return func() {
		res := c.exec(chaosProc{op: ">>", args: args, appender: spec, kill: kill})
		c.led.record(c, args, res.stdout, round)
	}
}

func (c *chaos) handoff() func() {
	args := []string{"handoff", "--tape", c.pickTape(), fmt.Sprintf("phase-%d", c.r.IntN(100))}
	kill := c.killAfter("handoff", killChance)
	return func() { c.exec(chaosProc{op: "handoff", args: args, kill: kill}) }
}

// forkChain forks a tape, appends into the fork, maybe hands off in it,
// and merges it; a killed step ends the chain, and leaves the fork to a
// later round's mergeLeftover, or to doctor's fix at the end.
func (c *chaos) forkChain() func() {
	tape := c.pickTape()
	killFork, killAppend := c.killAfter("fork", killChance/2), c.killAfter("append --fork", killChance/2)
	stdin := c.chaosLines(fmt.Sprintf("f%d-%d", c.roundNo, c.r.IntN(1<<30)))
	handoff := c.r.IntN(2) == 0
	killHandoff := c.killAfter("handoff --fork", killChance/2)
	merge := c.mergeProc()
	round := c.roundNo
	return func() {
		res := c.exec(chaosProc{op: "fork", args: []string{"fork", "--tape", tape}, kill: killFork})
		id := strings.TrimSpace(res.stdout)
		if res.killed || res.code != 0 || id == "" {
			return
		}
		c.led.fork(id, tape, round)
		args := []string{"append", "--tape", tape, "--fork", id, "--jsonl", "--json"}
		res = c.exec(chaosProc{op: "append --fork", args: args, stdin: stdin, kill: killAppend})
		c.led.record(c, args, res.stdout, round)
		if res.killed {
			return
		}
		if handoff {
			if res = c.exec(chaosProc{op: "handoff --fork", args: []string{"handoff", "--tape", tape, "--fork", id, "next"}, kill: killHandoff}); res.killed {
				return
			}
		}
		merge.args = append(merge.args, "--tape", tape, id)
		c.exec(merge)
		c.led.noteMerge(id)
	}
}

// mergeProc is a `tape merge` (its tape and fork to be added) killed at
// a random time, or by its own hook after a random number of writes.
func (c *chaos) mergeProc() chaosProc {
	p := chaosProc{op: "merge", args: []string{"merge"}, kill: -1, tolerate: mergeGone}
	switch c.r.IntN(3) {
	case 0:
		p.kill = c.killAfter("merge", 1)
	case 1:
		p.env = []string{fmt.Sprintf("TAPE_TEST_MERGE_KILL_AFTER=%d", 1+c.r.IntN(40))}
	}
	return p
}

// mergeGone is a merge refused because the anchor it started into was
// reset away: the fork stays, and doctor says what to do.
func mergeGone(code int, stderr string) bool {
	return code == exitWorkspace && strings.Contains(stderr, "which is gone")
}

// mergeLeftover merges a fork an earlier round left, or reads if there
// is none. Which forks are left depends on how the kills fell, so it
// draws the same numbers either way: a seed's plans stay the same.
func (c *chaos) mergeLeftover() func() {
	pick, merge, read := c.r.Float64(), c.mergeProc(), c.read()
	id, tape := c.led.leftover(c, pick)
	if id == "" {
		return read
	}
	merge.args = append(merge.args, "--tape", tape, id)
	return func() {
		c.exec(merge)
		c.led.noteMerge(id)
	}
}

func (c *chaos) resetArchive() func() {
	args := []string{"reset", "--archive", "--yes", "--tape", c.pickTape()}
	kill := c.killAfter("reset --archive", killChance)
	return func() { c.exec(chaosProc{op: "reset --archive", args: args, kill: kill}) }
}

// importRun is `tape import claude|codex|opencode` of the growing transcripts.
func (c *chaos) importRun(agent string) func() {
	args := []string{"import", agent, "--json", c.src.dir(agent)}
	kill := c.killAfter("import", killChance)
	return func() { c.exec(chaosProc{op: "import " + agent, args: args, kill: kill, tolerate: importBadLines}) }
}

// importBadLines is an import that reports the transcripts' bad lines
// (the samples hold some) and imported the rest.
func importBadLines(code int, stderr string) bool {
	return code == exitUsage && strings.Contains(stderr, "could not be imported")
}

func (c *chaos) reindex(full bool) func() {
	args, op := []string{"reindex"}, "reindex"
	if full {
		args, op = append(args, "--full"), "reindex --full"
	}
	kill := c.killAfter(op, killChance)
	return func() { c.exec(chaosProc{op: op, args: args, kill: kill}) }
}

// deleteIndex removes index.db and its WAL and shared memory, as a user
// may at any time.
func (c *chaos) deleteIndex() func() {
	return func() {
		for _, name := range []string{"index.db", "index.db-wal", "index.db-shm"} {
			os.Remove(filepath.Join(c.dir, ".tape", name))
		}
		c.stats.count(&c.stats.indexDeletes)
	}
}

// deleteThenReindex deletes the index and runs a reindex at once, killed
// at the chance given.
func (c *chaos) deleteThenReindex(chance float64) func() {
	del := c.deleteIndex()
	full := c.r.IntN(3) == 0
	op := "reindex"
	if full {
		op = "reindex --full"
	}
	kill := c.killAfter(op, chance)
	return func() {
		del()
		args := []string{"reindex"}
		if full {
			args = append(args, "--full")
		}
		c.exec(chaosProc{op: op, args: args, kill: kill})
	}
}

// read is a read command, which starts the on-demand watcher.
func (c *chaos) read() func() {
	reads := [][]string{
		{"search", "common", "--all-tapes", "-n", "3"},
		{"tapes", "--json"},
		{"log", "--all", "-n", "5", "--tape", c.pickTape()},
		{"info", "--all-tapes", "--json"},
		{"usage", "--all-tapes"},
	}
	args := reads[c.r.IntN(len(reads))]
	kill := c.killAfter("read", killChance)
	return func() {
		c.exec(chaosProc{op: "read", args: args, kill: kill, tolerate: func(code int, _ string) bool { return code == exitNoMatch }})
	}
}
