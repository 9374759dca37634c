// Command tape is the command-line interface of tape, the event-sourced
// store for AI-agent sessions: people use it in a terminal, and agents call
// it as a subprocess and read its stdout.
//
// Each command lives in its own file (cmd_<name>.go) as a kong struct with a
// Run method; errors become exit codes in one place, exitcodes.go.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
)

func main() {
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal kills at once
	}()
	code := run(ctx, os.Args[1:], &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// Env is what a command reads and writes besides its flags: the standard
// streams and the folder it runs in. Tests run commands with buffers.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Dir    string // the working folder; "" means the process's
	ctx    context.Context
	color  palette // how human output is colored, from --color and Stdout
}

// Context is the command's context, cancelled by SIGINT and SIGTERM.
func (e *Env) Context() context.Context { return e.ctx }

// tuneGC lets the heap grow to five times what is live before a
// collection, instead of twice, while little is live, unless the user set
// GOGC or GOMEMLIMIT. Most commands run for milliseconds and allocate a
// few megabytes: collecting at Go's default cost a search of a 1M-entry
// workspace a tenth of its time (21.9 against 19.2 ms, BENCHMARKS.md).
// After the first collection that finds more than gcLiveCap live, it is
// Go's default again, so a command that keeps much live uses no more
// memory than by default.
//
// It replaced GOGC=400 under a 64 MiB soft limit, which collected without
// pause once a command kept more than the limit live (`tape context --all`
// of a 393 MB tape: 534 collections and 42.7 s against 28 and 27.9 s;
// review). A ballast (a large untouched allocation) would move the first
// collection too, but its own collection, right at the start, ran beside
// the whole of a search and tripled its CPU time.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	watchLiveHeap()
}

// gcLiveCap is the live heap past which tuneGC gives the default back.
const gcLiveCap = 16 << 20

// gcSentinel is an object whose finalizer runs after each collection that
// finds it unreachable, that is, after every collection: it is never kept.
// It holds a pointer so that it is not a tiny allocation, whose finalizer
// may wait for its neighbours.
type gcSentinel struct{ _ *byte }

// watchLiveHeap checks the live heap after the next collection, and again
// after each until it passes gcLiveCap; then it sets GOGC back to 100.
func watchLiveHeap() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		// The goal a collection sets is five times what it found live (or
		// 16 MiB, at least): the heap in use just after it still holds
		// what is not swept yet, and said 16 MiB for 2 MiB live (review).
		// (ReadMemStats, not runtime/metrics, whose package init alone
		// costs every command a tenth of a millisecond.)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.NextGC > 5*gcLiveCap {
			debug.SetGCPercent(100)
			return
		}
		watchLiveHeap()
	})
}
