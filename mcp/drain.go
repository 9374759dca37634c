package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
)

// A client that writes its requests and closes its end, as a shell pipe
// or a script does (`printf '...' | tape mcp`), must get every answer. The
// SDK cancels the calls in flight when its input ends, and the answers of
// the calls it had read were lost. So the server's input ends only once
// every request read from it has been answered on its output: the input
// (input.go) counts the requests it passes to the SDK, the output the
// answers the SDK writes, and the input holds back its end until they
// match, or the client stops waiting (ctx), or drainWait has passed.

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

// eachLine calls fn with each line ended in data, after the start of a
// line held in partial, and keeps in partial the start of the line data
// does not end.
func eachLine(partial *[]byte, data []byte, fn func(line []byte)) {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			*partial = append(*partial, data...)
			return
		}
		line := data[:i]
		if len(*partial) > 0 {
			line = append(*partial, line...)
			*partial = (*partial)[:0]
		}
		fn(line)
		data = data[i+1:]
	}
}

// rpcMessage is what tells a JSON-RPC message's kind.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// isAnswer reports whether m is a response: an id, and no method.
func (m rpcMessage) isAnswer() bool { return m.Method == "" && len(m.ID) > 0 }

// answers are the responses a line the SDK wrote holds: one message, or
// a batch's answers as an array.
func answers(line []byte) []rpcMessage {
	var ms []rpcMessage
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &ms) != nil {
			return nil
		}
	} else {
		var m rpcMessage
		if json.Unmarshal(line, &m) != nil {
			return nil
		}
		ms = []rpcMessage{m}
	}
	kept := ms[:0]
	for _, m := range ms {
		if m.isAnswer() {
			kept = append(kept, m)
		}
	}
	return kept
}
