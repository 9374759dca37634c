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
	"syscall"
)

func main() {
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
