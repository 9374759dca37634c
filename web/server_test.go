package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views/usage"
)

// The routes, in process, over httptest: what each page shows, that text
// from tapes is escaped, who may ask, and what is not there.

// xssText and xssAttr are what a tool's output may hold: a script, and a
// value that ends an attribute to add a handler.
const (
	xssText = `<script>alert("pwned")</script>`
	xssAttr = `"><img src=x onerror=alert(1)>`
)

// fixture writes a workspace by hand, as an agent does with >>, and
// returns it: tape "demo" (two anchors: a chat with tool calls, thinking,
// a run, an error, payloads that try to inject HTML, a bad line) and tape
// "other".
func fixture(t testing.TB) *tapelog.Workspace {
	t.Helper()
	dir := t.TempDir()
	ws, _, err := tapelog.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes", "main")); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a line of output\n", 40) + "the end"
	writeTape(t, ws, "demo", "001_session-start", `{"id":"a1","kind":"anchor","payload":{"name":"session/start","state":{"cwd":"/src/app"}},"date":"2026-11-20T09:00:00Z"}`,
		`{"id":"m1","kind":"message","payload":{"role":"user","content":"数据库连接超时 when the tests run flushTimeout"},"date":"2026-11-20T09:00:01Z"}`,
		`{"id":"m2","kind":"message","payload":{"role":"assistant","content":"Let me look. `+jsonEsc(xssText)+`"},"date":"2026-11-20T09:00:02Z"}`,
		`{"id":"c1","kind":"tool_call","payload":{"calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"go test ./...\"}"}},{"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"`+jsonEsc(jsonEsc(xssAttr))+`\"}"}}]},"date":"2026-11-20T09:00:03Z"}`,
		`{"id":"r1","kind":"tool_result","payload":{"results":[{"tool_call_id":"call_1","is_error":true,"content":"FAIL: TestFlushTimeout `+jsonEsc(xssAttr)+`"},{"tool_call_id":"call_2","content":"`+jsonEsc(long)+`"}]},"date":"2026-11-20T09:00:05.5Z"}`,
		`{"id":"t1","kind":"event","payload":{"name":"thinking","data":{"thinking":"the pool is too small"}},"date":"2026-11-20T09:00:06Z"}`,
		`{"id":"u1","kind":"event","payload":{"name":"run","data":{"status":"ok","model":"gpt-test","usage":{"prompt_tokens":1200,"completion_tokens":34,"total_tokens":1234}}},"date":"2026-11-20T09:00:07Z"}`,
		`not json at all `+xssText,
		`{"id":"c2","kind":"tool_call","payload":{"calls":[{"id":"call_3","type":"function","function":{"name":"deploy","arguments":"{}"}}]},"date":"2026-11-20T09:00:08Z"}`,
	)
	writeTape(t, ws, "demo", "002_review", `{"id":"a2","kind":"anchor","payload":{"name":"review","state":{"summary":"`+jsonEsc(xssText)+`"}},"date":"2026-11-20T10:00:00Z"}`,
		`{"id":"m3","kind":"message","payload":{"role":"user","content":"ship it"},"date":"2026-11-20T10:00:01Z"}`,
	)
	writeTape(t, ws, "other", "001_session-start", `{"id":"a1","kind":"anchor","payload":{"name":"session/start","state":{}},"date":"2026-11-21T09:00:00Z"}`,
		`{"id":"m1","kind":"message","payload":{"role":"user","content":"call newFlushTimeoutHandler again"},"date":"2026-11-21T09:00:01Z"}`,
		`{"id":"u1","kind":"event","payload":{"name":"run","data":{"status":"ok","model":"gpt-test","usage":{"prompt_tokens":100,"completion_tokens":11,"total_tokens":111}}},"date":"2026-11-21T09:00:02Z"}`,
	)
	return ws
}

func jsonEsc(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return r.Replace(s)
}

