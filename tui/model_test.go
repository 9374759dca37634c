package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The list shows every session, newest first, and the selected one's
// preview: its folder, agent and first messages; at 80×24 and 200×50.
func TestSessionsListAndPreview(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		d := newDriver(t, f, Options{}, size[0], size[1])
		d.wants("2 of 2 sessions", "codex-bbb", "deploy the web server", "folder   /w/web", "agent    codex bbb", "q quit")
		s := d.screen()
		if strings.Index(s, "deploy the web server") > strings.Index(s, "修复 flaky 测试") {
			t.Fatalf("%dx%d: the newest session is not first:\n%s", size[0], size[1], s)
		}
		d.keys("down")
		d.wants("folder   /w/tape", "agent    claude aaa")
	}
}

func TestFilterAndSort(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 80, 24)
	d.keys("f")
	d.typeText("source:claude")
	d.wants("1 of 2 sessions", "claude-aaa")
	d.lacks("codex-bbb")
	d.keys("esc")
	d.wants("2 of 2 sessions", "deploy the web server")
	d.typeText("s")
	d.wants("by first written")
	d.typeText("ss")
	d.wants("by project")
	if s := d.screen(); strings.Index(s, "修复") > strings.Index(s, "deploy") {
		t.Fatalf("sorted by project, web comes before tape:\n%s", s)
	}
}

// Search runs as you type, marks the hits' tapes and kinds, takes
// filters, orders by rank or date, and says when nothing matches.
func TestSearchAsYouType(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 80, 24)
	d.keys("/")
	d.typeText("wombat")
	d.wants("search every tape", "1 hits", "claude-aaa · tool_result", "wombat")
	d.typeText(" kind:message")
	d.wants("nothing matches")
	for range len(" kind:message") {
		d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	d.wants("1 hits")
	d.typeText("测试")
	d.wants("nothing matches wombat测试")
	for range 8 {
		d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	d.typeText("the")
	d.wants("best first", "codex-bbb · message", "claude-aaa")
	d.keys("ctrl+o")
	d.wants("newest first")
	if s := d.screen(); strings.Index(s, "codex-bbb") > strings.Index(s, "claude-aaa") {
		t.Fatalf("newest first, codex-bbb (11-21) is below claude-aaa (11-20):\n%s", s)
	}
	d.typeText(" project:tape")
	d.lacks("codex-bbb")
	d.wants("claude-aaa")
	d.keys("esc")
	d.wants("2 of 2 sessions")
}

// A session reads as a chat: a call folded in a line with its status,
// its result shown with it once opened and not again on its own,
// thoughts dimmed and folded, anchors as headings.
func TestOpenSessionFoldsCalls(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 100, 30)
	d.keys("down", "enter")
	d.wants("── ⚑ session/start", "user · ", "修复 flaky 测试", "▸ Bash ✓ 1s go test ./parser", "▸ thinking: the cache is stale", "── ⚑ compact", "日本語のテキストも大丈夫です")
	d.lacks("wombat", "returned")
	d.keys("down", "down", "down", "enter")
	d.wants("▾ Bash", "arguments", `{"command":"go test ./parser"}`, "returned", "ok  ", "parser", "wombat")
	if strings.Count(d.screen(), "wombat") != 1 {
		t.Fatalf("the result shows twice, with its call and on its own:\n%s", d.screen())
	}
	d.wants("q back")
	d.keys("]")
	if b := d.m.selectedBlock(); b == nil || b.id != "a2" {
		t.Fatalf("] selects %+v; want the anchor a2", b)
	}
	d.keys("q")
	d.wants("2 of 2 sessions")
}

// A search hit opens its session at its entry; q goes back to the hits.
func TestOpenHit(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 80, 24)
	d.keys("/")
	d.typeText("大丈夫")
	d.keys("enter")
	if b := d.m.selectedBlock(); b == nil || b.id != "m3" {
		t.Fatalf("the hit opened at %+v; want m3", b)
	}
	d.wants("日本語のテキストも大丈夫です")
	d.keys("q")
	d.wants("search every tape", "claude-aaa · message")
}

