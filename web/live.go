package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
)

// A live page: the page of a tape's newest entries opens a stream of
// Server-Sent Events (static/live.js), and the server sends what is
// written after what the page shows, as it is indexed: every Options.Poll
// it makes the index fresh by the one rule (with a running watcher, a
// barrier; else a catch-up of its own) and reads the entries past the
// stream's place. A place is an anchor folder and an offset in it, which
// appends never move (projector.EntryPage); when the folder ends and a
// new anchor follows, the stream goes on in it.
//
// Events:
//
//	entries  the new entries, as the page's HTML; its id is the place
//	         after them, which a reconnecting browser sends back
//	call     a call shown earlier, answered now: its block's HTML, to
//	         replace the one of the same id
//	reset    the entries the page shows are no longer the tape's (tape
//	         reset, a file rewritten): the page says to reload

// liveBatch is the most entries one event carries; more wait for the next
// look, so that a burst is sent a page at a time.
const liveBatch = 500

// liveSeed is the most entries before its place a stream folds first, to
// pair the results it sends with the calls the page shows.
const liveSeed = entriesPage

// liveURL is the stream of the page that shows folder's entries from
// offset from up to offset after.
func liveURL(tape, folder string, from, after int) string {
	return tapeURL(tape) + "/live?" + url.Values{"folder": {folder}, "from": {strconv.Itoa(from)}, "after": {strconv.Itoa(after)}}.Encode()
}

// place is where a stream is: the offset in an anchor folder of the first
// entry it has not sent.
type place struct {
	folder string
	offset int
}

func (p place) String() string { return p.folder + "/" + strconv.Itoa(p.offset) }

func parsePlace(s string) (place, bool) {
	folder, off, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(off)
	if _, _, valid := tapelog.ParseFolderName(folder); !ok || !valid || err != nil || n < 0 {
		return place{}, false
	}
	return place{folder, n}, true
}

func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	tape, err := tapeParam(r.PathValue("tape"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	at, ok := parsePlace(q.Get("folder") + "/" + q.Get("after"))
	from, err := strconv.Atoi(q.Get("from"))
	if !ok || err != nil || from < 0 || from > at.offset {
		s.fail(w, r, badRequest("a live stream needs folder (NNN_slug), from and after (offsets, from ≤ after): the tape's page gives them"))
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" { // a reconnect
		resumed, ok := parsePlace(last)
		if !ok {
			s.fail(w, r, badRequest("Last-Event-ID %q: want folder/offset, as the stream sent it", last))
			return
		}
		if resumed.folder != at.folder {
			from = 0
		}
		at = resumed
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, r, fmt.Errorf("this connection cannot stream"))
		return
	}
	c := newChat(tape)
	if _, err := s.seed(r.Context(), tape, at, from, c); err != nil {
		s.fail(w, r, err)
		return
	}
	s.streams.Add(1)
	defer s.streams.Add(-1)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	flusher.Flush()
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		ended, err := s.sendNew(r.Context(), w, tape, &at, c)
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			if s.opts.Log != nil {
				s.opts.Log.Error("live stream", "tape", tape, "err", err)
			}
			continue // the next look tries again
		}
		flusher.Flush()
		if ended {
			return
		}
	}
}

// seed folds the entries the page shows before at (the last liveSeed of
// them from from), so that results sent later fold into their calls.
func (s *Server) seed(ctx context.Context, tape string, at place, from int, c *chat) (bool, error) {
	start := max(from, at.offset-liveSeed)
	if at.offset == start {
		return true, nil
	}
	entries, err := read(ctx, s, func(ix *projector.Projector) ([]tapelog.Entry, error) {
		es, _, _, err := ix.EntryPage(ctx, projector.EntryFilter{Tape: tape, Folders: []string{at.folder}}, views.Page{Limit: at.offset - start, Offset: start})
		return es, err
	})
	c.add(entries)
	return true, err
}

// batch is what one look found past a stream's place.
type batch struct {
	entries []tapelog.Entry
	next    place
	reset   bool
}

// sendNew sends what was written past at, and moves at past it; ended
// is true when the stream sent reset and is done.
func (s *Server) sendNew(ctx context.Context, w io.Writer, tape string, at *place, c *chat) (ended bool, err error) {
	b, err := read(ctx, s, func(ix *projector.Projector) (batch, error) { return readPast(ctx, ix, tape, *at) })
	if err != nil {
		return false, err
	}
	if b.reset {
		fmt.Fprint(w, "event: reset\ndata: reload\n\n")
		return true, nil
	}
	*at = b.next
	if len(b.entries) == 0 {
		return false, nil
	}
	items := c.add(b.entries)
	var html bytes.Buffer
	for _, it := range items {
		if err := s.pages["tape"].ExecuteTemplate(&html, "item", it); err != nil {
			return false, err
		}
	}
	writeEvent(w, "entries", at.String(), html.Bytes())
	for _, cv := range c.changed {
		html.Reset()
		if err := s.pages["tape"].ExecuteTemplate(&html, "call", cv); err != nil {
			return false, err
		}
		writeEvent(w, "call", "", html.Bytes())
	}
	return false, nil
}

// readPast reads up to liveBatch entries past at: the rest of its folder,
// then those of the anchors after it.
func readPast(ctx context.Context, ix *projector.Projector, tape string, at place) (batch, error) {
	b := batch{next: at}
	for len(b.entries) < liveBatch {
		f := projector.EntryFilter{Tape: tape, Folders: []string{b.next.folder}}
		entries, total, _, err := ix.EntryPage(ctx, f, views.Page{Limit: liveBatch - len(b.entries), Offset: b.next.offset})
		if err != nil {
			return b, err
		}
		if total < b.next.offset {
			return batch{reset: true}, nil
		}
		b.entries = append(b.entries, entries...)
		covered := min(liveBatch-len(b.entries)+len(entries), total-b.next.offset)
		b.next.offset += covered
		if b.next.offset < total {
			return b, nil // more in this folder: the next look
		}
		// The next anchor, in the order of folder names, which is tape
		// order for the first 999 anchors.
		after, err := ix.AnchorsAfter(ctx, tape, b.next.folder, 1)
		if err != nil || len(after) == 0 || after[0].Entry.Pos.Tape != tape {
			return b, err
		}
		b.next = place{folder: after[0].Folder}
	}
	return b, nil
}

// writeEvent writes one Server-Sent Event: each line of data on a data
// field of its own.
func writeEvent(w io.Writer, event, id string, data []byte) {
	var b bytes.Buffer
	b.WriteString("event: " + event + "\n")
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteString("\n")
	}
	b.WriteString("\n")
	w.Write(b.Bytes())
}
