//go:build browser

// End-to-end tests of tape serve in a real headless Chromium, driven from
// Go over the DevTools protocol (chromedp): what a person does with the
// page (follow a link and come back, open a tool call, search, watch a
// tape grow as another process writes it) and how it looks (screenshots
// at desktop and phone widths, light and dark).
//
// They need Chromium, so they build only with the tag browser: `go test
// ./...` on a machine with only Go neither needs it nor skips a test. Run
// them with
//
//	go test -tags browser ./web -run Browser
//
// With the tag, a missing Chromium fails them, saying to install it
// (apt-get install chromium). chromedp finds the browser on the PATH;
// TAPE_CHROMIUM names another binary.
//
// The README's screenshots are written by TestBrowserScreenshots.
// Regenerate them from the repository's root with
//
//	TAPE_SCREENSHOTS=docs/screenshots go test -tags browser ./web -run BrowserScreenshots
//
// A relative TAPE_SCREENSHOTS is taken from the repository's root, not
// from web/ where go test runs. The Chinese text of the pages needs a CJK
// font to show as more than boxes (apt-get install fonts-noto-cjk); the
// tests pass without one.

package web

import (
	"bytes"
	"context"
	"image/png"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/poll"
)

// stepTimeout bounds each thing a test waits for in the browser: a page
// to load, an element to show, an entry to arrive live.
const stepTimeout = 20 * time.Second

// browserLife bounds a browser's whole life in one test, so that a hung
// browser cannot outlive its test.
const browserLife = 3 * time.Minute

// serve starts ws's server on a loopback listener, with a live poll
// quick enough for a test, and returns its URL. Call it before
// newBrowser: cleanups run last first, so the browser closes before the
// server waits for its open streams.
func serve(t *testing.T, ws *tapelog.Workspace) string {
	t.Helper()
	hs := httptest.NewServer(newServer(t, ws, Options{Poll: 50 * time.Millisecond}).Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// newBrowser starts a headless Chromium for one test and returns its tab.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.Headless)
	if path := os.Getenv("TAPE_CHROMIUM"); path != "" {
		opts = append(opts, chromedp.ExecPath(path))
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run its sandbox as root
	}
	life, stop := context.WithTimeout(context.Background(), browserLife)
	alloc, cancelAlloc := chromedp.NewExecAllocator(life, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		stop()
	})
	if err := chromedp.Do(tab); err != nil { // starts the browser, for the test's whole life
		t.Fatalf("start Chromium: %v\nthese tests need Chromium: install it (apt-get install chromium), or set TAPE_CHROMIUM to its binary", err)
	}
	return tab
}

// do runs steps in the tab, within stepTimeout; what says what they do.
func do(t *testing.T, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// run runs one action in the tab, within stepTimeout, and returns its value.
func run[T any](t *testing.T, tab context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// eval is the value of a script in the page.
func eval[T any](t *testing.T, tab context.Context, script string) T {
	t.Helper()
	return run(t, tab, "evaluate "+script, chromedp.Evaluate[T](script))
}

// open loads a page and fails unless it answers 200.
func open(t *testing.T, tab context.Context, target string) {
	t.Helper()
	res := run(t, tab, "open "+target, chromedp.NavigateResponse(target))
	if res.Status != 200 {
		t.Fatalf("open %s: %d %s", target, res.Status, res.StatusText)
	}
}

// follow does what a person does to leave a page (clicks a link, presses
// Enter in a box) and waits for the page it leads to, which must answer
// 200 (after redirects).
func follow(t *testing.T, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, steps...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if res == nil || res.Status != 200 {
		t.Fatalf("%s: the page it led to answered %+v", what, res)
	}
}

// at is the tab's location, checked to be want (the server's base + a
// path).
func at(t *testing.T, tab context.Context, want string) {
	t.Helper()
	if got := run(t, tab, "read the location", chromedp.Location()); got != want {
		t.Fatalf("the tab is at %s, want %s", got, want)
	}
}

// back presses the browser's back button: the tab goes to the entry of
// its history before the current one, whose URL back returns.
// chromedp.NavigateBack does the same, then waits for a load event, which
// never comes when the page is restored from the back-forward cache, as
// the sessions page is.
func back(t *testing.T, tab context.Context) string {
	t.Helper()
	h := run(t, tab, "read the tab's history", chromedp.NavigationEntries())
	if h.CurrentIndex < 1 || int(h.CurrentIndex) >= len(h.Entries) {
		t.Fatalf("the tab's history has no page before this one: entry %d of %d", h.CurrentIndex, len(h.Entries))
	}
	prev := h.Entries[h.CurrentIndex-1]
	do(t, tab, "go back", chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: prev.ID})
		return err
	}))
	return prev.URL
}

