package web

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The live stream over a real HTTP connection: what is appended past the
// page comes as events, results fold into the calls shown before, new
// anchors follow, a rewritten tape says reset, and a reconnect resumes.

// event is one Server-Sent Event, and the names of the fields it came in.
type event struct {
	name, id, data string
	fields         []string
}

// stream reads the events of one live connection.
type stream struct {
	t      *testing.T
	events chan event
	cancel context.CancelFunc
}

func openStream(t *testing.T, url string, header ...string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &stream{t: t, events: make(chan event, 64), cancel: cancel}
	go func() {
		defer res.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 16<<20)
		sc.Split(sseLines)
		var ev event
		var data []string
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				if ev.name != "" {
					ev.data = strings.Join(data, "\n")
					s.events <- ev
				}
				ev, data = event{}, nil
				continue
			}
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			ev.fields = append(ev.fields, field)
			switch field {
			case "event":
				ev.name = value
			case "id":
				ev.id = value
			case "data":
				data = append(data, value)
			}
		}
	}()
	t.Cleanup(cancel)
	return s
}

// sseLines splits an event stream into lines as a browser does: a line
// ends at CR LF, a lone LF or a lone CR.
func sseLines(b []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(b, "\r\n")
	switch {
	case i < 0 && atEOF && len(b) > 0:
		return len(b), b, nil
	case i < 0:
		return 0, nil, nil
	case b[i] == '\n':
		return i + 1, b[:i], nil
	case i+1 < len(b):
		if b[i+1] == '\n' {
			return i + 2, b[:i], nil
		}
		return i + 1, b[:i], nil
	case atEOF:
		return i + 1, b[:i], nil
	}
	return 0, nil, nil // a CR at the end: an LF may follow
}

// next is the next event, within a deadline.
func (s *stream) next(what string) event {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatalf("waiting for %s: the stream ended", what)
		}
		return ev
	case <-time.After(time.Minute): // far past a look's time: a 4 MB entry under the race detector on a loaded machine took over 10 s
		s.t.Fatalf("waiting for %s: no event in a minute", what)
	}
	return event{}
}

func liveServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	ws := fixture(t)
	srv := httptest.NewServer(newServer(t, ws, Options{Poll: 20 * time.Millisecond}).Handler())
	t.Cleanup(srv.Close)
	return srv, filepath.Join(ws.Dir(), "tapes", "demo", "anchors")
}

func TestLiveStreamsWhatIsWritten(t *testing.T) {
	t.Parallel()
	srv, anchors := liveServer(t)
	// The tape's page offers the stream of its end: 002_review holds its
	// anchor entry and m3.
	page := body(t, get(t, srv.Config.Handler, "/t/demo"))
	const live = "/t/demo/live?at=002_review%2F2%2Fm3&amp;from=0"
	if !strings.Contains(page, `data-live="`+live+`"`) {
		t.Fatalf("the tape's page has no data-live=%q", live)
	}
	s := openStream(t, srv.URL+strings.ReplaceAll(live, "&amp;", "&"))
	review := filepath.Join(anchors, "002_review", "messages.jsonl")

	appendLines(t, review, `{"id":"m4","kind":"message","payload":{"role":"assistant","content":"deploying <b>now</b>"},"date":"2026-11-20T10:00:02Z"}`)
	ev := s.next("m4")
	if ev.name != "entries" || ev.id != "002_review/3/m4" || !strings.Contains(ev.data, `id="e-m4"`) || !strings.Contains(ev.data, "deploying &lt;b&gt;now&lt;/b&gt;") {
		t.Fatalf("after m4: %+v", ev)
	}

	// A call comes pending; its result, later, replaces its block.
	appendLines(t, review, `{"id":"c9","kind":"tool_call","payload":{"calls":[{"id":"call_9","type":"function","function":{"name":"deploy","arguments":"{}"}}]},"date":"2026-11-20T10:00:03Z"}`)
	if ev := s.next("c9"); ev.name != "entries" || !strings.Contains(ev.data, `id="c-c9-0"`) || !strings.Contains(ev.data, "s-pending") {
		t.Fatalf("after c9: %+v", ev)
	}
	appendLines(t, review, `{"id":"r9","kind":"tool_result","payload":{"results":[{"tool_call_id":"call_9","content":"deployed"}]},"date":"2026-11-20T10:00:04Z"}`)
	if ev := s.next("r9's entries"); ev.name != "entries" || ev.id != "002_review/5/r9" || strings.Contains(ev.data, "<article") {
		t.Fatalf("after r9, want an entries event with the folded result hidden: %+v", ev)
	}
	if ev := s.next("c9's block"); ev.name != "call" || !strings.Contains(ev.data, `id="c-c9-0"`) || !strings.Contains(ev.data, "s-completed") || !strings.Contains(ev.data, "deployed") {
		t.Fatalf("after r9, want c9's block answered: %+v", ev)
	}

	// A handoff: the stream goes on in the new anchor.
	next := placeFolder(t, anchors, "003_ship", `{"id":"a3","kind":"anchor","payload":{"name":"ship"},"date":"2026-11-20T11:00:00Z"}`)
	appendLines(t, filepath.Join(next, "messages.jsonl"), `{"id":"m5","kind":"message","payload":{"role":"user","content":"shipped"},"date":"2026-11-20T11:00:01Z"}`)
	var got string
	for !strings.Contains(got, `id="e-m5"`) {
		ev := s.next("the new anchor")
		if ev.name != "entries" {
			t.Fatalf("after the handoff: %+v", ev)
		}
		got += ev.data
	}
	if !strings.Contains(got, `id="e-a3"`) || !strings.Contains(got, "ship") {
		t.Fatalf("the new anchor's entry did not come before its message:\n%s", got)
	}

	// The folder is rewritten shorter than what the page shows: reset.
	if err := os.WriteFile(filepath.Join(next, "messages.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for {
		ev := s.next("reset")
		if ev.name == "reset" {
			break
		}
		if ev.name != "entries" || strings.Contains(ev.data, "<article") {
			t.Fatalf("before reset: %+v", ev)
		}
	}
}

// TestLiveResumes: a browser that reconnects sends the id of the last
// event it had, and gets what came after it, once.
func TestLiveResumes(t *testing.T) {
	t.Parallel()
	srv, anchors := liveServer(t)
	review := filepath.Join(anchors, "002_review", "messages.jsonl")
	appendLines(t, review,
		`{"id":"m4","kind":"message","payload":{"role":"user","content":"four"},"date":"2026-11-20T10:00:02Z"}`,
		`{"id":"m5","kind":"message","payload":{"role":"user","content":"five"},"date":"2026-11-20T10:00:03Z"}`)
	// The page showed up to m3 (offset 2); the browser had m4 (offset 3).
	s := openStream(t, srv.URL+"/t/demo/live?at=002_review/2/m3&from=0", "Last-Event-ID", "002_review/3/m4")
	ev := s.next("m5")
	if ev.name != "entries" || ev.id != "002_review/4/m5" || !strings.Contains(ev.data, `id="e-m5"`) || strings.Contains(ev.data, `id="e-m4"`) {
		t.Fatalf("after a reconnect at 002_review/3: %+v", ev)
	}
	res := get(t, srv.Config.Handler, "/t/demo/live?at=002_review/2/m3&from=0", "Last-Event-ID", "../x/1")
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a Last-Event-ID that is no place: %d, want 400", res.StatusCode)
	}
}