// writeTape writes a new anchor folder of a tape: its anchor.json, and
// lines in messages.jsonl.
func writeTape(t testing.TB, ws *tapelog.Workspace, tape, folder, anchor string, lines ...string) {
	t.Helper()
	anchors := filepath.Join(ws.Dir(), "tapes", tape, "anchors")
	if err := os.MkdirAll(anchors, 0o700); err != nil {
		t.Fatal(err)
	}
	placeFolder(t, anchors, folder, anchor, lines...)
}

func appendLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

func newServer(t testing.TB, ws *tapelog.Workspace, opts Options) *Server {
	t.Helper()
	s, err := New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// get asks h for target as a browser on this machine does.
func get(t testing.TB, h http.Handler, target string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1:7070"
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t testing.TB, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPages: each page answers 200 and shows what it is for.
func TestPages(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	for _, tt := range []struct {
		target string
		want   []string
	}{
		{"/", []string{"Sessions", `href="/t/demo"`, `href="/t/other"`, "数据库连接超时", "/src/app", "gpt-test"}},
		{"/?q=other", []string{`href="/t/other"`}},
		{"/t/demo", []string{"review", "ship it", `href="/t/demo/a/001_session-start"`, `data-live="/t/demo/live?`}},
		{"/t/demo/a/001_session-start", []string{"gpt-test · 1,234 tokens: 1,200 in, 34 out · ok",
			"数据库连接超时", `class="call s-failed"`, `class="call s-completed"`, `class="call s-pending"`,
			"FAIL: TestFlushTimeout", "2.5 s", "show all 41 lines", "the pool is too small",
			"Bad line", "messages.jsonl:7", `id="e-m1"`, `id="e-r1"`, "session/start"}},
		{"/search?q=数据库", []string{"<mark>数据库</mark>", `href="/t/demo/e/m1"`}},
		{"/search?q=flush", []string{`href="/t/demo/e/m1"`, `href="/t/other/e/m1"`, "<mark>"}},
		{"/search?q=flush&tape=other", []string{`href="/t/other/e/m1"`, "in tape"}},
		{"/search?q=flush+zebra", []string{"Entries with some of the words:", `href="/t/demo/e/m1"`, "<mark>flush</mark>"}},
		{"/calls", []string{"bash", "read_file", "deploy", "failed <span class=\"n\">1</span>", "pending <span class=\"n\">1</span>", "3 calls"}},
		{"/calls?status=failed", []string{"bash", "1 call failed"}},
		{"/usage", []string{"1,345", "<svg", "<rect", "<td>2026-11-21</td>"}},
		{"/usage?by=model&tape=demo", []string{"gpt-test", "1,234"}},
		{"/usage?by=week", []string{"<td>2026-11-16</td>", "1,345"}},
		{"/usage?by=month", []string{"<td>2026-11</td>"}},
		{"/usage?by=block", []string{"2026-11-20 09:00 UTC", "2026-11-21 09:00 UTC"}},
		{"/usage?by=session", []string{`href="/t/demo"`, "(not imported)"}},
		{"/usage?by=source", []string{"(not imported)", "1,345"}},
		{"/static/style.css", []string{"prefers-color-scheme: dark"}},
		{"/static/live.js", []string{"EventSource"}},
	} {
		res := get(t, h, tt.target)
		b := body(t, res)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d\n%s", tt.target, res.StatusCode, b)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(b, w) {
				t.Errorf("GET %s: no %q in the page", tt.target, w)
			}
		}
	}
}

// TestUsageByDayNewestFirst: the usage table lists the newest day first,
// as the page's other lists; the chart shows them in time order.
func TestUsageByDayNewestFirst(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	b := body(t, get(t, h, "/usage?by=day"))
	newer, older := strings.Index(b, "<td>2026-11-21</td>"), strings.Index(b, "<td>2026-11-20</td>")
	if newer < 0 || older < 0 || newer > older {
		t.Errorf("usage by day lists 2026-11-21 at %d and 2026-11-20 at %d; want both, the newest first", newer, older)
	}
}