// waitScript waits until script, a condition, holds in the page, asking
// it every 50 ms until stepTimeout.
func waitScript(t *testing.T, tab context.Context, what, script string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout) // and a call the browser never answers
	defer cancel()
	var err error
	held := poll.WaitEvery(stepTimeout, 50*time.Millisecond, func() bool {
		var ok bool
		ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool](script))
		return err == nil && ok
	})
	if !held {
		t.Fatalf("%s: %s is still false after %v (last error: %v)", what, script, stepTimeout, err)
	}
}

// waitShown waits until the element sel finds is shown. For what a
// <details> holds, chromedp's WaitVisible is not enough: it asks for a
// box, which the content of a closed <details> has (the browser hides it
// with content-visibility); checkVisibility asks the browser whether it
// draws it.
func waitShown(t *testing.T, tab context.Context, what, sel string) {
	t.Helper()
	waitScript(t, tab, what, `document.querySelector(`+strconv.Quote(sel)+`)?.checkVisibility() === true`)
}

// shown reports whether the element sel finds is shown, as waitShown
// asks it.
func shown(t *testing.T, tab context.Context, sel string) bool {
	t.Helper()
	return eval[bool](t, tab, `document.querySelector(`+strconv.Quote(sel)+`)?.checkVisibility() === true`)
}