// TestLiveResetsWhenTheOrderMoves: the place of a stream is checked
// against the entry it sent last, so a change that moves the entries
// under the page says reset, and never sends an entry twice or skips
// one: a line that sorts before those sent (a second file whose dates
// run behind), and a tape reset whose new folder has the old one's name.
func TestLiveResetsWhenTheOrderMoves(t *testing.T) {
	t.Parallel()
	srv, anchors := liveServer(t)
	review := filepath.Join(anchors, "002_review")
	s := openStream(t, srv.URL+"/t/demo/live?at=002_review/2/m3&from=0")
	appendLines(t, filepath.Join(review, "b.jsonl"), `{"id":"early","kind":"message","payload":{"role":"user","content":"dated before m3"},"date":"2026-11-20T09:30:00Z"}`)
	if ev := s.next("reset"); ev.name != "reset" {
		t.Fatalf("a line sorted before the page's end: %+v, want reset", ev)
	}

	srv, anchors = liveServer(t)
	review = filepath.Join(anchors, "002_review")
	s = openStream(t, srv.URL+"/t/demo/live?at=002_review/2/m3&from=0")
	// Reset by hand: the folder goes, and a new one of the same name
	// comes with more entries than the old.
	if err := os.RemoveAll(review); err != nil {
		t.Fatal(err)
	}
	placeFolder(t, anchors, "002_review", `{"id":"a2b","kind":"anchor","payload":{"name":"review"},"date":"2026-11-21T10:00:00Z"}`,
		`{"id":"n1","kind":"message","payload":{"role":"user","content":"new one"},"date":"2026-11-21T10:00:01Z"}`,
		`{"id":"n2","kind":"message","payload":{"role":"user","content":"new two"},"date":"2026-11-21T10:00:02Z"}`)
	for {
		ev := s.next("reset")
		if ev.name == "reset" {
			break
		}
		t.Fatalf("the tape was reset under the page: %+v, want reset", ev)
	}
}

