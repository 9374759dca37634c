package mcp

import (
	"bytes"
	"io"
	"sync"

	"github.com/tape-dev/tape/redact"
)

// output is the server's output, written by the SDK (its answers and
// notifications) and by the input (its answers to the lines the SDK
// would refuse), a line at a time each, never one within another.
type output struct {
	mu      sync.Mutex
	w       io.Writer
	flight  *inFlight
	batches *batchRules
	partial []byte // the start of a line of the SDK's not yet ended
	// redactor replaces the secrets of every message written (nil: none
	// is): tool results, resources, anything a transcript's text reaches,
	// in the one place all of it leaves.
	redactor *redact.Redactor
}

// Write is the SDK's. Its transport writes a message and its newline in
// one call, under its own lock: a line ends within each call, and the
// input's answers come between them. It counts the answers written, for
// the end of the input to wait for (drain.go).
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.redactor == nil {
		n, err := o.w.Write(p)
		eachLine(&o.partial, p[:n], o.written)
		return n, err
	}
	if _, err := o.w.Write(redactLines(o.redactor, p)); err != nil {
		return 0, err
	}
	eachLine(&o.partial, p, o.written)
	return len(p), nil
}

// redactLines is p, JSON-RPC messages a line each, with the secrets of
// each line's strings replaced.
func redactLines(r *redact.Redactor, p []byte) []byte {
	out := make([]byte, 0, len(p))
	for line := range bytes.SplitAfterSeq(p, []byte("\n")) {
		body := bytes.TrimSuffix(line, []byte("\n"))
		red, _ := r.JSON(body)
		out = append(out, red...)
		if len(body) < len(line) {
			out = append(out, '\n')
		}
	}
	return out
}

func (o *output) written(line []byte) {
	got := answers(line)
	o.flight.answer(len(got))
	if len(line) > 0 && line[0] == '[' {
		o.batches.answered(got)
	}
}

// answer writes the input's answer to a line.
func (o *output) answer(e *rpcError) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(e.encode())
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