// textOf is the visible text (innerText) of the first element sel finds.
func textOf(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	return run(t, tab, "read the text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// TestBrowser: a person's way through the pages of the handler tests'
// workspace, in one tab: sessions, a tape and back, a tool call opened,
// two searches, and a tape that grows while it is open.
func TestBrowser(t *testing.T) {
	ws := fixture(t)
	base := serve(t, ws)
	tab := newBrowser(t)

	t.Run("follow a link and go back", func(t *testing.T) {
		open(t, tab, base+"/")
		do(t, tab, "see the sessions", chromedp.WaitVisible(css(`table.sessions a[href="/t/other"]`)))
		follow(t, tab, "click the link to tape demo", chromedp.Click(css(`table.sessions a[href="/t/demo"]`)))
		at(t, tab, base+"/t/demo")
		do(t, tab, "see demo's entries", chromedp.WaitVisible(css(`#entries #e-m3`)))
		if prev := back(t, tab); prev != base+"/" {
			t.Fatalf("the page before the tape's was %s, want the sessions page", prev)
		}
		// chromedp's DOM queries do not see a page restored from the
		// back-forward cache: ask the page itself.
		waitScript(t, tab, "see the sessions again", `location.href === "`+base+`/" && document.querySelector('table.sessions a[href="/t/demo"]') !== null`)
	})

	t.Run("expand a tool call", func(t *testing.T) {
		open(t, tab, base+"/t/demo/a/001_session-start")
		const bash, read = "#c-c1-0", "#c-c1-1" // tool_call c1's calls: bash, which failed, and read_file
		do(t, tab, "see the calls", chromedp.WaitVisible(css(bash+" > summary")), chromedp.WaitVisible(css(read+" > summary")))
		if shown(t, tab, bash+" .call-body") {
			t.Fatalf("the call's arguments and result show before it is opened")
		}
		do(t, tab, "open the bash call", chromedp.Click(css(bash+" > summary")))
		waitShown(t, tab, "see the call's arguments and result", bash+" .call-body")
		body := textOf(t, tab, bash+" .call-body")
		for _, want := range []string{"ARGUMENTS", "go test ./...", "FAILED WITH", "FAIL: TestFlushTimeout"} {
			if !strings.Contains(body, want) {
				t.Errorf("the opened call shows no %q:\n%s", want, body)
			}
		}
		// A long result shows its head, folded, until asked for all of it.
		do(t, tab, "open the read_file call", chromedp.Click(css(read+" > summary")))
		waitShown(t, tab, "see the head of the long result", read+" details.long > summary")
		if body := textOf(t, tab, read+" .call-body"); !strings.Contains(body, "show all 41 lines") || strings.Contains(body, "the end") {
			t.Errorf("the long result is not folded to its head:\n%s", body)
		}
		do(t, tab, "show the whole result", chromedp.Click(css(read+" details.long > summary")))
		waitShown(t, tab, "see the whole result", read+" details.long[open] > pre")
		if body := textOf(t, tab, read+" .call-body"); !strings.Contains(body, "the end") {
			t.Errorf("the whole result does not show when asked for:\n%s", body)
		}
	})

	t.Run("search for a Chinese word", func(t *testing.T) {
		open(t, tab, base+"/")
		follow(t, tab, "type 数据库 in the search box and press Enter",
			chromedp.SendKeys(css(`header.top input[name=q]`), "数据库"+kb.Enter))
		at(t, tab, base+"/search?q="+url.QueryEscape("数据库"))
		seeHighlighted(t, tab, "数据库")
		follow(t, tab, "click the hit", chromedp.Click(css(`.hit a.snippet[href="/t/demo/e/m1"]`)))
		at(t, tab, base+"/t/demo/a/001_session-start#e-m1")
		if got := eval[string](t, tab, `document.querySelector(":target").id`); got != "e-m1" {
			t.Errorf("the hit's page targets %q, want the entry e-m1", got)
		}
	})

	t.Run("search for a code identifier", func(t *testing.T) {
		open(t, tab, base+"/search")
		follow(t, tab, "type TestFlushTimeout in the search page's box and click Search",
			chromedp.SendKeys(css(`form.search-big input[name=q]`), "TestFlushTimeout"),
			chromedp.Click(css(`form.search-big button`)))
		at(t, tab, base+"/search?q=TestFlushTimeout")
		seeHighlighted(t, tab, "TestFlushTimeout")
		// The hit is a tool's result, shown folded into its call: the
		// link to it opens the call.
		follow(t, tab, "click the hit", chromedp.Click(css(`.hit a.snippet[href="/t/demo/e/r1"]`)))
		at(t, tab, base+"/t/demo/a/001_session-start#e-r1")
		waitShown(t, tab, "see the call the result answers, opened", `#c-c1-0 .call-body`)
	})

	t.Run("an entry another process appends appears", func(t *testing.T) {
		open(t, tab, base+"/t/demo")
		do(t, tab, "see the live tape", chromedp.WaitVisible(css(`#entries[data-live] #e-m3`)),
			chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
		messages := filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl")
		appendByProcess(t, messages, `{"id":"live1","kind":"message","payload":{"role":"assistant","content":"written by another process"},"date":"2026-11-20T10:00:02Z"}`)
		do(t, tab, "see the new entry", chromedp.WaitVisible(css(`#entries > #e-live1`)))
		if got := textOf(t, tab, `#e-live1`); !strings.Contains(got, "written by another process") {
			t.Errorf("the new entry shows %q", got)
		}
		// A call shows pending, then its result folds into it.
		appendByProcess(t, messages, `{"id":"live2","kind":"tool_call","payload":{"calls":[{"id":"call_live","type":"function","function":{"name":"make","arguments":"{\"target\":\"check\"}"}}]},"date":"2026-11-20T10:00:03Z"}`)
		do(t, tab, "see the new call, pending", chromedp.WaitVisible(css(`#entries > #e-live2 #c-live2-0.s-pending`)))
		appendByProcess(t, messages, `{"id":"live3","kind":"tool_result","payload":{"results":[{"tool_call_id":"call_live","content":"all checks passed"}]},"date":"2026-11-20T10:00:04Z"}`)
		do(t, tab, "see the call answered", chromedp.WaitVisible(css(`#entries > #e-live2 #c-live2-0.s-completed`)))
		if !eval[bool](t, tab, `window.notReloaded === true`) {
			t.Errorf("the page was reloaded to show the new entries")
		}
		// live1 and live2: live3, the result, shows in live2's call.
		if got := eval[string](t, tab, `document.body.dataset.appended`); got != "2" {
			t.Errorf("the page appended %s entries, want 2", got)
		}
	})
}

// seeHighlighted checks that a search page shows hits with word
// highlighted, as marks a person can see.
func seeHighlighted(t *testing.T, tab context.Context, word string) {
	t.Helper()
	do(t, tab, "see the hits", chromedp.WaitVisible(css(`.hits .hit mark`)))
	marks := eval[[]string](t, tab, `Array.from(document.querySelectorAll(".hit mark"), m => m.textContent)`)
	if !slices.ContainsFunc(marks, func(m string) bool { return strings.EqualFold(m, word) }) {
		t.Errorf("the hits highlight %q, not %q", marks, word)
	}
	if !eval[bool](t, tab, `Array.from(document.querySelectorAll(".hit mark")).every(m =>
		m.checkVisibility() && getComputedStyle(m).backgroundColor !== getComputedStyle(m.parentElement).backgroundColor)`) {
		t.Errorf("a highlighted word is hidden or has no background of its own")
	}
}

// appendByProcess appends line to file from another process, as an
// agent writing its tape does.
func appendByProcess(t *testing.T, file, line string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `printf '%s\n' "$LINE" >> "$FILE"`)
	cmd.Env = append(os.Environ(), "LINE="+line, "FILE="+file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("append to %s: %v\n%s", file, err, out)
	}
}

// A width a screenshot is taken at.
type viewport struct {
	name          string
	width, height int64
	scale         float64 // device pixels per CSS pixel
	mobile        bool
}

var (
	desktop = viewport{name: "desktop", width: 1280, height: 900, scale: 1}
	phone   = viewport{name: "phone", width: 390, height: 844, scale: 2, mobile: true}
)

func (v viewport) emulate() chromedp.Action[chromedp.Void] {
	if v.mobile {
		return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(v.scale), chromedp.EmulateMobile)
	}
	return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(v.scale))
}

