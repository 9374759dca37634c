package web

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
)

// A live page: the page of a tape's newest entries opens a stream of
// Server-Sent Events (static/live.js), and the server sends what is
// written after what the page shows, as it is indexed. While streams are
// open, the server looks every Options.Poll: it makes the index fresh
// once, by the one rule (with a running watcher, a barrier; else a
// catch-up of its own), and each stream then reads the entries past its
// place if the index changed since its last read (looks.go). The server
// follows at most Options.MaxStreams pages at once; one more is answered
// 503 with Retry-After, and the page tries again later.
//
// A place is an anchor folder, an offset in it and the id of the entry
// before that offset. Appends at the end of a folder never move an offset
// (projector.EntryPage); a line that sorts before entries already sent
// (a file whose dates run behind another's), a reset, or a rewritten file
// do, and the id no longer matches: the stream says reset. When a folder
// ends and a later anchor exists (projector.NextAnchor, tape order), the
// stream goes on in it.
//
// Events:
//
//	entries  the new entries, as the page's HTML; its id is the place
//	         after them (place.String: the entry id percent-encoded),
//	         which a reconnecting browser sends back
//	call     a call shown earlier, answered now: its block's HTML, to
//	         replace the one of the same id
//	reset    the entries the page shows are no longer the tape's, in
//	         its order (a reset, a rewritten file, a line that sorts
//	         before those sent): the page says to reload

// liveBatch is the most entries one event carries; more wait for the next
// look, so that a burst is sent a page at a time.
const liveBatch = 500

// liveSeed is the most entries before its place a stream folds first, to
// pair the results it sends with the calls the page shows.
const liveSeed = entriesPage

// liveURL is the stream of a page that shows the entries of at's folder
// from offset from up to at.
func liveURL(tape string, at place, from int) string {
	return tapeURL(tape) + "/live?" + url.Values{"at": {at.String()}, "from": {strconv.Itoa(from)}}.Encode()
}

// place is where a stream is: the offset in an anchor folder of the first
// entry it has not sent, and the id of the entry before it ("" for none:
// at offset 0, or after a line that could not be read).
type place struct {
	folder string
	offset int
	id     string
}

// String is the place as the stream's event id and the page's ?at= carry
// it: folder/offset/id, the id percent-encoded. An entry's id is any
// string a writer chose; written as it is, a line break in it would end
// the event's id field and start a field of the writer's choosing (a
// data line the page inserts as HTML). Encoded, it is printable ASCII.
func (p place) String() string {
	return p.folder + "/" + strconv.Itoa(p.offset) + "/" + url.PathEscape(p.id)
}

// parsePlace reads a place as String writes it; the id is last, as it may
// hold a slash.
func parsePlace(s string) (place, bool) {
	folder, rest, ok1 := strings.Cut(s, "/")
	off, escaped, ok2 := strings.Cut(rest, "/")
	n, err := strconv.Atoi(off)
	id, err2 := url.PathUnescape(escaped)
	if _, _, valid := tapelog.ParseFolderName(folder); !ok1 || !ok2 || !valid || err != nil || err2 != nil || n < 0 || (n == 0 && id != "") {
		return place{}, false
	}
	return place{folder, n, id}, true
}

