package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestChaos is issue 29's chaos test: real processes, seeded, bounded.
//
// Each round starts a random mix of tape processes at once, all with
// TAPE_WATCH=auto so that reads start the on-demand watcher: `tape append`,
// `append --jsonl --json`, lines appended with `>>` under the file's flock
// (a child process, chaosAppender), handoffs, a fork that is appended to,
// handed off in and merged, merges of forks an earlier round left,
// `reset --archive`, `import claude` and `import codex` of transcripts that
// grow line by line as the round runs (some lines in two writes, some
// left half written for the next round), `reindex`, `reindex --full`, the
// deletion of index.db* (alone, or followed by a `reindex`), reads, a
// foreground `tape watch` stopped by SIGTERM or SIGKILL, and SIGKILLs of
// whatever watcher holds watch.lock (the on-demand one, mostly). Half the
// processes that may be killed get a SIGKILL at a random point of their
// run: a time.Sleep of a random part of the time that operation took when
// it was not killed (a merge, a third of the time, kills itself after a
// random number of writes instead); about half the kills land before the
// process ends. Two rounds in three end with issue 29's own fault, alone:
// a read syncs with a running watcher, index.db* is deleted, and a
// `reindex` runs, killed half the time. Everything else waits for what it
// needs, with a deadline.
//
// After every round, once all its processes ended: every read (search of
// words the writers wrote and of imported words, tapes, info, calls,
// usage, log --all of every tape, anchors, context) run in the workspace,
// as a process, with the watcher as the faults left it, prints what it
// prints in a copy of .tape/tapes and config.json rebuilt by `tape
// reindex --full`, on stdout and stderr, with the same exit status (info
// without its path, index size, watcher and lag, which it measures before
// it catches up), and its stdout names no folder of the workspace. The ledger: every entry id a command printed (an append
// prints its ids; the `>>` writer prints its own ids once written), and
// only complete lines of a killed one's output, is in `tape log --all
// --json` of its tape exactly once; an id that `reset --archive` moved
// out of its tape is in the archive exactly once instead, and leaves the
// ledger. An id printed into a fork is at most once on the tape while the
// fork is there (a merge may have been killed half way), and once merged
// it is on the tape or in an archive; it may be in both when a reset came
// between a killed merge and the end of the merge that doctor's fix runs
// (the fix writes again what the reset archived). No tape holds an id
// twice, imported tapes included (the sample transcripts repeat no uuid,
// which docs/IMPORT.md lets make two entries across a checkpoint).
//
// After the last round, with the faults stopped: the transcripts are
// imported once more, and every entry one import of them makes in a new
// workspace is on the workspace's tape once, with the same usage and calls
// (finishImports); `tape doctor --json` reports nothing but fork_merge
// (a merge that did not finish), for which the test does what the fix
// says, as a user would: `tape merge ID` again, or, when the tape was
// reset since the merge began, remove merge.json and merge. Then doctor
// reports nothing, and the reads equal a rebuild's once more.
//
// Seeds: chaosSeeds, or TAPE_CHAOS_SEED=N for one (a failure prints the
// line that replays it: the same plans, the kills landing as the machine
// lets them); TAPE_CHAOS_ROUNDS=N sets the rounds per seed. Under -short
// (the race detector's pass of .ci/run) one seed of chaosShortRounds.
//
// Measured on the 2-core machine of issue 29, shared with other work
// (load average 0.5 to 4): 3 seeds of 12 rounds in 40 to 56 s, each run
// some 1,320 processes (400 of them the faults, 920 the reads of the
// checks), 89 to 97 of them SIGKILLed, and 9 watchers, 51 deletions of
// index.db*, 920 reads compared. Under -race -short: one seed of 2
// rounds, 93 processes, 8 SIGKILLed, in 48 to 50 s at a load of 3 to 4.
// With issue 29's fix of item 1 taken out (serveBarrier in
// fresh/watch.go trusting an index that is not the reader's), each of
// the three seeds fails, in round 0, 2 and 0, and so does -short: the
// reads answer from an empty index. Found and fixed with it: a pass
// failing when index.db was deleted during it (projector), a resumed
// import writing a tape twice (importer), a merge going on into the new
// folder of a reset tape, and doctor's fix for a merge a reset
// interrupted (log).
func TestChaos(t *testing.T) {
	t.Parallel()
	seeds, rounds := chaosSeeds, chaosRounds
	if testing.Short() {
		seeds, rounds = seeds[:1], chaosShortRounds
	}
	if s := os.Getenv("TAPE_CHAOS_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TAPE_CHAOS_SEED=%q: %v", s, err)
		}
		seeds = []uint64{seed}
	}
	if s := os.Getenv("TAPE_CHAOS_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TAPE_CHAOS_ROUNDS=%q: want a number of rounds", s)
		}
		rounds = n
	}
	start := time.Now()
	var total chaosStats
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := newChaos(t, seed)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("replay: TAPE_CHAOS_SEED=%d go test -run 'TestChaos' -v ./cmd/tape", seed)
				}
			})
			for round := range rounds {
				c.round(round)
				if t.Failed() {
					return
				}
			}
			c.finish()
			c.stats.log(t, fmt.Sprintf("seed %d", seed))
			total.add(&c.stats)
		})
	}
	total.log(t, fmt.Sprintf("%d seeds, %d rounds each, %v", len(seeds), rounds, time.Since(start).Round(time.Second)))
}

