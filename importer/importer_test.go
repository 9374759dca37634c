package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/aider"
	"github.com/tape-dev/tape/importer/amp"
	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/cline"
	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/copilot"
	"github.com/tape-dev/tape/importer/crush"
	"github.com/tape-dev/tape/importer/cursor"
	"github.com/tape-dev/tape/importer/droid"
	"github.com/tape-dev/tape/importer/gemini"
	"github.com/tape-dev/tape/importer/goose"
	"github.com/tape-dev/tape/importer/kimi"
	"github.com/tape-dev/tape/importer/openclaw"
	"github.com/tape-dev/tape/importer/opencode"
	"github.com/tape-dev/tape/importer/pi"
	"github.com/tape-dev/tape/importer/qwen"
	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// fixture is a transcript of testdata/import and the format it is in.
type fixture struct {
	format source.Source
	rel    string // under testdata/import
}

var fixtures = []fixture{
	{claude.Source{}, "claude/src/-home-u-proj/5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12.jsonl"},
	{claude.Source{}, "claude/src/-home-u-proj/5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12/subagents/agent-a3f9c21b0d4e5f607.jsonl"},
	{codex.Source{}, "codex/src/2025/10/29/rollout-2025-10-29T00-59-38-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"},
	{codex.Source{}, "codex/src/2025/10/29/rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"},
	{codex.Source{}, "codex/src/2025/10/30/rollout-2025-10-30T09-00-00-019a3000-0000-7000-8000-00000000abcd.jsonl"},
	{qwen.Source{}, "qwen/src/-home-u-app/chats/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f.jsonl"},
	{qwen.Source{}, "qwen/src/9d8c7b6a5f4e3d2c1b0a9d8c7b6a5f4e3d2c1b0a9d8c7b6a5f4e3d2c1b0a9d8c/chats/session-2025-10-20T08-30-6e2f1a9b.json"},
	{qwen.Source{}, "qwen/src/-home-u-app/chats/3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f.jsonl"},
	{qwen.Source{}, "qwen/src/-home-u-app/subagents/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/agent-explore-7f3c.jsonl"},
	{qwen.Source{}, "qwen/src/-home-u-legacy/chats/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5.jsonl"},
	{copilot.Source{}, "copilot/src/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c/events.jsonl"},
	{copilot.Source{}, "copilot/src/session-state/5e9d2b71-8c4a-4f3e-b1d6-2a7c9e0f4d83/events.jsonl"},
	{copilot.Source{}, "copilot/src/session-state/7b1e4d20-6a3f-4c8e-9d2b-1f5a8c3e7d90.jsonl"},
	{copilot.Source{}, "copilot/src/history-session-state/session_3c5a7e91-2b4d-4f60-8a1c-9e7d5b3f1a20_1759958416398.json"},
	{gemini.Source{}, "gemini/src/0b2c4e6f8a1c3e5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5a7c9e1b3d5f7a9c1e3b/chats/session-2026-03-02T09-15-a1f0c9d2.json"},
	{gemini.Source{}, "gemini/src/my-app/chats/session-2026-05-10T14-20-c3d5e7f9.jsonl"},
	{gemini.Source{}, "gemini/src/my-app/chats/session-2026-06-01T08-00-d4e6f8a0.jsonl"},
	{gemini.Source{}, "gemini/src/my-app/chats/d4e6f8a0-2b3c-4d5e-9f6a-7b8c9d0e1f2a/e5f7a9b1-3c4d-4e6f-8a7b-9c0d1e2f3a4b.jsonl"},
	{pi.Source{}, "pi/src/--home-u-proj--/2026-03-01T10-00-00-000Z_5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d.jsonl"},
	{pi.Source{}, "pi/src/--home-u-omp--/2026-09-01T18-19-23-097Z_019a5e2b-3c4d-7e8f-9a0b-1c2d3e4f5a6b.jsonl"},
	{pi.Source{}, "pi/src/--home-u-old--/2025-12-10T08-00-00-000Z_3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d.jsonl"},
	{kimi.Source{}, "kimi/src/5f0e7c1a9b3d4e2f8a6c0b1d2e3f4a5b/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/wire.jsonl"},
	{kimi.Source{}, "kimi/src/5f0e7c1a9b3d4e2f8a6c0b1d2e3f4a5b/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/wire.jsonl"},
	{kimi.Source{}, "kimi/src/5f0e7c1a9b3d4e2f8a6c0b1d2e3f4a5b/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f/subagents/a3f9c21b0/wire.jsonl"},
	{kimi.Source{}, "kimi/src/wd_app_0a1b2c3d4e5f/session_2728744d-1865-4af1-b3da-97d5bf22a979/agents/main/wire.jsonl"},
	{kimi.Source{}, "kimi/src/wd_app_0a1b2c3d4e5f/session_2728744d-1865-4af1-b3da-97d5bf22a979/agents/agent-0/wire.jsonl"},
	{kimi.Source{}, "kimi/src/wd_app_0a1b2c3d4e5f/ses_7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/agents/main/wire.jsonl"},
	{droid.Source{}, "droid/src/-home-u-app/7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c.jsonl"},
	{droid.Source{}, "droid/src/-home-u-app/7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c.settings.json"},
	{droid.Source{}, "droid/src/-home-u-app/5b1d7e40-2c3a-4e5f-8a9b-0c1d2e3f4a5b.jsonl"},
	{droid.Source{}, "droid/src/-home-u-work/c4e81f27-6a5b-4c3d-9e8f-7a6b5c4d3e2f.jsonl"},
	{droid.Source{}, "droid/src/0d6a5c1e-8f7e-4d6c-b5a4-3e2d1c0b9a87.jsonl"},
	{droid.Source{}, "droid/src/0d6a5c1e-8f7e-4d6c-b5a4-3e2d1c0b9a87.settings.json"},
	{openclaw.Source{}, "openclaw/src/agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl"},
	{openclaw.Source{}, "openclaw/src/agents/main/sessions/2026-04-02T09-00-00-000Z_9b2e7d41-6c8a-4f13-b5e0-7a4d2c9f8e63.jsonl"},
	{openclaw.Source{}, "openclaw/src/agents/ops/sessions/3d8a5c27-1f4e-4b6a-8c9d-0e2f4a6b8c1d.jsonl"},
	{openclaw.Source{}, "openclaw/src/sessions/7a9c1e3b-5d2f-4a8e-b6c4-1f3e5a7c9b2d.jsonl"},
	{openclaw.Source{}, "openclaw/src/agents/main/sessions/5e0f7b93-2a4c-4d6e-8f1a-3b5c7d9e1f20.jsonl.reset.2026-03-10T04-00-00.000Z"},
	{opencode.Source{}, "opencode/src/ses_5a1f3c2e9ffeA1b2C3d4E5f6G7.jsonl"},
	{opencode.Source{}, "opencode/src/x-handwritten.jsonl"},
	{amp.Source{}, "amp/src/T-019b9c3e-7a10-7c2d-9e41-5b7d2a6c1f08.json"},
	{amp.Source{}, "amp/src/T-019c8a12-4e6b-7d30-8f2a-3c9e1b7d5a42.json"},
	{amp.Source{}, "amp/src/T-019c8b40-6f1e-7a52-b3c4-9e8d7c6b5a24.json"},
	{amp.Source{}, "amp/src/T-019ca0b2-1c3d-7e4f-8a5b-6c7d8e9f0a1b.json"},
	{aider.Source{}, "aider/src/myrepo/.aider.chat.history.md"},
	{aider.Source{}, "aider/src/myrepo/.aider.input.history"},
	{aider.Source{}, "aider/src/webapp/.aider.chat.history.md"},
	{aider.Source{}, "aider/src/notes/.aider.chat.history.md"},
	{goose.Source{}, "goose/src/20251128_1.jsonl"},
	{goose.Source{}, "goose/src/legacy/20250301_101500.jsonl"},
	{goose.Source{}, "goose/src/x-handwritten.jsonl"},
	{crush.Source{}, "crush/src/4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl"},
	{crush.Source{}, "crush/src/e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9.jsonl"},
	{crush.Source{}, "crush/src/9e8d7c6b-5a49-4382-b1a0-f0e1d2c3b4a5.jsonl"},
	{cline.Source{}, "cline/src/saoudrizwan.claude-dev/tasks/1722503412345/claude_messages.json"},
	{cline.Source{}, "cline/src/saoudrizwan.claude-dev/tasks/1755651234567/api_conversation_history.json"},
	{cline.Source{}, "cline/src/saoudrizwan.claude-dev/tasks/1755651234567/task_metadata.json"},
	{cline.Source{}, "cline/src/saoudrizwan.claude-dev/tasks/1755651234567/ui_messages.json"},
	{cline.Source{}, "cline/src/saoudrizwan.claude-dev/tasks/1750002468135/ui_messages.json"},
	{cline.Source{}, "cline/src/saoudrizwan.claude-dev/tasks/1771234567890/api_conversation_history.json"},
	{cline.Source{}, "cline/src/rooveterinaryinc.roo-cline/tasks/a3f9c21b-5d6e-4f70-8a9b-0c1d2e3f4a5b/history_item.json"},
	{cline.Source{}, "cline/src/kilocode.kilo-code/tasks/5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d/api_conversation_history.json"},
	{cursor.Source{}, "cursor/src/projects/home-ana-src-app/agent-transcripts/3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b.jsonl"},
	{cursor.Source{}, "cursor/src/c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b.jsonl"},
	{cursor.Source{}, "cursor/src/e2f3a4b5-c6d7-4e8f-9a0b-c1d2e3f4a5b6.jsonl"},
	{cursor.Source{}, "cursor/src/0badc0de-0000-4000-8000-000000000000.jsonl"},
	{cursor.Source{}, "cursor/src/projects/home-ana-src-app/agent-transcripts/8b7c6d5e-4f3a-4b2c-9d1e-0f2a3b4c5d6e/8b7c6d5e-4f3a-4b2c-9d1e-0f2a3b4c5d6e.jsonl"},
	{cursor.Source{}, "cursor/src/projects/home-ana-src-app/agent-transcripts/8b7c6d5e-4f3a-4b2c-9d1e-0f2a3b4c5d6e/subagents/a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d.jsonl"},
	{opencode.Kilo(), "kilo/src/ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv.jsonl"},
	{opencode.Kilo(), "kilo/src/x-handwritten.jsonl"},
}