// What a transcript wrote that a terminal would act on is not drawn.
func TestEscapesAreNotDrawn(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 100, 30)
	d.keys("down", "enter", "down", "down", "down", "down", "enter")
	if s := d.m.draw(); strings.Contains(s, "\x1b[2J") || !strings.Contains(d.screen(), "▾ thinking") {
		t.Fatalf("the thinking's escape is drawn, or its text is not:\n%q", s)
	}
}

// New lines an agent appends appear in the open session, and the
// selection follows them when it was on the last block.
func TestNewEntriesAppear(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := newDriver(t, f, Options{Tape: "codex-bbb"}, 80, 24)
	d.send(tickMsg{}) // the first look: the version to compare with
	d.wants("deploy the web server")
	d.keys("end")
	path := filepath.Join(f.dir, "tapes/codex-bbb/anchors/001_session-start/messages.jsonl")
	file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := file.WriteString(jsonl(`{"id":"n2","kind":"message","payload":{"role":"assistant","content":"deployed to staging"},"date":"2026-11-21T09:00:09Z"}`)); err != nil {
		t.Fatal(err)
	}
	file.Close()
	d.send(tickMsg{})
	d.wants("deployed to staging")
	if b := d.m.selectedBlock(); b == nil || b.id != "n2" {
		t.Fatalf("the selection is on %+v; want the new entry n2", b)
	}
}

// r and y resume a session in its agent, or copy the command; a session
// no agent recorded says there is nothing to resume.
func TestResume(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 120, 24)
	d.keys("y")
	d.wants("copied: cd /w/web && codex resume bbb")
	d.keys("down", "y")
	d.wants("copied: cd /w/tape && claude --resume aaa")
}

// e exports the session as Markdown into the folder, secrets redacted,
// and never over a file that is there.
func TestExport(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := t.TempDir()
	x := &Exporter{Served: f.served, Dir: dir}
	d := newDriver(t, f, Options{Export: x.Export}, 120, 24)
	d.keys("down", "e")
	d.wants("exported claude-aaa to " + filepath.Join(dir, "claude-aaa.md"))
	d.keys("e")
	d.wants("claude-aaa-2.md")
	md, err := os.ReadFile(filepath.Join(dir, "claude-aaa.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), secret) || !strings.Contains(string(md), "修复 flaky 测试") || !strings.Contains(string(md), "[REDACTED:") {
		t.Fatalf("the export holds the secret, or not the text, or no mark:\n%s", md)
	}
}

// Resizing draws every screen again at the new size.
func TestResize(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 200, 50)
	d.keys("down", "enter")
	d.wants("修复 flaky 测试")
	d.send(tea.WindowSizeMsg{Width: 40, Height: 12})
	d.screen() // fits, or fails
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.wants("修复 flaky 测试")
}

// One character is not searched as it is typed (in Chinese it matches
// half the index), but is when enter asks.
func TestOneCharacterWaitsForEnter(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 80, 24)
	d.keys("/")
	d.typeText("修")
	d.wants("one character finds too much")
	d.keys("enter")
	d.wants("1 hits", "claude-aaa · message")
}

// Scrolling to the last hit asks for the next page of hits, and keeps the
// place.
func TestScrollingAsksForMoreHits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var lines strings.Builder
	for i := range 2*searchPage + 10 {
		lines.WriteString(jsonl(`{"kind":"message","payload":{"role":"user","content":"needle ` + strings.Repeat("x", i%7) + `"},"date":"2026-11-21T10:00:00Z"}`))
	}
	path := filepath.Join(f.dir, "tapes/codex-bbb/anchors/001_session-start/messages.jsonl")
	if err := os.WriteFile(path, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reader.Version(t.Context()); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, f, Options{}, 80, 24)
	d.keys("/")
	d.typeText("needle")
	d.wants(fmt.Sprintf("%d+ hits", searchPage))
	for range searchPage - 1 {
		d.keys("down")
	}
	d.wants(fmt.Sprintf("%d+ hits", 2*searchPage))
	if d.m.search.cursor != searchPage-1 {
		t.Fatalf("after more hits came the selection is on %d; want %d", d.m.search.cursor, searchPage-1)
	}
	for range searchPage {
		d.keys("down")
	}
	d.wants(fmt.Sprintf("%d hits", 2*searchPage+10))
}