// colorScheme emulates prefers-color-scheme: "light" or "dark".
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

// screenshotDir is where TestBrowserScreenshots writes: TAPE_SCREENSHOTS,
// taken from the repository's root when relative, else a folder the test
// removes.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TAPE_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", dir) // go test runs in web/
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A page a screenshot shows.
type shot struct {
	name, path string
	// prepare readies the page after it loads: opens what it shows.
	prepare func(t *testing.T, tab context.Context)
}

// TestBrowserScreenshots writes a PNG of each page at desktop and phone
// widths (and of a tape in dark mode) of a workspace like a person's,
// checking on the way that each page loads, fits a phone's width without
// scrolling sideways, and turns dark when the system asks for it.
func TestBrowserScreenshots(t *testing.T) {
	dir := screenshotDir(t)
	base := serve(t, showcase(t))
	tab := newBrowser(t)
	shots := []shot{
		{"sessions", "/", nil},
		{"tape", "/t/fix-flaky-flush", nil},
		{"call", "/t/fix-flaky-flush/a/002_investigate", func(t *testing.T, tab context.Context) {
			const call = "#c-loop-0" // the test run that failed
			do(t, tab, "open the failing call", chromedp.Click(css(call+" > summary")))
			waitShown(t, tab, "see the failing call opened", call+" .call-body")
			do(t, tab, "scroll to the call", chromedp.Evaluate[chromedp.Void](`window.scrollBy(0, document.querySelector("`+call+`").getBoundingClientRect().top - 70)`))
		}},
		{"search", "/search?q=timeout", nil},
		{"calls", "/calls", nil},
		{"usage", "/usage", nil},
	}
	do(t, tab, "ask for the light scheme", colorScheme("light"))
	for _, v := range []viewport{desktop, phone} {
		do(t, tab, "set the viewport to "+v.name, v.emulate())
		for _, s := range shots {
			t.Run(s.name+"-"+v.name, func(t *testing.T) {
				open(t, tab, base+s.path)
				if s.prepare != nil {
					s.prepare(t, tab)
				}
				tablesAreTables(t, tab)
				if v.mobile {
					fitsWidth(t, tab)
				}
				screenshot(t, tab, v, filepath.Join(dir, s.name+"-"+v.name+".png"))
			})
		}
	}

	t.Run("dark", func(t *testing.T) {
		do(t, tab, "set the viewport to desktop", desktop.emulate())
		open(t, tab, base+"/t/fix-flaky-flush")
		if bg := eval[string](t, tab, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(251, 251, 250)" {
			t.Errorf("the light page's background is %s", bg)
		}
		do(t, tab, "ask for the dark scheme", colorScheme("dark"))
		if bg := eval[string](t, tab, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(21, 23, 26)" {
			t.Errorf("with prefers-color-scheme: dark, the page's background is %s, want the dark one", bg)
		}
		if fg := eval[string](t, tab, `getComputedStyle(document.querySelector("#entries .text")).color`); fg != "rgb(228, 230, 234)" {
			t.Errorf("with prefers-color-scheme: dark, a message's text is %s, want the light one", fg)
		}
		screenshot(t, tab, desktop, filepath.Join(dir, "tape-dark-desktop.png"))
		do(t, tab, "set the viewport to phone", phone.emulate())
		open(t, tab, base+"/t/fix-flaky-flush")
		screenshot(t, tab, phone, filepath.Join(dir, "tape-dark-phone.png"))
	})
}

