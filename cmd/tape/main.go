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
	// wholeModel makes kong parse with its model of every command, as if
	// the arguments never named one plainly (parse.go): tests compare.
	wholeModel bool
	// noWatcher keeps reads from starting a watcher (watch_auto.go): the
	// demo's reads run from a binary that go run removes afterwards.
	noWatcher bool
}

// Context is the command's context, cancelled by SIGINT and SIGTERM.
func (e *Env) Context() context.Context { return e.ctx }

// tuneGC lets the heap grow to five times what is live before the first
// collection, instead of twice, unless the user set GOGC or GOMEMLIMIT:
// the first comes at 16 MiB instead of 4. Most commands run for
// milliseconds and allocate a few megabytes, and collecting at Go's
// default cost a search of a 1M-entry workspace a tenth of its time (21.9
// against 19.2 ms, docs/decisions/0013); with this they collect never. A command
// that allocates more is paced as by default from its first collection
// on, so one that keeps much live uses no more memory than by default.
//
// It replaced GOGC=400 under a 64 MiB soft limit, which collected without
// pause once a command kept more than the limit live (`tape context --all`
// of a 393 MB tape: 534 collections and 42.7 s against 28 and 27.9 s;
// review). Going back to the default only once the live heap passed a
// size was tried: what a collection finds live includes what is allocated
// while it runs, so on a busy machine a command with 2 MiB live was judged
// to have 16. A ballast (a large untouched allocation) would move the
// first collection too, but its own collection, right at the start, ran
// beside the whole of a search and tripled its CPU time.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	// An object whose finalizer runs after the first collection, which
	// finds it unreachable: it is never kept. It holds a pointer so that
	// it is not a tiny allocation, whose finalizer may wait for its
	// neighbours.
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) { debug.SetGCPercent(100) })
}

type gcSentinel struct{ _ *byte }
