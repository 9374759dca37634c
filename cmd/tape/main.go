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
// collection, instead of twice, under a soft limit of 64 MiB, unless the
// user set GOGC or GOMEMLIMIT. Most commands run for milliseconds and
// allocate a few megabytes: collecting at Go's default cost a search of a
// 1M-entry workspace a tenth of its time (21.9 against 19.2 ms, BENCHMARKS.md).
// Long runs (a rebuild keeps about 30 MiB live) reach the limit, where
// the collector works as often as the default would have.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(64 << 20)
	}
}
