//go:build browser

package web

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	tapelog "github.com/tape-dev/tape/log"
)

// zhSession is a session in Chinese, as people write them: a request, a
// plan, a call that fails and one that works.
func zhSession(s *script) {
	s.anchor("001_session-start", "session/start", map[string]any{"cwd": "/home/li/webapp", "source": "claude"})
	s.title("修复登录页的错误")
	s.user("登录页在输入错误密码后会崩溃，请修复它，然后跑测试。")
	s.think("先看登录处理函数，再跑一次测试看看怎么失败。")
	s.assistant("好的，我先看登录处理函数 handleLogin，再跑测试。")
	s.call("", "bash", map[string]any{"command": "go test ./auth -run TestLogin"},
		"--- FAIL: TestLogin (0.01s)\n    login_test.go:31: 错误密码时应返回 401，得到 panic", true, 900*time.Millisecond)
	s.assistant("问题在于 user 为 nil 时仍然读取了 user.Hash。我加了一个判断，现在返回 401。")
	s.call("", "bash", map[string]any{"command": "go test ./auth"}, "ok  \twebapp/auth\t0.4s", false, 400*time.Millisecond)
	s.run("claude-sonnet-4-5", 9120, 340, 6000)
}

// tapeEntries are a tape's entries, read from its files.
func tapeEntries(t *testing.T, ws *tapelog.Workspace, name string) []tapelog.Entry {
	t.Helper()
	tp, err := ws.Tape(name)
	if err != nil {
		t.Fatal(err)
	}
	var entries []tapelog.Entry
	for e, err := range tp.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	return entries
}

// exportFile writes a tape of ws as one HTML page, and returns its path.
func exportFile(t *testing.T, ws *tapelog.Workspace, name string) string {
	t.Helper()
	entries := tapeEntries(t, ws, name)
	path := filepath.Join(t.TempDir(), name+".html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := ExportHTML(f, testHead(name, entries), entries); err != nil {
		t.Fatal(err)
	}
	return path
}

// testHead is what an export of a test's tape says above its entries.
func testHead(name string, entries []tapelog.Entry) ExportHead {
	return ExportHead{Tape: name, Title: name, Entries: len(entries), Version: "test"}
}

// exportShowcase is the showcase's workspace with a session in Chinese
// beside its English ones, and a browser.
func exportShowcase(t *testing.T) (*tapelog.Workspace, context.Context) {
	t.Helper()
	ws := showcase(t)
	zhSession(newScript(t, ws, "fix-login-zh", "zh", day(2026, 11, 22, 10, 0)))
	return ws, newBrowser(t)
}

// openExport opens an exported file at desktop width, light, and checks
// that it shows each of shows.
func openExport(t *testing.T, tab context.Context, file string, shows []string) {
	t.Helper()
	do(t, tab, "set the viewport to desktop", desktop.emulate(), colorScheme("light"))
	do(t, tab, "open the export", chromedp.Navigate(file))
	text := eval[string](t, tab, `document.body.innerText`)
	for _, s := range shows {
		if !strings.Contains(text, s) {
			t.Errorf("the page does not show %q", s)
		}
	}
}

// An exported page, opened from a file, asks for nothing (no style sheet,
// script, font or image from anywhere), shows the chat in English and in
// Chinese, opens a call on a click, and has a dark scheme; screenshots.
func TestBrowserExport(t *testing.T) {
	dir := screenshotDir(t)
	ws, tab := exportShowcase(t)
	var mu sync.Mutex
	var asked []string
	if err := chromedp.Listen(tab, func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			asked = append(asked, r.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	do(t, tab, "watch the network", chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, network.Enable, network.EnableParams{})
		return err
	}))
	for _, c := range []struct {
		tape, shot string
		shows      []string
	}{
		{"fix-flaky-flush", "export-desktop", []string{"Find out why and fix it", "go test ./log -run TestFlushTimeout"}},
		{"fix-login-zh", "export-zh-desktop", []string{"登录页在输入错误密码后会崩溃", "我加了一个判断"}},
	} {
		t.Run(c.tape, func(t *testing.T) {
			mu.Lock()
			asked = nil
			mu.Unlock()
			file := "file://" + exportFile(t, ws, c.tape)
			openExport(t, tab, file, c.shows)
			do(t, tab, "open the first call", chromedp.Click(css("details.call > summary")))
			waitShown(t, tab, "see the call opened", "details.call[open] .call-body")
			screenshot(t, tab, desktop, filepath.Join(dir, c.shot+".png"))
			do(t, tab, "ask for the dark scheme", colorScheme("dark"))
			if bg := eval[string](t, tab, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(21, 23, 26)" {
				t.Errorf("dark: the background is %s", bg)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, u := range asked {
				if u != file {
					t.Errorf("the page asked for %s", u)
				}
			}
		})
	}
}

// exportMarkdownPage renders a tape's Markdown export as GitHub would
// (CommonMark and its tables, strikethrough and autolinks; raw HTML kept,
// as GitHub keeps <details>), in a page that may load nothing.
func exportMarkdownPage(t *testing.T, ws *tapelog.Workspace, name string, extra ...tapelog.Entry) string {
	t.Helper()
	entries := append(tapeEntries(t, ws, name), extra...)
	var md, page bytes.Buffer
	if err := ExportMarkdown(&md, testHead(name, entries), entries); err != nil {
		t.Fatal(err)
	}
	page.WriteString(`<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
		`<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:1rem auto;padding:0 1rem}pre{background:#f6f8fa;padding:.6rem;overflow:auto}details{margin:.4rem 0}</style></head><body>`)
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	page.WriteString("</body></html>")
	path := filepath.Join(t.TempDir(), name+".md.html")
	if err := os.WriteFile(path, page.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The Markdown export, rendered as GitHub renders Markdown: the chat in
// English and Chinese, each call a <details> that opens, and a transcript
// that holds tags (a script, an image that runs code) shown as text.
func TestBrowserExportMarkdown(t *testing.T) {
	dir := screenshotDir(t)
	ws, tab := exportShowcase(t)
	hostile := tapelog.Entry{ID: "x1", Kind: tapelog.KindMessage, Date: "2026-11-22T10:02:00Z",
		Payload: []byte(`{"role":"user","content":"<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\"></details>"}`)}
	for _, c := range []struct {
		tape, shot string
		shows      []string
	}{
		{"fix-flaky-flush", "export-md-desktop", []string{"Find out why and fix it", "go test ./log -run TestFlushTimeout"}},
		{"fix-login-zh", "export-md-zh-desktop", []string{"登录页在输入错误密码后会崩溃", "我加了一个判断", "<script>"}},
	} {
		t.Run(c.tape, func(t *testing.T) {
			var extra []tapelog.Entry
			if c.tape == "fix-login-zh" {
				extra = append(extra, hostile)
			}
			openExport(t, tab, "file://"+exportMarkdownPage(t, ws, c.tape, extra...), c.shows)
			if n := eval[int](t, tab, `document.querySelectorAll("script, img").length`); n != 0 {
				t.Errorf("the transcript made %d elements of its own", n)
			}
			if title := eval[string](t, tab, `document.title`); title == "pwned" {
				t.Error("the transcript's script ran")
			}
			if n := eval[int](t, tab, `document.querySelectorAll("details").length`); n < 2 {
				t.Errorf("%d <details>; want the calls folded", n)
			}
			do(t, tab, "open the first call", chromedp.Click(css("details > summary")))
			waitScript(t, tab, "see the call opened", `document.querySelector("details").open`)
			screenshot(t, tab, desktop, filepath.Join(dir, c.shot+".png"))
		})
	}
}
