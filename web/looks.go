package web

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tape-dev/tape/projector"
)

// looks makes the index fresh once per Options.Poll while live streams
// are open, and hands each look's version of the index to the streams:
// the cost of a look is the server's, not each open page's, and a stream
// reads the index only when it changed. 200 idle streams of one tape
// took 0.33 of a core reading it at every look, 0.005 with this (issue
// 29).
type looks struct {
	mu      sync.Mutex
	open    int
	woken   chan struct{} // closed after the next look
	version indexVersion  // the last look's
	stop    context.CancelFunc
	// done counts the looks, and reads the streams' reads of the index
	// (tests compare them).
	done, reads atomic.Int64
}

// indexVersion names the index as a look found it: its generation,
// SQLite's data_version, which moves when any other connection commits
// (a watcher's, or a catch-up beside of this server's:
// projector.DataVersion), and how many batches the passes on the
// server's own connection applied (an index it made anew is caught up on
// that one: Server.passes). A look that could not read it has a version
// of its own (failed).
type indexVersion struct {
	generation string
	data       int64
	passes     uint64
	failed     uint64
}

// idleReads is how many looks a stream lets pass without reading while
// the index's version stays (30 s at DefaultPoll): no change is known to
// move none of the version's parts, and should one, it waits this long.
const idleReads = 100

// join adds a stream: next is the channel the next look closes, and
// leave removes the stream (the last one stops the looks).
func (l *looks) join(s *Server) (next func() <-chan struct{}, leave func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == 0 {
		ctx, cancel := context.WithCancel(context.Background())
		l.stop, l.woken = cancel, make(chan struct{})
		go l.run(ctx, s)
	}
	l.open++
	next = func() <-chan struct{} {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.woken
	}
	leave = func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.open--; l.open == 0 {
			l.stop()
		}
	}
	return next, leave
}

func (l *looks) run(ctx context.Context, s *Server) {
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	var n uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		n++
		v, err := served(ctx, s, func(ix *projector.Projector) (indexVersion, error) {
			data, err := ix.DataVersion(ctx)
			return indexVersion{generation: ix.Generation(), data: data, passes: s.passes.Load()}, err
		})
		if ctx.Err() != nil {
			return // stopped: a stream that joins now has looks of its own
		}
		if err != nil {
			if s.opts.Log != nil {
				s.opts.Log.Error("live look", "err", err)
			}
			v = indexVersion{failed: n}
		}
		l.done.Add(1)
		l.mu.Lock()
		l.version = v
		close(l.woken)
		l.woken = make(chan struct{})
		l.mu.Unlock()
	}
}

// current is the version the last look found. A stream woken by a look
// reads it before it reads the index, which is then at least as new.
func (l *looks) current() indexVersion {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}
