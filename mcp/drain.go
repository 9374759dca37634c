package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// A client that writes its requests and closes its end, as a shell pipe
// or a script does (`printf '...' | tape mcp`), must get every answer. The
// SDK cancels the calls in flight when its input ends, and the answers of
// the calls it had read were lost. So the server's input ends only once
// every request read from it has been answered on its output: drainIn
// counts the requests that pass, drainOut the answers, and drainIn holds
// back the end of its input until they match, or the client stops
// waiting (ctx), or drainWait has passed.
//
// MCP over stdio is one JSON-RPC message a line, so both count lines.

// drainWait bounds how long the end of the input waits for answers: a
// request the server never answers (one the client cancelled) must not
// keep it open.
const drainWait = 30 * time.Second

// inFlight counts the requests read and the answers written.
type inFlight struct {
	mu       sync.Mutex
	asked    int
	answered int
	changed  chan struct{} // closed and replaced when answered grows
}

func newInFlight() *inFlight { return &inFlight{changed: make(chan struct{})} }

func (f *inFlight) ask(n int) {
	f.mu.Lock()
	f.asked += n
	f.mu.Unlock()
}

func (f *inFlight) answer(n int) {
	if n == 0 {
		return
	}
	f.mu.Lock()
	f.answered += n
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

// wait returns when every request asked is answered, ctx is done, or
// drainWait has passed.
func (f *inFlight) wait(ctx context.Context) {
	deadline := time.NewTimer(drainWait)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		done, changed := f.answered >= f.asked, f.changed
		f.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		}
	}
}

// drainIn is the server's input: it counts the requests in the lines
// that pass, and holds back the end of the input until they are answered.
type drainIn struct {
	ctx     context.Context
	r       io.Reader
	flight  *inFlight
	partial []byte // the start of a line not yet ended
}

func (d *drainIn) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.flight.ask(countLines(&d.partial, p[:n], isRequest))
	if errors.Is(err, io.EOF) {
		if len(d.partial) > 0 && isRequest(d.partial) { // a last line without its newline
			d.flight.ask(1)
			d.partial = nil
		}
		d.flight.wait(d.ctx)
	}
	return n, err
}

// drainOut is the server's output: it counts the answers written.
type drainOut struct {
	w       io.Writer
	flight  *inFlight
	partial []byte
}

func (d *drainOut) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	d.flight.answer(countLines(&d.partial, p[:n], isAnswer))
	return n, err
}

// countLines counts the lines ended in data, after the start of a line
// held in partial, for which is reports true, and keeps the start of the
// line data does not end.
func countLines(partial *[]byte, data []byte, is func([]byte) bool) int {
	count := 0
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			*partial = append(*partial, data...)
			return count
		}
		line := data[:i]
		if len(*partial) > 0 {
			line = append(*partial, line...)
			*partial = (*partial)[:0]
		}
		if is(line) {
			count++
		}
		data = data[i+1:]
	}
}

// rpcMessage is what tells a JSON-RPC message's kind.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// isRequest reports whether line is a request: a method, and an id.
func isRequest(line []byte) bool {
	var m rpcMessage
	return json.Unmarshal(line, &m) == nil && m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}

// isAnswer reports whether line is a response: an id, and no method.
func isAnswer(line []byte) bool {
	var m rpcMessage
	return json.Unmarshal(line, &m) == nil && m.Method == "" && len(m.ID) > 0
}
