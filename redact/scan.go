package redact

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
)

// Entry is e with the secrets of its payload and meta replaced, and what
// was found; e itself when nothing was.
func (r *Redactor) Entry(e tapelog.Entry) (tapelog.Entry, []Finding) {
	s := r.scanEntry(e)
	if len(s.found) == 0 {
		return e, nil
	}
	rep := NewReplacer(s.found, Forms)
	e.Payload = rewriteJSON(e.Payload, s.payload, s.payloadTexts, rep, maxNesting)
	e.Meta = rewriteJSON(e.Meta, s.meta, s.metaTexts, rep, maxNesting)
	return e, s.found
}

// entryScan is what scanEntry read of an entry: its strings, where they
// are, and the secrets they hold.
type entryScan struct {
	payload, meta           [][2]int
	payloadTexts, metaTexts []string
	found                   []Finding
}

// scanEntry finds the secrets of an entry's payload and meta, both in one
// pass: Entry rewrites what it finds, Snippet and a scan of tapes only
// want it.
func (r *Redactor) scanEntry(e tapelog.Entry) entryScan {
	var s entryScan
	s.payload, s.payloadTexts = stringsOf(e.Payload)
	s.meta, s.metaTexts = stringsOf(e.Meta)
	s.found = r.FindAll(withNested(append(slices.Clip(s.payloadTexts), s.metaTexts...), maxNesting))
	return s
}

// Snippet is a search's snippet of entry e with the secrets of e
// replaced, whole or cut short by the snippet's ends, and its **marks**
// taken out when it had one (a mark can split a secret in two, which no
// rule then finds); the snippet as it is when e holds none.
func (r *Redactor) Snippet(snippet string, e tapelog.Entry) string {
	var plain strings.Builder
	for _, span := range searchlang.SnippetSpans(snippet) {
		plain.WriteString(span.Text)
	}
	found := append(r.scanEntry(e).found, r.Find(plain.String())...)
	if len(found) == 0 {
		return snippet
	}
	return Replace(plain.String(), Dedupe(found))
}

// Entries replaces the secrets of entries in place, on every core, and
// returns how many secrets it replaced.
func (r *Redactor) Entries(entries []tapelog.Entry) int {
	var total atomic.Int64
	onEveryCore(len(entries), func(i int) {
		var found []Finding
		entries[i], found = r.Entry(entries[i])
		total.Add(int64(len(found)))
	})
	return int(total.Load())
}

// onEveryCore calls fn for each of n items, on as many goroutines as
// there are CPUs, taking the items a chunk at a time.
func onEveryCore(n int, fn func(i int)) {
	const chunk = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(chunk)) - chunk
				if i >= n {
					return
				}
				for j := i; j < min(i+chunk, n); j++ {
					fn(j)
				}
			}
		})
	}
	wg.Wait()
}

// Place is where a secret is: never the secret.
type Place struct {
	Tape      string
	Anchor    string // the anchor folder, "002_plan"
	ID        string // the entry's id
	EntryKind string // message, tool_call...
	Date      string
	File      string // the entry's file, relative to the workspace
	Line      int
	Kind      string // the secret's kind
}

// ScanTapes finds the secrets of the named tapes, reading their files, on
// as many goroutines as there are CPUs; fn gets each tape's places in the
// order of names, its entries in order. A line of a tape that cannot be
// read is skipped (tape doctor names it); any other error ends the scan.
func (r *Redactor) ScanTapes(ctx context.Context, ws *tapelog.Workspace, names []string, fn func([]Place) error) error {
	type result struct {
		places []Place
		err    error
		done   chan struct{}
	}
	results := make([]*result, len(names))
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				res := results[i]
				res.places, res.err = r.scanTape(ctx, ws, names[i])
				close(res.done)
			}
		})
	}
	go func() {
		defer close(next)
		for i := range names {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for _, res := range results {
		select {
		case <-res.done: // res is the worker's no more
			if err = res.err; err == nil {
				err = fn(res.places)
			}
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	cancel()
	wg.Wait()
	return err
}

// scanTape finds the secrets of one tape, a batch of entries at a time
// on every core (a workspace of one long tape scans as fast as one of
// many).
func (r *Redactor) scanTape(ctx context.Context, ws *tapelog.Workspace, name string) ([]Place, error) {
	t, err := ws.Tape(name)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var places []Place
	batch := make([]tapelog.Entry, 0, scanBatch)
	flush := func() {
		places = append(places, r.placesOf(name, batch)...)
		batch = batch[:0]
	}
	for e, err := range t.All(ctx) {
		var le *tapelog.LineError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read tape %s: %w", name, err)
		}
		if batch = append(batch, e); len(batch) == scanBatch {
			flush()
		}
	}
	flush()
	return places, nil
}

// scanBatch is how many entries of a tape are scanned at once.
const scanBatch = 2048

// placesOf is where the secrets of entries are, in their order.
func (r *Redactor) placesOf(tape string, entries []tapelog.Entry) []Place {
	found := make([][]Finding, len(entries))
	onEveryCore(len(entries), func(i int) { found[i] = r.scanEntry(entries[i]).found })
	var places []Place
	for i, e := range entries {
		for _, f := range found[i] {
			places = append(places, Place{Tape: tape, Anchor: e.Pos.Folder, ID: e.ID, EntryKind: e.Kind, Date: e.Date,
				File: e.Pos.Path(), Line: e.Pos.Line, Kind: f.Kind})
		}
	}
	return places
}