func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	tape, err := tapeParam(r.PathValue("tape"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if s.streams.Add(1) > int64(s.opts.MaxStreams) {
		s.streams.Add(-1)
		w.Header().Set("Retry-After", strconv.Itoa(streamRetry))
		s.fail(w, r, &httpError{http.StatusServiceUnavailable, fmt.Sprintf(
			"tape serve follows %d live pages at once, and that many are open: this page tries again in a while", s.opts.MaxStreams)})
		return
	}
	defer s.streams.Add(-1)
	q := r.URL.Query()
	at, ok := parsePlace(q.Get("at"))
	from, err := strconv.Atoi(cmp.Or(q.Get("from"), "0"))
	if !ok || err != nil || from < 0 || from > at.offset {
		s.fail(w, r, badRequest("a live stream needs at (folder/offset/id) and from (an offset, at most at's): the tape's page gives them"))
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" { // a reconnect
		resumed, ok := parsePlace(last)
		if !ok {
			s.fail(w, r, badRequest("Last-Event-ID %q: want folder/offset/id, as the stream sent it", last))
			return
		}
		if resumed.folder != at.folder {
			from = 0
		}
		at = resumed
	}
	c := newChat(tape)
	if err := s.seed(r.Context(), tape, at, from, c); err != nil {
		s.fail(w, r, err)
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		s.fail(w, r, fmt.Errorf("this connection cannot stream"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	s.stream(r.Context(), w, http.NewResponseController(w), tape, at, c)
}

// stream sends what each look finds past at until the client goes away
// or the tape changes under it. It reads the index only at the looks that
// found it changed since its last read, and at every idleReads-th look.
func (s *Server) stream(ctx context.Context, w io.Writer, rc *http.ResponseController, tape string, at place, c *chat) {
	next, leave := s.looks.join(s)
	defer leave()
	flush := func() error {
		// Each event gets Timeouts.Write to be written: the server's
		// WriteTimeout counts from the request, and the stream lasts.
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.Timeouts.Write))
		return rc.Flush()
	}
	fmt.Fprint(w, "retry: 2000\n\n")
	if flush() != nil {
		return
	}
	var seen indexVersion // at the stream's last read
	skipped := 0
	for {
		var v indexVersion
		select {
		case <-ctx.Done():
			return
		case <-next():
			v = s.looks.current()
		}
		if v == seen && skipped < idleReads {
			skipped++
			continue
		}
		seen, skipped = v, 0
		s.looks.reads.Add(1)
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.Timeouts.Write))
		ended, err := s.sendNew(ctx, w, tape, &at, c)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if s.opts.Log != nil {
				s.opts.Log.Error("live stream", "tape", tape, "err", err)
			}
			seen = indexVersion{} // the next look tries again
			continue
		}
		if flush() != nil || ended {
			return
		}
	}
}

// seed checks that at's folder is one of the tape's, and folds the
// entries the page shows before at (the last liveSeed of them from
// from), so that results sent later fold into their calls.
func (s *Server) seed(ctx context.Context, tape string, at place, from int, c *chat) error {
	start := max(from, at.offset-liveSeed)
	entries, err := served(ctx, s, func(ix *projector.Projector) ([]tapelog.Entry, error) {
		f := projector.EntryFilter{Tape: tape, Folders: []string{at.folder}}
		es, total, _, err := ix.EntryPage(ctx, f, views.Page{Limit: max(1, at.offset-start), Offset: start})
		if total == 0 { // every folder holds its anchor's entry
			return nil, notFound("tape %s has no anchor %s", tape, at.folder)
		}
		return es, err
	})
	if err != nil {
		return err
	}
	if at.offset > start {
		c.add(entries)
		c.prune()
	}
	return nil
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
	b, err := fresh.ServedReadAsIs(ctx, s.ix, func(ix *projector.Projector) (batch, error) { return readPast(ctx, ix, tape, *at) })
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
	html := &budgeted{limit: liveBytes}
	for _, it := range items {
		fit, err := s.renderItem(html, "item", it)
		if err == nil && !fit {
			err = s.renderNote(html, it, liveNote)
		}
		if err != nil {
			return false, err
		}
	}
	writeEvent(w, "entries", at.String(), s.scrub(html.Bytes()))
	left := liveBytes - html.Len()
	for _, cv := range c.changed {
		html = &budgeted{limit: max(0, left)}
		fit, err := s.renderItem(html, "call", cv)
		if err == nil && !fit && len(cv.DOMID) <= labelBytes {
			// The block, answered, without its arguments and output.
			note := *cv
			note.Args, note.Output, note.Note = output{}, output{}, "answered; too large for the live view: reload the page to see it"
			html.limit, fit = math.MaxInt, true
			err = s.pages["tape"].ExecuteTemplate(html, "call", &note)
		}
		if err != nil {
			return false, err
		}
		if fit {
			writeEvent(w, "call", "", s.scrub(html.Bytes()))
			left -= html.Len()
		}
	}
	c.prune()
	return false, nil
}

