package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What a page renders is bounded in bytes and depth, whatever an entry
// holds (docs/decisions/0070).

// deepJSON is n arrays, each in the one before: 2n bytes.
func deepJSON(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestIndent(t *testing.T) {
	t.Parallel()
	deep := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	for _, tt := range []struct {
		name, raw string
		limit     int
		want      string // "" for json.Indent's
		folded    int
	}{
		{name: "an object", raw: `{"a": 1, "b":[1,2,{"c":"x y"}],"e":{},"f":[ ]}`, limit: foldBytes},
		{name: "strings with brackets and quotes", raw: `{"a":"[{\",:}]","b\\":"\\"}`, limit: foldBytes},
		{name: "as deep as flatDepth", raw: deep(flatDepth), limit: foldBytes},
		{name: "deeper: one line below flatDepth", raw: `[` + deep(flatDepth) + `,2]`, limit: foldBytes,
			want: "[\n" + indentLines(flatDepth) + "[1]" + closeLines(flatDepth) + ",\n  2\n]"},
		{name: "cut at the limit", raw: `["abcdefgh","ijklmnop"]`, limit: 10, want: "[\n  \"abcde", folded: 16},
		{name: "not JSON: as it is, cut", raw: `{"a": nope}`, limit: 6, want: `{"a": `, folded: 5},
	} {
		got, folded := indent(json.RawMessage(tt.raw), tt.limit)
		want := tt.want
		if want == "" {
			var b bytes.Buffer
			if err := json.Indent(&b, []byte(tt.raw), "", "  "); err != nil {
				t.Fatal(err)
			}
			want = b.String()
		}
		if got != want || folded != tt.folded {
			t.Errorf("%s: indent = %q, %d; want %q, %d", tt.name, got, folded, want, tt.folded)
		}
	}
	// 9,000 nested arrays, 18 KB: json.Indent makes 162 MB of them.
	got, folded := indent(json.RawMessage(deepJSON(9000)), foldBytes)
	if len(got) > 20_000+2*flatDepth*(2*flatDepth+2) || folded != 0 {
		t.Errorf("9,000 nested arrays indented: %d bytes, %d folded; want them whole in about 20 KB", len(got), folded)
	}
}

// indentLines and closeLines are the lines of d arrays opened inside one
// array, and closed, as indent writes them.
func indentLines(d int) string {
	var b strings.Builder
	for i := 1; i < d; i++ {
		b.WriteString(strings.Repeat("  ", i) + "[\n")
	}
	return b.String() + strings.Repeat("  ", d)
}

func closeLines(d int) string {
	var b strings.Builder
	for i := d - 1; i >= 1; i-- {
		b.WriteString("\n" + strings.Repeat("  ", i) + "]")
	}
	return b.String()
}

// boundsServer is a live server of the fixture with tape "big" beside,
// whose one anchor holds lines; it returns the file to append to.
func boundsServer(t *testing.T, lines ...string) (*Server, *stream, string) {
	t.Helper()
	ws := fixture(t)
	writeTape(t, ws, "big", "001_start", `{"id":"a","kind":"anchor","payload":{"name":"start"},"date":"2026-11-22T08:00:00Z"}`, lines...)
	s := newServer(t, ws, Options{Poll: 20 * time.Millisecond})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, openStream(t, srv.URL+"/t/big/live?at=001_start/"+fmt.Sprint(len(lines)+1)+"/&from=0"), filepath.Join(ws.Dir(), "tapes", "big", "anchors", "001_start", "messages.jsonl")
}

// TestDeepValueIsFlat: an 18 KB event of 9,000 nested arrays renders in
// a page and a live event of tens of KB, not 162 MB.
func TestDeepValueIsFlat(t *testing.T) {
	t.Parallel()
	line := `{"id":"deep","kind":"event","payload":{"name":"nest","data":` + deepJSON(9000) + `},"date":"2026-11-22T09:00:00Z"}`
	s, live, file := boundsServer(t, `{"id":"m0","kind":"message","payload":{"role":"user","content":"hi"},"date":"2026-11-22T08:30:00Z"}`)
	appendLines(t, file, line)
	ev := live.next("the deep event")
	if ev.name != "entries" || !strings.Contains(ev.data, `id="e-deep"`) || len(ev.data) > 64<<10 {
		t.Fatalf("the live event of an 18 KB event of 9,000 nested arrays: %s, %d bytes; want it in 64 KiB", ev.name, len(ev.data))
	}
	b := body(t, get(t, s.Handler(), "/t/big"))
	if !strings.Contains(b, `id="e-deep"`) || len(b) > 64<<10 {
		t.Fatalf("the page of an 18 KB event of 9,000 nested arrays: %d bytes; want it in 64 KiB", len(b))
	}
}

// TestLongValueIsFolded: a 10 MB message, the tape's first prompt and so
// its title, shows its first foldBytes and says how much more there is
// and where, in the live stream, on its pages and in the sessions' list.
func TestLongValueIsFolded(t *testing.T) {
	t.Parallel()
	s, live, file := boundsServer(t)
	text := strings.Repeat("0123456789abcdef", 10<<20/16)
	appendLines(t, file, `{"id":"long","kind":"message","payload":{"role":"user","content":"`+text+`"},"date":"2026-11-22T09:00:00Z"}`)
	const folded = "10,420,224 more bytes of this entry are not shown: the whole is tapes/big/anchors/001_start/messages.jsonl:1"
	ev := live.next("the long message")
	if ev.name != "entries" || len(ev.data) > 2*foldBytes || !strings.Contains(ev.data, folded) {
		t.Fatalf("the live event of a 10 MB message: %s, %d bytes; want it folded, in %d", ev.name, len(ev.data), 2*foldBytes)
	}
	for _, target := range []string{"/t/big", "/t/big/a/001_start", "/"} {
		b := body(t, get(t, s.Handler(), target))
		if len(b) > 3*foldBytes {
			t.Errorf("GET %s: %d bytes for a 10 MB message; want at most %d", target, len(b), 3*foldBytes)
		}
		if target != "/" && !strings.Contains(b, folded) {
			t.Errorf("GET %s: no %q", target, folded)
		}
	}
}

// TestPageBytes: a page holds at most pageBytes of entries: an anchor's
// page stops before the first that passes them and links to the next
// page, which starts there; a tape's page keeps its newest and stays
// live; an entry's link lands on a page that shows it; an entry that
// alone passes them is a note of where it is, on a page and live.
func TestPageBytes(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 75 {
		lines = append(lines, fmt.Sprintf(`{"id":"n%d","kind":"message","payload":{"role":"user","content":"%d %s"},"date":"2026-11-22T09:00:00Z"}`, i, i, strings.Repeat("x", 60<<10)))
	}
	s, live, file := boundsServer(t, lines...)
	h := s.Handler()
	b := body(t, get(t, h, "/t/big/a/001_start"))
	next := regexp.MustCompile(`href="/t/big/a/001_start\?from=(\d+)" rel="next"`).FindStringSubmatch(b)
	if len(b) > pageBytes+64<<10 || next == nil {
		t.Fatalf("an anchor of 4.5 MB of entries: a page of %d bytes, next %q; want at most %d and a next page", len(b), next, pageBytes)
	}
	from, _ := strconv.Atoi(next[1])
	first := fmt.Sprintf(`id="e-n%d"`, from-1) // offset 0 is the anchor's
	if b2 := body(t, get(t, h, "/t/big/a/001_start?from="+next[1])); !strings.Contains(b2, first) || strings.Contains(b, first) {
		t.Errorf("the next page, from=%s, does not start with the first entry the page before left out (%s)", next[1], first)
	}
	b = body(t, get(t, h, "/t/big"))
	if len(b) > pageBytes+64<<10 || !strings.Contains(b, `id="e-n74"`) || !strings.Contains(b, "data-live") || !strings.Contains(b, `rel="prev"`) {
		t.Errorf("a tape's page of 4.5 MB of entries: %d bytes; want its newest within %d, live, and a previous page", len(b), pageBytes)
	}
	res := get(t, h, "/t/big/e/n70")
	to, _, _ := strings.Cut(res.Header.Get("Location"), "#")
	if b := body(t, get(t, h, to)); res.StatusCode != http.StatusSeeOther || !strings.Contains(b, `id="e-n70"`) {
		t.Errorf("the link of n70 leads to %q, which does not show it", res.Header.Get("Location"))
	}

	// 70 calls of 60 KB arguments each: one entry past pageBytes.
	var calls []string
	for i := range 70 {
		calls = append(calls, fmt.Sprintf(`{"id":"k%d","type":"function","function":{"name":"write","arguments":%q}}`, i, `{"text":"`+strings.Repeat("y", 60<<10)+`"}`))
	}
	appendLines(t, file, `{"id":"huge","kind":"tool_call","payload":{"calls":[`+strings.Join(calls, ",")+`]},"date":"2026-11-22T10:00:00Z"}`)
	ev := live.next("the huge entry")
	if ev.name != "entries" || len(ev.data) > liveBytes || !strings.Contains(ev.data, liveNote) || !strings.Contains(ev.data, "tapes/big/anchors/001_start/messages.jsonl:76") {
		t.Errorf("the live event of a 4.2 MB entry: %s, %d bytes; want the note that it is too large, within %d", ev.name, len(ev.data), liveBytes)
	}
	b = body(t, get(t, h, "/t/big"))
	if len(b) > pageBytes+64<<10 || !strings.Contains(b, pageNote) || !strings.Contains(b, `id="e-huge"`) {
		t.Errorf("the page of a 4.2 MB entry: %d bytes; want the note that it is too large, within %d", len(b), pageBytes)
	}
}

// TestLiveReadBytes: a burst of large entries comes a few per look, each
// event within liveBytes, every entry whole and once, in order.
func TestLiveReadBytes(t *testing.T) {
	t.Parallel()
	_, live, file := boundsServer(t)
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf(`{"id":"b%d","kind":"message","payload":{"role":"user","content":"%s"},"date":"2026-11-22T09:00:00Z"}`, i, strings.Repeat("z", 100<<10)))
	}
	appendLines(t, file, lines...)
	var got []string
	events := 0
	for len(got) < 12 {
		ev := live.next("the burst")
		if ev.name != "entries" || len(ev.data) > liveBytes || strings.Contains(ev.data, liveNote) {
			t.Fatalf("an event of the burst: %s, %d bytes; want entries within %d, none a note", ev.name, len(ev.data), liveBytes)
		}
		events++
		for _, m := range regexp.MustCompile(`id="e-(b\d+)"`).FindAllStringSubmatch(ev.data, -1) {
			got = append(got, m[1])
		}
	}
	if want := "b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11"; strings.Join(got, " ") != want || events < 12*100<<10/liveReadBytes {
		t.Errorf("the burst came as %q in %d events; want %q in %d or more", got, events, want, 12*100<<10/liveReadBytes)
	}
}