// TestSearchScope: the scope of a search holds.
func TestSearchScope(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	b := body(t, get(t, h, "/search?q=flush&tape=other"))
	if strings.Contains(b, "/t/demo/e/") {
		t.Errorf("a search of tape other lists demo's entries:\n%s", b)
	}
}

// TestEntryLinks: an entry's URL redirects to the page of its anchor
// that holds it, with its id as the fragment.
func TestEntryLinks(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	var lines []string
	for i := range entriesPage + 10 {
		lines = append(lines, fmt.Sprintf(`{"id":"n%d","kind":"message","payload":{"role":"user","content":"note %d"},"date":"2026-11-22T09:00:00Z"}`, i, i))
	}
	writeTape(t, ws, "long", "001_start", `{"id":"a","kind":"anchor","payload":{"name":"start"},"date":"2026-11-22T08:00:00Z"}`, lines...)
	h := newServer(t, ws, Options{}).Handler()
	for target, want := range map[string]string{
		"/t/demo/e/m1":   "/t/demo/a/001_session-start#e-m1",
		"/t/demo/e/m3":   "/t/demo/a/002_review#e-m3",
		"/t/long/e/n3":   "/t/long/a/001_start#e-n3",
		"/t/long/e/n205": "/t/long/a/001_start?from=200#e-n205",
	} {
		res := get(t, h, target)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want 303 to %q", target, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
	if b := body(t, get(t, h, "/t/long/a/001_start?from=200")); !strings.Contains(b, `id="e-n205"`) || strings.Contains(b, `id="e-n3"`) {
		t.Errorf("the page from 200 does not hold n205 alone")
	}
	if b := body(t, get(t, h, "/t/long")); !strings.Contains(b, `id="e-n209"`) || strings.Contains(b, `id="e-n5"`) || !strings.Contains(b, "data-live") {
		t.Errorf("a tape's page does not show its newest %d entries, live", entriesPage)
	}
}

// TestEscaping: no text from a tape reaches the page as markup: not in
// messages, tool arguments and results, anchor states, bad lines,
// snippets, titles or the sessions' filter.
func TestEscaping(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	for _, target := range []string{
		"/", "/t/demo", "/t/demo/a/001_session-start", "/t/demo/a/002_review",
		"/search?q=pwned", "/search?q=onerror", "/calls", "/calls?status=failed",
		"/?q=" + urlEsc(xssAttr), "/search?q=" + urlEsc(xssText), "/calls?name=" + urlEsc(xssAttr),
	} {
		b := body(t, get(t, h, target))
		for _, bad := range []string{"<script>alert", "<img src=x", `"><img`, "onerror=alert(1)>"} {
			if strings.Contains(b, bad) {
				t.Errorf("GET %s: the page holds %q unescaped", target, bad)
			}
		}
		if scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(b, -1); len(scripts) != 1 || scripts[0] != `<script src="/static/live.js" defer>` {
			t.Errorf("GET %s: scripts %q, want the page's own alone", target, scripts)
		}
	}
	b := body(t, get(t, h, "/t/demo/a/001_session-start"))
	for _, want := range []string{"&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;", "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"} {
		if !strings.Contains(b, want) {
			t.Errorf("the escaped payload %q is not on the page", want)
		}
	}
	res := get(t, h, "/t/demo")
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q: want scripts from the server alone", csp)
	}
}

func urlEsc(s string) string {
	return strings.NewReplacer("%", "%25", " ", "%20", `"`, "%22", "<", "%3C", ">", "%3E", "=", "%3D", "(", "%28", ")", "%29", "&", "%26", "#", "%23").Replace(s)
}