// placeFolder makes an anchor folder whole beside and renames it into
// place, as a handoff does (FORMAT.md): a folder seen before its
// anchor.json is an anchor without one. It returns the folder.
func placeFolder(t testing.TB, anchors, folder, anchor string, lines ...string) string {
	t.Helper()
	tmp := filepath.Join(anchors, ".tmp-"+folder)
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "anchor.json"), []byte(anchor+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if len(lines) > 0 {
		appendLines(t, filepath.Join(tmp, "messages.jsonl"), lines...)
	}
	dir := filepath.Join(anchors, folder)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLiveFramesCarriageReturns: a carriage return in a tool's output (a
// progress bar's) neither ends an event's field early nor starts one of
// its own: the text comes whole, and no reset is injected.
func TestLiveFramesCarriageReturns(t *testing.T) {
	t.Parallel()
	srv, anchors := liveServer(t)
	s := openStream(t, srv.URL+"/t/demo/live?at=002_review/2/m3&from=0")
	appendLines(t, filepath.Join(anchors, "002_review", "messages.jsonl"),
		`{"id":"cr","kind":"message","payload":{"role":"user","content":"10%\r50%\r\revent: reset\rdata: x\r\r100% done"},"date":"2026-11-20T10:00:02Z"}`)
	ev := s.next("cr")
	if ev.name != "entries" || !strings.Contains(ev.data, "100% done") || !strings.Contains(ev.data, "event: reset") {
		t.Fatalf("after a message with carriage returns: %+v", ev)
	}
}

// TestLiveUnknownPlaces: a stream of a tape or anchor that is not there
// is 404, not a stream that polls for ever.
func TestLiveUnknownPlaces(t *testing.T) {
	t.Parallel()
	srv, _ := liveServer(t)
	for _, target := range []string{"/t/nope/live?at=001_a/0/&from=0", "/t/demo/live?at=009_nope/1/x&from=0"} {
		if res := get(t, srv.Config.Handler, target); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", target, res.StatusCode)
		}
	}
}

// metaRefresh is what an agent may append to inject a field: an id that
// ends the event's id line and adds a data line of its own, which the
// page would insert as HTML.
const metaRefresh = "x\ndata: <meta http-equiv=refresh content=\"0;url=https://evil.example/\">\r\x00z"

// TestWriteEventFields: whatever an entry's id holds, an event is its
// name, its id and its data lines, and the id reads back as the place.
func TestWriteEventFields(t *testing.T) {
	t.Parallel()
	at := place{folder: "002_review", offset: 3, id: metaRefresh}
	for _, tt := range []struct{ name, id string }{
		{"a place", at.String()},
		{"a raw id", "002_review/3/" + metaRefresh},
	} {
		var b bytes.Buffer
		writeEvent(&b, "entries", tt.id, []byte("<article>a\x00b</article>\r\n<p>c</p>"))
		sc := bufio.NewScanner(&b)
		sc.Split(sseLines)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if len(lines) != 5 || lines[0] != "event: entries" || !strings.HasPrefix(lines[1], "id: ") ||
			lines[2] != "data: <article>a\uFFFDb</article>" || lines[3] != "data: <p>c</p>" || lines[4] != "" {
			t.Errorf("%s: the event's lines are %q; want its name, one id, two data lines and the blank line", tt.name, lines)
		}
	}
	var b bytes.Buffer
	writeEvent(&b, "entries", at.String(), nil)
	id := strings.TrimPrefix(strings.Split(b.String(), "\n")[1], "id: ")
	if back, ok := parsePlace(id); !ok || back != at {
		t.Errorf("the id %q reads back as %+v, %v; want %+v", id, back, ok, at)
	}
}

// TestLiveIDsCarryNoFields: an entry whose id holds a line break and a
// data field comes as one event of the page's HTML, its id the place,
// and a browser that resumes from that id goes on after it.
func TestLiveIDsCarryNoFields(t *testing.T) {
	t.Parallel()
	srv, anchors := liveServer(t)
	s := openStream(t, srv.URL+"/t/demo/live?at=002_review/2/m3&from=0")
	review := filepath.Join(anchors, "002_review", "messages.jsonl")
	appendLines(t, review, `{"id":"`+strings.NewReplacer("\r", `\r`, "\x00", `\u0000`).Replace(jsonEsc(metaRefresh))+`","kind":"message","payload":{"role":"user","content":"hi"},"date":"2026-11-20T10:00:02Z"}`)
	ev := s.next("the entry")
	want := place{folder: "002_review", offset: 3, id: metaRefresh}
	if ev.name != "entries" || strings.Contains(ev.data, "<meta") || !strings.Contains(ev.data, "&lt;meta") || ev.id != want.String() {
		t.Fatalf("an entry whose id holds a data field: %+v", ev)
	}
	for _, f := range ev.fields {
		if f != "event" && f != "id" && f != "data" {
			t.Errorf("the event has a field %q", f)
		}
	}
	if strings.Count(strings.Join(ev.fields, " "), "id") != 1 {
		t.Errorf("the event's fields are %q; want one id", ev.fields)
	}
	appendLines(t, review, `{"id":"after","kind":"message","payload":{"role":"user","content":"after"},"date":"2026-11-20T10:00:03Z"}`)
	r := openStream(t, srv.URL+"/t/demo/live?at=002_review/2/m3&from=0", "Last-Event-ID", ev.id)
	if ev := r.next("after"); ev.name != "entries" || !strings.Contains(ev.data, `id="e-after"`) || strings.Contains(ev.data, "&lt;meta") {
		t.Fatalf("resumed from %q: %+v, want the entry after it alone", want.String(), ev)
	}
}
