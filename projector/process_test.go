package projector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/short"
)

// TestMain lets the test binary stand in for other processes (decision
// 0015): a pass of the projector (TAPE_TEST_PASS) and a writer of sessions
// (TAPE_TEST_SESSIONS), so that the kill tests run real processes without
// a separate build.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("TAPE_TEST_PASS") != "":
		os.Exit(passProcess(os.Getenv("TAPE_TEST_PASS")))
	case os.Getenv("TAPE_TEST_SESSIONS") != "":
		os.Exit(sessionsProcess(os.Getenv("TAPE_TEST_SESSIONS")))
	}
	os.Exit(m.Run())
}

// passProcess runs one pass over a workspace, as a read command or tape
// reindex does, and may kill itself with SIGKILL on the way. spec is
// "<workspace>,<kind>,<kill>": kind is catch-up, rebuild or beside (a
// search's catch-up, beside its read); kill is a number of entries, once
// the pass has added that many it is killed, if it gets that far (0:
// never), or "copy": a rebuild is killed as it starts to copy in the
// search index it built beside, the largest write of a pass.
func passProcess(spec string) int {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		fmt.Fprintf(os.Stderr, "TAPE_TEST_PASS=%q: want <workspace>,<kind>,<kill>\n", spec)
		return 2
	}
	killAt, _ := strconv.Atoi(parts[2])
	die := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	ws, err := tapelog.Open(parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ws.Close()
	ctx := context.Background()
	p, err := Open(ctx, ws)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer p.Close()
	p.OnProgress = func(st Stats) {
		if killAt > 0 && st.Entries >= killAt {
			die()
		}
	}
	if parts[2] == "copy" {
		p.beforeCopy = func(context.Context, sqlTx) error { die(); return nil }
	}
	switch parts[1] {
	case "catch-up":
		_, err = p.CatchUp(ctx)
	case "rebuild":
		_, err = p.Rebuild(ctx)
	case "beside":
		_, err = p.CatchUpBeside(ctx, LockWait, p.ReadStateRecord(ctx))
	default:
		err = fmt.Errorf("no pass %q", parts[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// sessionsProcess changes a workspace as sessionMutator does, in steps:
// each line it reads holds how many to take next. It stops at the end of
// its input, or when it is killed. spec is
// "<workspace>,<seed>,<prefix>,<first session>,<one tape>".
func sessionsProcess(spec string) int {
	parts := strings.Split(spec, ",")
	if len(parts) != 5 {
		fmt.Fprintf(os.Stderr, "TAPE_TEST_SESSIONS=%q: want <workspace>,<seed>,<prefix>,<first session>,<one tape>\n", spec)
		return 2
	}
	seed, _ := strconv.ParseUint(parts[1], 10, 64)
	next, _ := strconv.Atoi(parts[3])
	ws, err := tapelog.Open(parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ws.Close()
	ws.DeferSyncs() // it is killed anyway; the test needs no fsync
	m := newSessionMutator(processTB{}, rand.New(rand.NewPCG(seed, 18)), ws)
	m.prefix, m.next, m.oneTape = parts[2], next, parts[4]
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, _ := strconv.Atoi(in.Text())
		for range n {
			m.step()
		}
	}
	return 0
}

// processTB is the testing.TB of a process that stands in for a writer:
// Fatal ends the process with its message. It implements only what
// sessionMutator calls; the embedded nil TB makes any other call panic,
// which ends the process too.
type processTB struct{ testing.TB }

func (processTB) Helper() {}

func (processTB) Fatal(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(1)
}

// testProcess returns a command that runs the test binary as another
// process, with env set, killed if it runs past ctx.
func testProcess(ctx context.Context, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// killedBySIGKILL reports whether a process ended by SIGKILL.
func killedBySIGKILL(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	status, ok := exit.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == syscall.SIGKILL
}

// sessionWriter is a writer process the test feeds steps to.
type sessionWriter struct {
	cmd    *exec.Cmd
	steps  io.WriteCloser
	stderr strings.Builder
}

func startSessionWriter(t *testing.T, ctx context.Context, spec string) *sessionWriter {
	t.Helper()
	w := &sessionWriter{cmd: testProcess(ctx, "TAPE_TEST_SESSIONS="+spec)}
	w.cmd.Stderr = &w.stderr
	var err error
	if w.steps, err = w.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // never leave a writer behind, even when the test fails
		w.cmd.Process.Kill()
		w.cmd.Wait()
	})
	return w
}

// take has the writer take n more steps, while the test goes on.
func (w *sessionWriter) take(t *testing.T, n int) {
	t.Helper()
	if _, err := fmt.Fprintln(w.steps, n); err != nil {
		t.Fatalf("writer: %v: %s", err, w.stderr.String())
	}
}

// kill ends the writer with SIGKILL, wherever it is in its steps, and
// fails the test if it had failed before.
func (w *sessionWriter) kill(t *testing.T) {
	t.Helper()
	w.cmd.Process.Signal(syscall.SIGKILL)
	if err := w.cmd.Wait(); err != nil && !killedBySIGKILL(err) {
		t.Fatalf("writer: %v: %s", err, w.stderr.String())
	}
}

// killedPass is a pass of TestKilledPassesConverge and how it is killed:
// after a random number of entries (by itself), as a rebuild starts to copy in
// its search index (by itself), at a random time (by the test), or not.
type killedPass struct{ kind, kill string }

var killedPasses = []killedPass{
	{"rebuild", "entries"}, {"catch-up", "entries"}, {"rebuild", "copy"}, {"beside", "entries"},
	{"catch-up", "time"}, {"rebuild", "time"}, {"catch-up", ""}, {"beside", "entries"},
}

// run runs the pass in a process of its own and reports whether it was
// killed.
func (k killedPass) run(t *testing.T, ctx context.Context, r *rand.Rand, dir string) (string, bool) {
	t.Helper()
	kill, delay, plan := "0", time.Duration(0), "to finish"
	switch k.kill {
	case "entries": // a rebuild adds every entry, a catch-up those written since the last
		kill = fmt.Sprint(1 + r.IntN(map[string]int{"rebuild": 5000, "catch-up": 100, "beside": 100}[k.kind]))
		plan = "to die at " + kill + " entries"
	case "copy":
		kill, plan = "copy", "to die at the copy"
	case "time":
		delay = time.Duration(r.IntN(300)) * time.Millisecond
		plan = fmt.Sprint("to be killed after ", delay)
	}
	cmd := testProcess(ctx, fmt.Sprintf("TAPE_TEST_PASS=%s,%s,%s", dir, k.kind, kill))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if k.kill == "time" {
		time.Sleep(delay) // a random point of the pass, not a wait for something
		cmd.Process.Signal(syscall.SIGKILL)
	}
	err := cmd.Wait()
	what := fmt.Sprintf("%s %s (%v, %v)", k.kind, plan, cmd.ProcessState, time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil { // killed by the deadline, not by the test: it hung
		t.Fatalf("%s: did not end before the test's deadline: %s", what, out.String())
	}
	if err != nil && !killedBySIGKILL(err) {
		t.Fatalf("%s: %v: %s", what, err, out.String())
	}
	return what, err != nil
}

// Passes of the projector killed with SIGKILL at random points, in
// processes of their own, while writer processes change the files, on one
// large tape and on many small ones: writers append through tape and by
// hand, write lines in parts, hand off, and on many tapes start sessions
// and remove and copy them. Once the writers are killed too, one catch-up
// brings the index to what a full rebuild of the same files gives.
func TestKilledPassesConverge(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	for _, shape := range []struct {
		name    string
		oneTape string                                // the one tape of the shape; "" for many
		start   func(t *testing.T, m *sessionMutator) // what a writer's part of the workspace starts with
	}{
		{"one tape", "main", func(t *testing.T, m *sessionMutator) {
			m.newSession()
			tp := m.tape("main")
			defer tp.Close()
			if _, err := tp.Append(context.Background(), m.entries(short.Sized(2000, 200))...); err != nil {
				t.Fatal(err)
			}
		}},
		{"many tapes", "", func(t *testing.T, m *sessionMutator) {
			for range short.Sized(50, 8) {
				m.newSession()
			}
		}},
	} {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel() // each shape on a workspace of its own
			const seed, writers = 1, 2
			ws := newWorkspace(t)
			done := ws.DeferSyncs()
			defer done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var procs []*sessionWriter
			for w := range writers { // each writer changes only its own tapes, whose names it starts
				m := newSessionMutator(t, rand.New(rand.NewPCG(seed, uint64(w))), ws)
				m.prefix, m.oneTape = fmt.Sprintf("w%d-", w), shape.oneTape
				shape.start(t, m)
				spec := fmt.Sprintf("%s,%d,%s,1000,%s", ws.Dir(), seed*100+uint64(w), m.prefix, shape.oneTape)
				procs = append(procs, startSessionWriter(t, ctx, spec))
			}
			r := rand.New(rand.NewPCG(seed, 42))
			var passes []string
			killed := 0
			for _, k := range killedPasses {
				for _, w := range procs {
					w.take(t, short.Sized(10, 4)+r.IntN(short.Sized(30, 10)))
				}
				what, wasKilled := k.run(t, ctx, r, ws.Dir())
				passes = append(passes, what)
				if wasKilled {
					killed++
				}
			}
			for _, w := range procs { // killed in their last steps
				w.take(t, short.Sized(20, 8))
			}
			for _, w := range procs {
				w.kill(t)
			}
			if killed == 0 {
				t.Fatalf("no pass was killed: %v", passes)
			}
			p := openProjector(t, ws)
			st := catchUp(t, p)
			t.Logf("passes %v; the catch-up: %+v", passes, st)
			if got, want := everything(t, p, vocabulary, nil), rebuiltEverything(t, ws, vocabulary, nil); got != want {
				t.Fatalf("seed %d: after the passes %v, and a catch-up, the index is not a rebuild's:\n%s", seed, passes, firstDiff(got, want))
			}
		})
	}
}