// fitsWidth checks that the page does not scroll sideways: wide tables
// scroll in their own boxes. (A phone widens its layout viewport, and so
// innerWidth, to fit what overflows; clientWidth stays the device's.)
func fitsWidth(t *testing.T, tab context.Context) {
	t.Helper()
	w := eval[[]int](t, tab, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
	if w[0] > w[1] {
		wide := eval[[]string](t, tab, `Array.from(document.querySelectorAll("main *"))
			.filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !e.closest(".scroll"))
			.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : ""))`)
		t.Errorf("the page is %d px wide on a screen of %d: it scrolls sideways (too wide: %q)", w[0], w[1], wide)
	}
}

// tablesAreTables checks that no rule for another element reaches a
// table's cells and lays them out as something else.
func tablesAreTables(t *testing.T, tab context.Context) {
	t.Helper()
	odd := eval[[]string](t, tab, `Array.from(document.querySelectorAll("td, th"))
		.filter(c => getComputedStyle(c).display !== "table-cell")
		.map(c => c.tagName.toLowerCase() + "." + c.className + ": display " + getComputedStyle(c).display)`)
	if len(odd) > 0 {
		t.Errorf("%d table cells are not laid out as cells, such as %q", len(odd), odd[:min(3, len(odd))])
	}
}

// screenshot writes a PNG of the viewport to file, once the page's fonts
// are loaded.
func screenshot(t *testing.T, tab context.Context, v viewport, file string) {
	t.Helper()
	do(t, tab, "wait for the fonts", chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	img := run(t, tab, "take a screenshot", chromedp.CaptureScreenshot())
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	if want := int(float64(v.width) * v.scale); cfg.Width != want {
		t.Errorf("the screenshot is %d px wide, want %d", cfg.Width, want)
	}
	if err := os.WriteFile(file, img, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d KB)", file, len(img)/1024)
}

// TestBrowserHiddenTabPauses: a tape's page in a hidden tab closes its
// stream (a browser opens six connections to a server, and a seventh
// tab would wait), and, shown again, resumes where the stream was: what
// was written meanwhile appears once.
func TestBrowserHiddenTabPauses(t *testing.T) {
	ws := fixture(t)
	srv := newServer(t, ws, Options{Poll: 50 * time.Millisecond})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	tab := newBrowser(t)
	streams := func(want int64) {
		t.Helper()
		if !poll.Wait(stepTimeout, func() bool { return srv.streams.Load() == want }) {
			t.Fatalf("the server has %d live streams open, want %d", srv.streams.Load(), want)
		}
	}
	visible := func(shown bool) {
		do(t, tab, "make the tab "+map[bool]string{true: "shown", false: "hidden"}[shown], chromedp.Evaluate[chromedp.Void](
			`Object.defineProperty(document, "hidden", {configurable: true, get: () => `+strconv.FormatBool(!shown)+`});
			 document.dispatchEvent(new Event("visibilitychange"))`))
	}
	open(t, tab, hs.URL+"/t/demo")
	streams(1)
	messages := filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl")
	appendByProcess(t, messages, `{"id":"seen","kind":"message","payload":{"role":"user","content":"before hiding"},"date":"2026-11-20T10:00:02Z"}`)
	do(t, tab, "see the entry", chromedp.WaitVisible(css(`#entries > #e-seen`)))

	visible(false)
	streams(0)
	if got := eval[string](t, tab, `document.getElementById("entries").dataset.stream`); got != "paused" {
		t.Fatalf("a hidden tab's stream is %q, want paused", got)
	}
	appendByProcess(t, messages, `{"id":"meanwhile","kind":"message","payload":{"role":"user","content":"while hidden"},"date":"2026-11-20T10:00:03Z"}`)

	visible(true)
	streams(1)
	do(t, tab, "see what was written while hidden", chromedp.WaitVisible(css(`#entries > #e-meanwhile`)))
	if n := eval[int](t, tab, `document.querySelectorAll('#entries > [id="e-seen"], #entries > [id="e-meanwhile"]').length`); n != 2 {
		t.Errorf("the page shows %d of the two entries, want each once", n)
	}
}

// TestBrowserLiveIDInjectsNothing: an entry whose id holds a line break
// and a data field (any agent can append one) shows as an entry, and the
// markup in its id is text: no meta refresh takes the page elsewhere. A
// stream paused and resumed after it goes on from its place.
func TestBrowserLiveIDInjectsNothing(t *testing.T) {
	ws := fixture(t)
	srv := newServer(t, ws, Options{Poll: 50 * time.Millisecond})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	tab := newBrowser(t)
	open(t, tab, hs.URL+"/t/demo")
	do(t, tab, "see the live tape", chromedp.WaitVisible(css(`#entries[data-live] #e-m3`)))
	const id = "x\ndata: <meta http-equiv=refresh content=\"0;url=/search?q=injected\">\r\ny"
	messages := filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl")
	appendByProcess(t, messages, `{"id":`+strconv.Quote(id)+`,"kind":"message","payload":{"role":"user","content":"an odd id"},"date":"2026-11-20T10:00:02Z"}`)
	// Its own event, whose id is its place. (HTML reads a CR LF in an
	// attribute as an LF.)
	waitScript(t, tab, "see the entry whose id holds a data field",
		`document.getElementById("e-"+`+strconv.Quote(strings.ReplaceAll(id, "\r\n", "\n"))+`) !== null`)
	appendByProcess(t, messages, `{"id":"after","kind":"message","payload":{"role":"user","content":"after it"},"date":"2026-11-20T10:00:03Z"}`)
	do(t, tab, "see the entry after it", chromedp.WaitVisible(css(`#entries > #e-after`)))
	if n := eval[int](t, tab, `document.querySelectorAll("meta[http-equiv]").length`); n != 0 {
		t.Errorf("the page holds %d meta elements with http-equiv", n)
	}
	hide := func(hidden bool) {
		do(t, tab, "hide or show the tab", chromedp.Evaluate[chromedp.Void](
			`Object.defineProperty(document, "hidden", {configurable: true, get: () => `+strconv.FormatBool(hidden)+`});
			 document.dispatchEvent(new Event("visibilitychange"))`))
	}
	hide(true)
	waitScript(t, tab, "the stream pauses", `document.getElementById("entries").dataset.stream === "paused"`)
	appendByProcess(t, messages, `{"id":"meanwhile","kind":"message","payload":{"role":"user","content":"while hidden"},"date":"2026-11-20T10:00:04Z"}`)
	hide(false)
	do(t, tab, "see what was written while hidden", chromedp.WaitVisible(css(`#entries > #e-meanwhile`)))
	if n := eval[int](t, tab, `document.querySelectorAll('#entries > [id="e-after"]').length`); n != 1 {
		t.Errorf("the page shows the entry before the pause %d times, want once", n)
	}
	at(t, tab, hs.URL+"/t/demo")
}

// TestBrowserRefusedStreamTriesAgain: a page whose stream the server
// refuses (as many live pages are open as it follows: 503) says so, and
// tries again later; once a stream closes, the page is live.
func TestBrowserRefusedStreamTriesAgain(t *testing.T) {
	ws := fixture(t)
	srv := newServer(t, ws, Options{Poll: 50 * time.Millisecond, MaxStreams: 1})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	other := openStream(t, hs.URL+"/t/demo/live?at=002_review/2/m3&from=0") // the one the server follows
	tab := newBrowser(t)
	open(t, tab, hs.URL+"/t/demo")
	waitScript(t, tab, "the page waits to try again", `document.getElementById("entries").dataset.stream === "waiting"`)
	if got := textOf(t, tab, `#live-status`); !strings.Contains(got, "trying again") {
		t.Errorf("a refused page says %q", got)
	}
	other.cancel()
	waitScript(t, tab, "the page's stream opens once the other closed", `document.getElementById("entries").dataset.stream === "open"`)
	appendByProcess(t, filepath.Join(ws.Dir(), "tapes", "demo", "anchors", "002_review", "messages.jsonl"),
		`{"id":"now","kind":"message","payload":{"role":"user","content":"live at last"},"date":"2026-11-20T10:00:02Z"}`)
	do(t, tab, "see the new entry", chromedp.WaitVisible(css(`#entries > #e-now`)))
}