// TestNotFound: unknown tapes, anchors, entries and pages are 404, and so
// is every path that tries to leave the workspace.
func TestNotFound(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	secret := filepath.Join(filepath.Dir(ws.Dir()), "secret.jsonl")
	if err := os.WriteFile(secret, []byte(`{"kind":"message","payload":{"role":"user","content":"SECRET"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newServer(t, ws, Options{}).Handler()
	for _, target := range []string{
		"/t/nope", "/t/demo/a/009_nope", "/t/demo/a/not-a-folder", "/t/demo/a/002_bogus", "/t/demo/a/2", "/t/demo/a/review", // a link names a folder, nothing else "/t/demo/e/nope", "/t/nope/e/m1", "/nope", "/t/demo/x",
		"/t/..%2F..%2Fetc", "/t/..%2F..%2F..%2Fsecret.jsonl", "/t/demo/a/..%2F..%2F..%2F..%2Fsecret.jsonl",
		"/t/%2E%2E/a/001_session-start", "/t/.tape/a/001_session-start", "/t/demo%2F..%2Fother",
		"/static/../../secret.jsonl", "/static/..%2F..%2Fserver.go", "/static/nope.css", "/static/",
		"/search?q=x&tape=..%2Fdemo", "/calls?tape=..%2F..", "/usage?tape=%2Fetc", "/t/demo/a/002_review?from=10000",
	} {
		res := get(t, h, target)
		b := body(t, res)
		if res.StatusCode != http.StatusNotFound {
			// ServeMux answers some paths with .. by a redirect to the
			// cleaned path, which the next request finds or not.
			if res.StatusCode == http.StatusMovedPermanently || res.StatusCode == http.StatusTemporaryRedirect {
				loc := res.Header.Get("Location")
				res = get(t, h, loc)
				b = body(t, res)
				if res.StatusCode == http.StatusNotFound {
					continue
				}
			}
			t.Errorf("GET %s: %d, want 404", target, res.StatusCode)
		}
		if strings.Contains(b, "SECRET") || strings.Contains(b, "package web") {
			t.Errorf("GET %s: a file outside the workspace reached the page", target)
		}
	}
}

// TestBadRequests: parameters out of range are 400, with what to give.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	for target, want := range map[string]string{
		"/?page=0":                 "page",
		"/?page=x":                 "page",
		"/t/demo?from=-1":          "from",
		"/calls?status=done":       "status",
		"/usage?by=fortnight":      "by",
		"/search?q=x&amp;n=100000": "",
		"/search?q=x&n=0":          "n",
		"/t/demo/live":             "folder",
		"/t/demo/live?folder=001_x&from=5&after=1": "from",
	} {
		res := get(t, h, target)
		b := body(t, res)
		if want == "" {
			continue
		}
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("GET %s: %d, want 400 naming %q\n%s", target, res.StatusCode, want, b)
		}
	}
}

// TestReadOnly: no method but GET and HEAD is answered.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		req := httptest.NewRequest(m, "/t/demo", strings.NewReader("x"))
		req.Host = "localhost:7070"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /t/demo: %d, want 405", m, rec.Code)
		}
	}
}

// TestToken: with a token, a request without it is 401 on every route;
// with it (query, cookie, bearer) it is answered, and the query sets the
// cookie the page's links then carry.
func TestToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	h := newServer(t, fixture(t), Options{Token: token}).Handler()
	for _, target := range []string{"/", "/t/demo", "/t/demo/a/001_session-start", "/t/demo/e/m1", "/t/demo/live?folder=002_review&from=0&after=1",
		"/search?q=x", "/calls", "/usage", "/static/style.css", "/nope", "/?token=wrong"} {
		if res := get(t, h, target); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", target, res.StatusCode)
		}
		if res := get(t, h, target, "Cookie", "tape_token_7070=wrong"); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong cookie: %d, want 401", target, res.StatusCode)
		}
	}
	res := get(t, h, "/calls?status=failed&token="+token)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/calls?status=failed" {
		t.Fatalf("GET /calls?status=failed&token=: %d to %q, want 303 to the same page without the token", res.StatusCode, res.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "tape_token_7070" {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != token || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("GET /?token= set cookie %+v, want an HttpOnly, SameSite=Lax cookie tape_token_7070 of the token", cookie)
	}
	const tokenCookie = "tape_token_7070"
	if res := get(t, h, "/t/demo", "Cookie", tokenCookie+"="+token); res.StatusCode != http.StatusOK {
		t.Errorf("GET /t/demo with the cookie: %d", res.StatusCode)
	}
	if res := get(t, h, "/calls", "Authorization", "Bearer "+token); res.StatusCode != http.StatusOK {
		t.Errorf("GET /calls with a bearer token: %d", res.StatusCode)
	}
}

// TestLoopbackHosts: without a token, only requests to a loopback name
// are answered: a page elsewhere that rebinds its name to 127.0.0.1 is
// refused.
func TestLoopbackHosts(t *testing.T) {
	t.Parallel()
	h := newServer(t, fixture(t), Options{}).Handler()
	for host, want := range map[string]int{
		"127.0.0.1:7070": 200, "localhost:7070": 200, "[::1]:7070": 200, "LOCALHOST": 200, "127.0.0.2:80": 200,
		"evil.example:7070": 403, "10.0.0.5:7070": 403, "": 403, "localhost.evil.example": 403,
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:7070": true, "localhost:0": true, "[::1]:1": true, "0.0.0.0:7070": false, ":7070": false, "192.168.1.2:80": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestPageEdges: a call answered on the next page shows its answer; a
// state is shown as written; the timeline links to the anchors beyond
// the ones it lists.
func TestPageEdges(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	lines := make([]string, 0, entriesPage+2)
	for i := range entriesPage - 2 {
		lines = append(lines, fmt.Sprintf(`{"id":"n%d","kind":"message","payload":{"role":"user","content":"note %d"},"date":"2026-11-22T09:00:00Z"}`, i, i))
	}
	lines = append(lines,
		`{"id":"callX","kind":"tool_call","payload":{"calls":[{"id":"x","type":"function","function":{"name":"build","arguments":"{}"}}]},"date":"2026-11-22T09:00:01Z"}`,
		`{"id":"resX","kind":"tool_result","payload":{"results":[{"tool_call_id":"x","is_error":true,"content":"exit 2"}]},"date":"2026-11-22T09:00:02Z"}`)
	writeTape(t, ws, "split", "001_start", `{"id":"a","kind":"anchor","payload":{"name":"start","state":{"ns":1732512345123456789,"cmp":"a<b && c>d","z":1,"a":2}},"date":"2026-11-22T08:00:00Z"}`, lines...)
	for i := 2; i <= anchorsShown+30; i++ {
		writeTape(t, ws, "split", fmt.Sprintf("%03d_phase", i), fmt.Sprintf(`{"id":"p%d","kind":"anchor","payload":{"name":"phase %d"},"date":"2026-11-22T10:00:00Z"}`, i, i))
	}
	h := newServer(t, ws, Options{}).Handler()
	b := body(t, get(t, h, "/t/split/a/001_start"))
	if !strings.Contains(b, `class="call s-failed" id="c-callX-0"`) || !strings.Contains(b, "exit 2") || strings.Contains(b, `id="e-resX"`) && !strings.Contains(b, `class="target" id="e-resX"`) {
		t.Errorf("a call whose result is on the next page does not show it failed with its output")
	}
	if !strings.Contains(b, "1732512345123456789") || !strings.Contains(b, "a&lt;b &amp;&amp; c&gt;d") || strings.Index(b, `&#34;z&#34;`) > strings.Index(b, `&#34;a&#34;: 2`) {
		t.Errorf("an anchor's state is not shown as written")
	}
	if !strings.Contains(b, `href="/t/split/a/101_phase">30 later</a>`) {
		t.Errorf("the timeline of the first anchor does not link to the 30 anchors after those it lists")
	}
	b = body(t, get(t, h, "/t/split"))
	if !strings.Contains(b, `href="/t/split/a/030_phase">30 earlier</a>`) {
		t.Errorf("the timeline of the last anchor does not link to the 30 anchors before those it lists")
	}
}

// TestDayChartScalesToItsDays: the chart's bars are scaled to the days it
// draws; a larger day before them does not flatten them.
func TestDayChartScalesToItsDays(t *testing.T) {
	t.Parallel()
	c := dayChart([]usage.Row{{Day: "2026-01-01", Total: 1_000_000}, {Day: "2026-11-20", Total: 300}, {Day: "2026-11-21", Total: 600}})
	if c.Max != 600 || len(c.Bars) != 2 {
		t.Fatalf("chart: max %d, %d bars; want 600 and 2", c.Max, len(c.Bars))
	}
	if tallest := c.Bars[1]; tallest.H != chartH-chartTop-chartBottom || c.Bars[0].H != tallest.H/2 {
		t.Errorf("bars %.1f and %.1f high: want the plot's height and half of it", c.Bars[0].H, tallest.H)
	}
}

// TestUniqueIDs: no page gives two elements one id: a result entry that
// answers two calls is the target of one, a result that shows itself is
// no call's target, and ids that differ only in a space and an
// underscore stay apart.
func TestUniqueIDs(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	writeTape(t, ws, "ids", "001_start", `{"id":"a","kind":"anchor","payload":{"name":"start"},"date":"2026-11-22T08:00:00Z"}`,
		`{"id":"x y","kind":"tool_call","payload":{"calls":[{"id":"1","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"2","type":"function","function":{"name":"b","arguments":"{}"}}]},"date":"2026-11-22T09:00:00Z"}`,
		`{"id":"both","kind":"tool_result","payload":{"results":[{"tool_call_id":"1","content":"one"},{"tool_call_id":"2","content":"two"}]},"date":"2026-11-22T09:00:01Z"}`,
		`{"id":"x_y","kind":"tool_call","payload":{"calls":[{"id":"3","type":"function","function":{"name":"c","arguments":"{}"}}]},"date":"2026-11-22T09:00:02Z"}`,
		`{"id":"partly","kind":"tool_result","payload":{"results":[{"tool_call_id":"3","content":"three"},{"tool_call_id":"9","content":"no call"}]},"date":"2026-11-22T09:00:03Z"}`)
	h := newServer(t, ws, Options{}).Handler()
	for _, target := range []string{"/t/ids", "/t/demo/a/001_session-start"} {
		b := body(t, get(t, h, target))
		seen := map[string]int{}
		for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(b, -1) {
			seen[m[1]]++
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("%s: %d elements have id %q", target, n, id)
			}
		}
		if target == "/t/ids" && (seen["e-both"] != 1 || seen["e-partly"] != 1 || seen["c-x%20y-0"] != 1 || seen["c-x_y-0"] != 1) {
			t.Errorf("%s: ids %v; want e-both, e-partly, c-x%%20y-0 and c-x_y-0 once each", target, seen)
		}
	}
}