// chaosSeeds are the seeds a run goes through by default.
var chaosSeeds = []uint64{1, 2, 3}

// The rounds per seed, in full and under -short.
const (
	chaosRounds      = 12
	chaosShortRounds = 2
)

// chaosTapes are the tapes the writers write to (imports make their own).
var chaosTapes = []string{"main", "side"}

// chaos is one seed's run: its workspace, its random source (used only on
// the test's goroutine, so a seed always draws the same plan), what the
// commands printed, and the counts.
type chaos struct {
	t    *testing.T
	seed uint64
	r    *rand.Rand
	// dbr draws what the OpenCode database does (chaos_db_test.go), apart
	// from r: the plans r draws for a seed stay those of before it.
	dbr   *rand.Rand
	dir   string // the workspace's project folder
	src   *transcripts
	led   *ledger
	stats chaosStats
	// took is how long each operation ran when it was not killed, the
	// range its kills are drawn from.
	tookMu  sync.Mutex
	took    map[string]time.Duration
	roundNo int
}

func newChaos(t *testing.T, seed uint64) *chaos {
	dir := newCLIWorkspace(t)
	reapWatchers(t, dir)
	c := &chaos{
		t: t, seed: seed, r: rand.New(rand.NewPCG(seed, 29)), dbr: rand.New(rand.NewPCG(seed, 34)), dir: dir,
		src: newTranscripts(t), led: newLedger(), took: map[string]time.Duration{},
	}
	c.stats.seeds = 1
	// Both tapes exist from the start, with a tool call, its result and a
	// run with usage, so that calls and usage have rows from round 0.
	for _, tape := range chaosTapes {
		c.runOK(c.chaosLines("setup-"+tape), "append", "--tape", tape, "--jsonl", "--json")
	}
	return c
}

// runOK runs a tape process that must succeed, without faults, and notes
// the ids an append prints.
func (c *chaos) runOK(stdin string, args ...string) string {
	c.t.Helper()
	res := c.exec(chaosProc{op: "setup", args: args, stdin: stdin, kill: -1})
	if res.code != 0 {
		c.t.Fatalf("tape %s: exit %d: %s", strings.Join(args, " "), res.code, res.stderr)
	}
	if args[0] == "append" {
		c.led.record(c, args, res.stdout, c.roundNo)
	}
	return res.stdout
}