// readPast reads up to liveBatch entries past at, of at most
// liveReadBytes (and one entry at least): the rest of its folder, then
// those of the anchors after it. It asks for reset when the entry before
// at is not the one the stream sent there.
func readPast(ctx context.Context, ix *projector.Projector, tape string, at place) (batch, error) {
	b := batch{next: at}
	read := 0 // bytes of the entries in b
	for len(b.entries) < liveBatch {
		room := liveBatch - len(b.entries)
		pg := views.Page{Limit: room, Offset: b.next.offset}
		check := b.next.id != ""
		if check { // the entry before, first
			pg.Offset, pg.Limit = pg.Offset-1, pg.Limit+1
		}
		f := projector.EntryFilter{Tape: tape, Folders: []string{b.next.folder}}
		entries, total, stale, err := ix.EntryPage(ctx, f, pg)
		if err != nil {
			return b, err
		}
		if total == 0 || total < b.next.offset {
			return batch{reset: true}, nil // the folder is gone, or shorter
		}
		if check {
			if len(entries) == 0 || entries[0].ID != b.next.id {
				return batch{reset: true}, nil
			}
			entries = entries[1:]
		}
		if n := fitRead(entries, &read, len(b.entries) == 0); n < len(entries) && len(stale) == 0 {
			// The rest next look. (With lines that could not be read in
			// the page, their places are not known: it is sent whole.)
			b.next.offset += n
			if n > 0 {
				b.next.id = entries[n-1].ID
			}
			b.entries = append(b.entries, entries[:n]...)
			return b, nil
		}
		if covered := min(room, total-b.next.offset); covered > 0 {
			b.next.offset += covered
			b.next.id = ""
			if len(stale) == 0 && len(entries) > 0 { // else the last is unknown: not checked
				b.next.id = entries[len(entries)-1].ID
			}
		}
		b.entries = append(b.entries, entries...)
		if b.next.offset < total {
			return b, nil // more in this folder: the next look
		}
		a, ok, err := ix.NextAnchor(ctx, tape, b.next.folder)
		if err != nil || !ok {
			return b, err
		}
		b.next = place{folder: a.Folder}
	}
	return b, nil
}

// fitRead is how many of entries fit in what is left of liveReadBytes
// after *read, which it adds them to; the first of a look always fits.
func fitRead(entries []tapelog.Entry, read *int, first bool) int {
	for i, e := range entries {
		size := len(e.Payload) + len(e.Meta)
		if *read+size > liveReadBytes && !(first && i == 0) {
			return i
		}
		*read += size
	}
	return len(entries)
}

// writeEvent writes one Server-Sent Event: each line of data on a data
// field of its own. A line ends at \n, \r\n or a lone \r, as the event
// stream's parser reads them: a carriage return in a tool's output (a
// progress bar's) must not end a field early, nor start a field of its
// own. HTML reads the three alike. No field carries CR, LF or NUL: the
// event's name and id are the server's own (an id is a place, encoded),
// and should one hold them all the same they are replaced, as a NUL in
// the data is (a browser drops an id that holds one).
func writeEvent(w io.Writer, event, id string, data []byte) {
	var b bytes.Buffer
	b.WriteString("event: " + fieldSafe(event) + "\n")
	if id != "" {
		b.WriteString("id: " + fieldSafe(id) + "\n")
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte{0}, []byte("\uFFFD"))
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	w.Write(b.Bytes())
}

// fieldSafe is s with each CR, LF and NUL replaced by U+FFFD, so that it
// is one field's value.
func fieldSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == 0 {
			return '\uFFFD'
		}
		return r
	}, s)
}