// The sessions, calls and usage pages warn of what the CLI warns of beside
// the same lists (read.ListTapes, ListCalls, SumUsage), escaped as all
// else.
func TestListPagesWarn(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	writeTape(t, ws, "odd", "001_session-start", `{"id":"a1","kind":"anchor","payload":{"name":"session/start","state":{}},"date":"2026-11-22T09:00:00Z"}`,
		`{"id":"r1","kind":"tool_result","payload":{"results":[{"call_id":"<nobody>"}]},"date":"2026-11-22T09:00:01Z"}`,
		`{"id":"u1","kind":"event","payload":{"name":"run","data":{"model":"m","usage":{"input_tokens":-1,"output_tokens":2}}},"date":"2026-11-22T09:00:02Z"}`)
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.Dir(), "tapes", "alias")); err != nil {
		t.Fatal(err)
	}
	h := newServer(t, ws, Options{}).Handler()
	for _, tt := range []struct{ page, want string }{
		{"/", "tapes/alias"},
		{"/calls?tape=odd", "1 tool results answer no call of their tape: tapes/odd/anchors/001_session-start/messages.jsonl:1 (&lt;nobody&gt;)"},
		{"/usage?tape=odd", "1 run gave token counts that are not whole numbers"},
	} {
		if b := body(t, get(t, h, tt.page)); !strings.Contains(b, `<div class="bad" role="note">`) || !strings.Contains(b, tt.want) {
			t.Errorf("%s: no warning %q in\n%s", tt.page, tt.want, b)
		}
	}
}