func (f fixture) data() ([]byte, error) {
	return os.ReadFile(filepath.Join("..", "testdata", "import", f.rel))
}

func (f fixture) read(t testing.TB) []byte {
	t.Helper()
	data, err := f.data()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// bench is a workspace and a folder of transcripts, with a clock.
type bench struct {
	t   testing.TB
	ws  *tapelog.Workspace
	src string // where transcripts are written
	now time.Time
	bad []error
}

func newBench(t testing.TB) *bench {
	t.Helper()
	dir := t.TempDir()
	return &bench{t: t, ws: newWorkspace(t, dir), src: filepath.Join(dir, "src"), now: time.Now()}
}

// newWorkspace opens a new, empty workspace in dir (no tape, not even
// main), closed when the test ends.
func newWorkspace(t testing.TB, dir string) *tapelog.Workspace {
	t.Helper()
	if err := os.Mkdir(filepath.Join(dir, ".tape"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// write puts data at rel under the bench's source folder, as an agent's
// writes leave it, with the mtime of the bench's clock.
func (b *bench) write(rel string, data []byte) string {
	b.t.Helper()
	path := filepath.Join(b.src, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.t.Fatal(err)
	}
	if err := os.Chtimes(path, b.now, b.now); err != nil {
		b.t.Fatal(err)
	}
	return path
}

// importAt imports the source folder as it stands at the bench's clock
// plus after: a turn held at the end of a file is imported only if after
// is at least the settle time.
func (b *bench) importAt(f source.Source, after time.Duration) []FileStats {
	b.t.Helper()
	im := New(b.ws, f)
	im.Settle = time.Minute
	im.Now = func() time.Time { return b.now.Add(after) }
	im.Warn = func(err error) { b.bad = append(b.bad, err) }
	st, err := im.Import(context.Background(), []string{b.src})
	if err != nil {
		b.t.Fatal(err)
	}
	return st
}

const (
	quiet = time.Hour        // a transcript written an hour ago: finished
	fresh = time.Duration(0) // one written just now: its last turn may go on
)

// importClaudeFixtures writes the Claude Code fixtures and imports them:
// what the import said of each, and the tapes it made (tapes).
func (b *bench) importClaudeFixtures(t *testing.T) ([]FileStats, string) {
	t.Helper()
	for _, fx := range fixtures[:2] {
		b.write(strings.TrimPrefix(fx.rel, "claude/src/"), fx.read(t))
	}
	return b.importAt(claude.Source{}, quiet), b.tapes()
}

// tapes renders every file under .tape/tapes, with the source folder
// named $SRC: two imports that made the same entries in the same order
// made the same bytes.
func (b *bench) tapes() string {
	b.t.Helper()
	var out strings.Builder
	root := filepath.Join(b.ws.Dir(), "tapes")
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return "" // no tape yet
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(&out, "== %s\n%s", rel, data)
		return err
	})
	if err != nil {
		b.t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), b.src, "$SRC")
}

// answers renders what the index answers of the calls, the usage and the
// sessions.
func (b *bench) answers() string {
	b.t.Helper()
	ctx := context.Background()
	ix, err := projector.Open(ctx, b.ws)
	if err != nil {
		b.t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.CatchUp(ctx); err != nil {
		b.t.Fatal(err)
	}
	var out strings.Builder
	listed, _, _, err := calls.List(ctx, ix, calls.Filter{})
	if err != nil {
		b.t.Fatal(err)
	}
	var lines []string
	for _, c := range listed {
		lines = append(lines, fmt.Sprintf("call %s %s %s %s %s", c.Tape, c.ID, c.Name, c.Status, c.Result))
	}
	slices.Sort(lines)
	out.WriteString(strings.Join(lines, "\n") + "\n")
	for _, by := range []string{"tape", "model", "day"} {
		rows, _, err := usage.Sum(ctx, ix, usage.Filter{By: by})
		if err != nil {
			b.t.Fatal(err)
		}
		for _, u := range rows {
			fmt.Fprintf(&out, "usage %s %s%s%s: %d %d %d %d %d %d\n", by, u.Tape, u.Model, u.Day, u.Runs, u.Input, u.Output, u.CacheCreation, u.CacheRead, u.Total)
		}
	}
	tapes, _, err := sessions.List(ctx, ix, sessions.Filter{})
	if err != nil {
		b.t.Fatal(err)
	}
	for _, s := range tapes {
		fmt.Fprintf(&out, "tape %s %q %s %s %s %d %s %s\n", s.Name, s.Title, s.CWD, s.Branch, s.Model, s.Entries, s.Source, s.Parent)
	}
	return strings.ReplaceAll(out.String(), b.src, "$SRC")
}

// cuts picks n places in data, in order: anywhere, so that some cut a line
// in two (a torn tail, as a transcript being written has).
func cuts(r *rand.Rand, data []byte, n int) []int {
	var c []int
	for range n {
		c = append(c, r.IntN(len(data)+1))
	}
	slices.Sort(c)
	return append(c, len(data))
}

// The property: importing a transcript as it grows, a few bytes or lines
// at a time, makes the same tape, byte for byte, as one import of the
// whole of it; and the index, rebuilt from nothing, gives the same
// answers.
func TestImportGrownEqualsOneImport(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(16, 2026))
	for _, fx := range fixtures {
		data := fx.read(t)
		rel := strings.TrimPrefix(fx.rel, strings.SplitN(fx.rel, "/", 3)[0]+"/src/")
		once := newBench(t)
		once.write(rel, data)
		once.importAt(fx.format, quiet)
		want := once.tapes()
		for trial := range 12 {
			grown := newBench(t)
			var log []int
			for _, c := range cuts(r, data, 1+r.IntN(4)) {
				grown.write(rel, data[:c])
				after := fresh // written just now: a turn at its end may go on
				if c == len(data) {
					after = quiet
				}
				grown.importAt(fx.format, after)
				log = append(log, c)
			}
			if got := grown.tapes(); got != want {
				t.Fatalf("%s, trial %d, imported at %v: the tapes differ from one import\n--- grown\n%s\n--- once\n%s", fx.rel, trial, log, got, want)
			}
			if trial == 0 {
				before := grown.answers()
				if err := os.Remove(grown.ws.Abs("index.db")); err != nil {
					t.Fatal(err)
				}
				if after := grown.answers(); after != before {
					t.Fatalf("%s: a rebuilt index answers\n%s\nwhere the incremental one answered\n%s", fx.rel, after, before)
				}
				if once := once.answers(); before != once {
					t.Fatalf("%s: the grown import answers\n%s\none import\n%s", fx.rel, before, once)
				}
			}
		}
	}
}

// An import that finds a turn at the end of a file that was written just
// now leaves it for later, and says so; once the file is quiet, the turn
// is imported whole.
func TestHeldTurnIsImportedOnceQuiet(t *testing.T) {
	t.Parallel()
	fx := fixtures[1] // the subagent: it ends with an assistant turn
	b := newBench(t)
	b.write("agent-a3f9c21b0d4e5f607.jsonl", fx.read(t))
	st := b.importAt(claude.Source{}, fresh)
	if len(st) != 1 || st[0].Held != 1 {
		t.Fatalf("stats %+v; want the last line held", st)
	}
	before := b.tapes()
	if strings.Contains(before, "Found 3 call sites") {
		t.Fatalf("the held turn was imported:\n%s", before)
	}
	st = b.importAt(claude.Source{}, quiet)
	if st[0].Held != 0 || st[0].Imported != 2 {
		t.Fatalf("stats %+v; want the turn's message and run imported", st[0])
	}
	if !strings.Contains(b.tapes(), "Found 3 call sites") {
		t.Fatal("the turn was not imported once the file was quiet")
	}
}

// Deleting the checkpoints costs time, never an entry: the next import
// reads every file again and finds every entry on its tape.
func TestLostCheckpointsImportNothingTwice(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	first, want := b.importClaudeFixtures(t)
	if err := os.Remove(b.ws.Abs("import/claude.checkpoints")); err != nil {
		t.Fatal(err)
	}
	again := b.importAt(claude.Source{}, quiet)
	for i, st := range again {
		if st.Imported != 0 || st.Skipped != first[i].Imported {
			t.Errorf("%s: imported %d, skipped %d; want 0 and %d", st.File, st.Imported, st.Skipped, first[i].Imported)
		}
	}
	if got := b.tapes(); got != want {
		t.Fatalf("the tapes changed:\n%s", got)
	}
}

// An import killed after its appends and before its checkpoints were saved
// leaves checkpoints older than the tapes: the next import sees that the
// tapes are not as the checkpoints left them, and appends only what they
// lack.
func TestStaleCheckpointsImportNothingTwice(t *testing.T) {
	t.Parallel()
	fx := fixtures[2]
	data := fx.read(t)
	half := bytes.LastIndexByte(data[:len(data)/2], '\n') + 1
	b := newBench(t)
	b.write("s/rollout-x-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", data[:half])
	b.importAt(codex.Source{}, quiet)
	stale, err := os.ReadFile(b.ws.Abs("import/codex.checkpoints"))
	if err != nil {
		t.Fatal(err)
	}
	b.write("s/rollout-x-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", data)
	b.importAt(codex.Source{}, quiet)
	want := b.tapes()
	if err := os.WriteFile(b.ws.Abs("import/codex.checkpoints"), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	st := b.importAt(codex.Source{}, quiet)
	if st[0].Imported != 0 || st[0].Skipped == 0 {
		t.Fatalf("stats %+v; want everything skipped", st[0])
	}
	if got := b.tapes(); got != want {
		t.Fatalf("the tapes changed:\n%s", got)
	}
}

// Two sessions whose ids share their first eight digits get two tapes:
// the second takes the short name and a sum of its ids.
func TestSessionsWithTheSameShortIDGetTwoTapes(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	line := `{"type":"user","uuid":"u1","sessionId":"%s","timestamp":"2025-11-03T14:05:00.000Z","message":{"role":"user","content":"hi %s"}}` + "\n"
	ids := []string{"5d7e6b2e-0000-4000-8000-000000000001", "5d7e6b2e-0000-4000-8000-000000000002"}
	for _, id := range ids {
		b.write("p/"+id+".jsonl", fmt.Appendf(nil, line, id, id))
	}
	st := b.importAt(claude.Source{}, quiet)
	got := []string{st[0].Tape, st[1].Tape}
	want := []string{"claude-5d7e6b2e", claude.Source{}.TapeName(source.Session{Source: "claude", ID: ids[1]}, true)}
	if !strings.HasPrefix(want[1], "claude-5d7e6b2e-") || len(want[1]) != len("claude-5d7e6b2e-12345678") {
		t.Fatalf("the long name %q is not the short one and a sum", want[1])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("tapes %q, want %q", got, want)
	}
	again := b.importAt(claude.Source{}, quiet)
	if again[1].Tape != want[1] || !again[1].Unchanged {
		t.Fatalf("a second import: %+v", again[1])
	}
}

// A bad line is reported with its file and line, and the lines around it
// are imported; a torn last line is imported once its newline comes.
func TestBadLinesAndTornTails(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	good := `{"type":"user","uuid":"u%d","sessionId":"s1","timestamp":"2025-11-03T14:05:0%d.000Z","message":{"role":"user","content":"line %d"}}`
	body := fmt.Sprintf(good, 1, 1, 1) + "\n" + "not json\n" + fmt.Sprintf(good, 3, 3, 3) + "\n" + fmt.Sprintf(good, 4, 4, 4)[:40]
	path := b.write("p/s1.jsonl", []byte(body))
	st := b.importAt(claude.Source{}, quiet)
	if st[0].BadLines != 1 || len(b.bad) != 1 || !strings.Contains(b.bad[0].Error(), path+":2: not a JSON record") {
		t.Fatalf("stats %+v, reports %v; want line 2 reported", st[0], b.bad)
	}
	if n := strings.Count(b.tapes(), `"content":"line `); n != 2 {
		t.Fatalf("%d messages imported, want 2:\n%s", n, b.tapes())
	}
	b.write("p/s1.jsonl", []byte(body[:strings.LastIndexByte(body, '\n')+1]+fmt.Sprintf(good, 4, 4, 4)+"\n"))
	b.importAt(claude.Source{}, quiet)
	if n := strings.Count(b.tapes(), `"content":"line `); n != 3 {
		t.Fatalf("%d messages after the tail was finished, want 3", n)
	}
	if len(b.bad) != 1 {
		t.Fatalf("the bad line was reported again: %v", b.bad)
	}
}

// Whatever a transcript's ids hold, the tape names made of them are valid,
// short, and stay inside the workspace.
func TestTapeNamesOfOddIDs(t *testing.T) {
	t.Parallel()
	for _, s := range []source.Session{
		{Source: "claude", ID: "../../etc", Agent: "a" + strings.Repeat("-", 150) + "b"},
		{Source: "claude", ID: "", Agent: "/"},
		{Source: "codex", ID: "会话-0199a213-81c0-7800-8aa1-bbab2a035a53"},
		{Source: "claude", ID: strings.Repeat("f", 500)},
		{Source: "claude", ID: ".hidden"},
	} {
		for _, long := range []bool{false, true} {
			src, _ := SourceByName(s.Source)
			name := src.TapeName(s, long)
			if err := tapelog.ValidateTapeName(name); err != nil || len(name) > 40 || strings.ContainsAny(name, "/\\.") {
				t.Errorf("%+v: TapeName(%v) = %q (%v); want a valid name of at most 40 bytes without / or .", s, long, name, err)
			}
		}
	}
}

// A tape deleted by hand comes back with the next import, though its
// transcript did not change; a tape that lost entries comes back whole
// with Full.
func TestDeletedTapeComesBack(t *testing.T) {
	t.Parallel()
	fx := fixtures[2]
	b := newBench(t)
	b.write("s/"+filepath.Base(fx.rel), fx.read(t))
	b.importAt(codex.Source{}, quiet)
	want := b.tapes()
	if err := os.RemoveAll(b.ws.Abs("tapes/codex-62a89cd5")); err != nil {
		t.Fatal(err)
	}
	b.importAt(codex.Source{}, quiet)
	if got := b.tapes(); got != want {
		t.Fatalf("after the tape was deleted, an import made\n%s\nwant\n%s", got, want)
	}
	messages := b.ws.Abs("tapes/codex-62a89cd5/anchors/001_session-start/messages.jsonl")
	if err := os.Truncate(messages, 0); err != nil {
		t.Fatal(err)
	}
	im := New(b.ws, codex.Source{})
	im.Full, im.Settle = true, time.Minute
	im.Now = func() time.Time { return b.now.Add(quiet) }
	if _, err := im.Import(context.Background(), []string{b.src}); err != nil {
		t.Fatal(err)
	}
	if got := b.tapes(); !strings.Contains(got, "list the files and add hello.txt") {
		t.Fatalf("--full did not bring the lost messages back:\n%s", got)
	}
}

// Two transcripts write one tape (Claude Code 2.0's subagent lines in the
// session's file, and the subagent's own file): when the tape lost
// entries, both are read again from the start, whichever is read first,
// and nothing they hold is lost.
func TestTwoTranscriptsOfOneTapeAreBothReadAgain(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // the second is prepared after the first is written
	b := newBench(t)
	const s = "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12"
	side := func(uuid, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"isSidechain":true,"agentId":"aX","timestamp":"2025-11-03T14:05:00.000Z","message":{"role":"user","content":%q}}`+"\n", uuid, s, text)
	}
	main := `{"type":"user","uuid":"m0","sessionId":"` + s + `","timestamp":"2025-11-03T14:04:00.000Z","message":{"role":"user","content":"main"}}` + "\n" + side("m1", "from the session's file")
	agent := side("a1", "from the agent's file")
	b.write("p/"+s+".jsonl", []byte(main))
	for i := 6; i <= 8; i++ { // sessions between the two in the order files are read
		id := fmt.Sprintf("%d0000000-0000-4000-8000-000000000000", i)
		b.write("p/"+id+".jsonl", fmt.Appendf(nil, `{"type":"user","uuid":"f%d","sessionId":%q,"message":{"role":"user","content":"filler"}}`+"\n", i, id))
	}
	b.write("p/agent-aX.jsonl", []byte(agent))
	b.importAt(claude.Source{}, quiet)
	tape := "tapes/claude-5d7e6b2e-agent-aX/anchors/001_session-start/messages.jsonl"
	if err := os.Truncate(b.ws.Abs(tape), 0); err != nil {
		t.Fatal(err)
	}
	b.write("p/"+s+".jsonl", []byte(main+side("m2", "more from the session")))
	b.write("p/agent-aX.jsonl", []byte(agent+side("a2", "more from the agent")))
	b.importAt(claude.Source{}, quiet)
	data, err := os.ReadFile(b.ws.Abs(tape))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"m1", "m2", "a1", "a2"} {
		if n := strings.Count(string(data), `"id":"`+id+`"`); n != 1 {
			t.Errorf("entry %s is on the tape %d times, want once:\n%s", id, n, data)
		}
	}
}

// A transcript that writes a uuid twice makes one entry of it when one
// import reads both lines, from the start or from its checkpoint. (Across
// a checkpoint, the second makes a second entry: docs/IMPORT.md.)
func TestRepeatedUUIDIsOneEntry(t *testing.T) {
	t.Parallel()
	line := func(uuid string) string {
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"s1","timestamp":"2025-11-03T14:05:00.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	}
	b := newBench(t)
	b.write("p/s1.jsonl", []byte(line("u0")))
	b.importAt(claude.Source{}, quiet)
	b.write("p/s1.jsonl", []byte(line("u0")+line("u1")+line("u2")+line("u1")))
	st := b.importAt(claude.Source{}, quiet)
	if n := strings.Count(b.tapes(), `"id":"u1"`); n != 1 || st[0].Skipped != 1 {
		t.Fatalf("u1 is on the tape %d times (stats %+v); want once, the second skipped", n, st[0])
	}
}

// A checkpoint taken while a run of Codex tool calls is held keeps the
// converter's state from before the run: a message echoed inside the run
// (its event came before the run, its response item in it) is echoed again
// when the next import reads the run anew, not imported twice.
func TestHeldCodexCallsKeepTheEchoOfTheirStart(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"timestamp":"2025-10-30T09:00:00.000Z","type":"session_meta","payload":{"id":"019a3000-0000-7000-8000-00000000beef","cwd":"/srv/app"}}`,
		`{"timestamp":"2025-10-30T09:00:01.000Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"look first"}}`,
		`{"timestamp":"2025-10-30T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}`,
		`{"timestamp":"2025-10-30T09:00:03.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"look first"}]}}`,
		`{"timestamp":"2025-10-30T09:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}`,
	}
	const rel = "s/rollout-2025-10-30T09-00-00-019a3000-0000-7000-8000-00000000beef.jsonl"
	whole := []byte(strings.Join(lines, "\n") + "\n")
	once := newBench(t)
	once.write(rel, whole)
	once.importAt(codex.Source{}, quiet)
	grown := newBench(t)
	grown.write(rel, []byte(strings.Join(lines[:4], "\n")+"\n"))
	if st := grown.importAt(codex.Source{}, fresh); st[0].Held != 2 {
		t.Fatalf("stats %+v; want the call and the reasoning after it held", st[0])
	}
	grown.write(rel, whole)
	grown.importAt(codex.Source{}, quiet)
	if got, want := grown.tapes(), once.tapes(); got != want {
		t.Fatalf("importing the held run again made\n%s\none import made\n%s", got, want)
	}
}

// An import of many sessions holds a few files open at a time, not one
// for each tape it wrote: a first import makes thousands of tapes.
func TestImportOfManySessionsHoldsFewFilesOpen(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Fatalf("this test counts open files in /proc/self/fd: %v", err)
	}
	b := newBench(t)
	const sessions = 300
	for i := range sessions {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		b.write("p/"+id+".jsonl", fmt.Appendf(nil, `{"type":"user","uuid":"u%d","sessionId":"%s","timestamp":"2025-11-03T14:05:00.000Z","message":{"role":"user","content":"hi"}}`+"\n", i, id))
	}
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(fds)
	}
	before, most := open(), 0
	im := New(b.ws, claude.Source{})
	im.Progress = func(done, total int) { most = max(most, open()) }
	st, err := im.Import(context.Background(), []string{b.src})
	if err != nil || len(st) != sessions {
		t.Fatalf("Import: %d files, %v", len(st), err)
	}
	t.Logf("%d files open at most, %d before", most, before)
	if limit := before + 4*runtime.GOMAXPROCS(0) + 16; most > limit {
		t.Fatalf("%d files open at most during the import of %d sessions, %d before it; want at most %d", most, sessions, before, limit)
	}
}