// round runs one round's processes, then checks the reads and the ledger.
func (c *chaos) round(n int) {
	c.t.Helper()
	c.roundNo = n
	start := time.Now()
	tasks, last := c.plan(n)
	var whats []string
	for _, task := range tasks {
		whats = append(whats, fmt.Sprintf("%s@%dms", task.what, task.delay.Milliseconds()))
	}
	if last.run != nil {
		whats = append(whats, "then "+last.what)
	}
	c.t.Logf("round %d: %s", n, strings.Join(whats, ", "))
	c.ageWatchLog()
	var wg sync.WaitGroup
	for _, task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(task.delay) // a random start, spread over the round
			task.run()
		}()
	}
	wg.Wait()
	c.ageWatchLog()
	watcher := c.watcher()
	if last.run != nil {
		last.run()
	}
	c.stats.rounds++
	faults := time.Since(start)
	c.check(fmt.Sprintf("round %d", n))
	c.t.Logf("round %d: %d tasks, faults %v, checks %v, watcher after the tasks: pid %d", n, len(tasks), faults.Round(time.Millisecond), (time.Since(start) - faults).Round(time.Millisecond), watcher)
}

// ageWatchLog sets watch.log's time a minute back. A read starts a
// watcher at most every 5 s (startEvery, by that time); a round lasts
// about a second, so after a watcher was killed none would run for the
// rounds after: aged, the reads of the next round, or of the checks,
// start one again, as reads 5 s later would.
func (c *chaos) ageWatchLog() {
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(c.dir, ".tape", watchLog), old, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.t.Fatal(err)
	}
}

// finish stops the faults and checks what must hold after them.
func (c *chaos) finish() {
	c.t.Helper()
	start := time.Now()
	c.src.finishImports(c)
	c.doctor()
	c.check("after the faults")
	c.t.Logf("after the faults: imports, doctor and checks %v", time.Since(start).Round(time.Millisecond))
}

// killAfter draws when to kill a run of op: never, or a random point of
// the time op took when it was not killed (50 ms before it ever ran).
func (c *chaos) killAfter(op string, chance float64) time.Duration {
	return c.killAfterWith(c.r, op, chance)
}

// killAfterWith is killAfter drawing from r.
func (c *chaos) killAfterWith(r *rand.Rand, op string, chance float64) time.Duration {
	if r.Float64() >= chance {
		return -1
	}
	c.tookMu.Lock()
	span, ok := c.took[op]
	c.tookMu.Unlock()
	if !ok {
		span = 50 * time.Millisecond
	}
	return time.Duration(r.Float64() * float64(span)) // one draw, whatever the span: the plans of a seed stay the same
}

// noteTook keeps the running mean of how long op takes.
func (c *chaos) noteTook(op string, d time.Duration) {
	c.tookMu.Lock()
	defer c.tookMu.Unlock()
	if old, ok := c.took[op]; ok {
		d = (old*3 + d) / 4
	}
	c.took[op] = d
}

// chaosStats counts what a run did.
type chaosStats struct {
	mu                          sync.Mutex
	seeds, rounds, procs, kills int
	killsBy                     map[string]int
	procsBy                     map[string]int
	watcherKills, indexDeletes  int
	checks                      int
}

func (s *chaosStats) proc(op string, killed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.procsBy == nil {
		s.procsBy, s.killsBy = map[string]int{}, map[string]int{}
	}
	s.procs++
	s.procsBy[op]++
	if killed {
		s.kills++
		s.killsBy[op]++
	}
}

func (s *chaosStats) count(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

func (s *chaosStats) add(o *chaosStats) {
	s.seeds += o.seeds
	s.rounds += o.rounds
	s.procs += o.procs
	s.kills += o.kills
	s.watcherKills += o.watcherKills
	s.indexDeletes += o.indexDeletes
	s.checks += o.checks
	if s.procsBy == nil {
		s.procsBy, s.killsBy = map[string]int{}, map[string]int{}
	}
	for k, v := range o.procsBy {
		s.procsBy[k] += v
	}
	for k, v := range o.killsBy {
		s.killsBy[k] += v
	}
}

func (s *chaosStats) log(t *testing.T, what string) {
	var ops []string
	for op := range s.procsBy {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	var by []string
	for _, op := range ops {
		by = append(by, fmt.Sprintf("%s %d/%d", op, s.killsBy[op], s.procsBy[op]))
	}
	t.Logf("%s: %d rounds, %d processes, %d SIGKILLed, %d watchers killed, %d index deletions, %d read comparisons; killed/run by op: %s",
		what, s.rounds, s.procs, s.kills, s.watcherKills, s.indexDeletes, s.checks, strings.Join(by, ", "))
}
