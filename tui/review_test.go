package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Every way back from a search and a session lands on a screen that is
// there: esc from a search started in a session goes back to it, q from
// the session to the list.
func TestBackAndForth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := newDriver(t, f, Options{}, 80, 24)
	d.keys("down", "enter", "/", "esc")
	d.wants("▌", "q back")
	d.keys("q")
	d.wants("2 of 2 sessions")
	d = newDriver(t, f, Options{Tape: "codex-bbb"}, 120, 30)
	d.keys("/", "esc")
	d.wants("deploy the web server", "q back")
	d.keys("q")
	d.wants("2 of 2 sessions", "user · ") // the preview, read though the list was not shown when it came
}

// A look that finds nothing new changes nothing; one that finds new
// entries keeps the search's selection on its hit.
func TestLooksKeepTheSelection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	v1, err := f.reader.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if v2, err := f.reader.Version(t.Context()); err != nil || v2 != v1 {
		t.Fatalf("the version moved from %s to %s (%v) with nothing written", v1, v2, err)
	}
	d := newDriver(t, f, Options{}, 80, 24)
	d.keys("/")
	d.typeText("the")
	d.keys("down")
	was, _ := d.m.search.selected()
	appendLine(t, f, "tapes/codex-bbb/anchors/001_session-start/messages.jsonl", `{"id":"n9","kind":"message","payload":{"role":"user","content":"the newest of the the"},"date":"2026-11-21T10:00:00Z"}`)
	d.send(tickMsg{})
	d.send(tickMsg{})
	if now, _ := d.m.search.selected(); now.Entry.ID != was.Entry.ID || len(d.m.search.hits) < 3 {
		t.Fatalf("after a look the selection is on %s of %d hits; want %s", now.Entry.ID, len(d.m.search.hits), was.Entry.ID)
	}
}

// What a transcript wrote in a session's source, a folder or an entry's
// kind reaches the terminal without its escapes.
func TestNoEscapesFromFacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(f.dir, "tapes/evil-ccc/anchors/001_session-start")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("anchor.json", `{"id":"e0","kind":"anchor","payload":{"name":"x\u001b]0;PWN\u0007","state":{"source":"cl\u001b]0;PWN\u0007","session_id":"e","cwd":"/w/e\u0007v\u001b[2J"}},"date":"2026-11-22T09:00:00Z"}`)
	write("events.jsonl", jsonl(`{"id":"e1","kind":"x\u001b[2Jk","payload":{"text":"evil zebra"},"date":"2026-11-22T09:00:01Z"}`))
	if _, err := f.reader.Version(t.Context()); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, f, Options{}, 120, 30)
	check := func(where string) {
		t.Helper()
		if s := d.m.draw(); strings.Contains(s, "\x1b]") || strings.Contains(s, "\x07") || strings.Contains(s, "\x1b[2J") {
			t.Fatalf("%s: a transcript's escape is drawn:\n%q", where, s)
		}
	}
	d.wants("3 of 3 sessions")
	check("the list")
	d.keys("/")
	d.typeText("zebra")
	d.wants("evil-ccc")
	check("the search")
	d.keys("enter")
	check("the session")
}

func appendLine(t *testing.T, f *fixture, name, line string) {
	t.Helper()
	file, err := os.OpenFile(filepath.Join(f.dir, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := file.WriteString(jsonl(line)); err != nil {
		t.Fatal(err)
	}
}

// On a wide terminal a session shows its anchors beside the chat, with
// how many entries each holds.
func TestAnchorsPane(t *testing.T) {
	t.Parallel()
	d := newDriver(t, newFixture(t), Options{}, 160, 30)
	d.keys("down", "enter")
	d.wants("ANCHORS (2)", "⚑ session/start", "⚑ compact", "│ ")
	d.keys("]")
	if b := d.m.selectedBlock(); b == nil || d.m.open.anchorOf(b) != 1 {
		t.Fatalf("] selects %+v, not in the second anchor", b)
	}
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.lacks("ANCHORS (2)")
}

// A call drawn pending is drawn again when its result comes: a block is
// drawn again when it changes, not only when it is new.
func TestAnsweredCallIsDrawnAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	appendLine(t, f, "tapes/codex-bbb/anchors/001_session-start/messages.jsonl", `{"id":"c9","kind":"tool_call","payload":{"calls":[{"id":"k9","name":"shell","arguments":"{\"command\":\"make deploy\"}"}]},"date":"2026-11-21T09:00:05Z"}`)
	if _, err := f.reader.Version(t.Context()); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, f, Options{Tape: "codex-bbb"}, 100, 30)
	d.send(tickMsg{})
	d.wants("▸ shell … pending make deploy")
	appendLine(t, f, "tapes/codex-bbb/anchors/001_session-start/messages.jsonl", `{"id":"r9","kind":"tool_result","payload":{"results":["deployed"]},"meta":{"tool_call_ids":["k9"]},"date":"2026-11-21T09:00:07Z"}`)
	d.send(tickMsg{})
	d.wants("▸ shell ✓ 2s make deploy")
	d.lacks("pending")
}

// Text is made printable as the CLI makes it: escapes and bidi overrides
// shown, not acted on.
func TestPrintableAsTheCLI(t *testing.T) {
	t.Parallel()
	if got := oneLine("evil\u202Etxt.exe \x1b[2J\nnext"); got != `evil\u202etxt.exe \x1b[2J next` {
		t.Fatalf("oneLine = %q", got)
	}
	if got := wrap("a\tb\r\n\x07c", 80); len(got) != 2 || got[0] != "a    b" || got[1] != `\x07c` {
		t.Fatalf("wrap = %q", got)
	}
}
