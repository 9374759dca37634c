//go:build browser

package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// The workspace the screenshots show: a few sessions like a person's,
// in English and Chinese, with tool calls that pass, fail and wait, and a
// nightly review whose runs draw weeks of usage.

// showcase writes the workspace and returns it.
func showcase(t *testing.T) *tapelog.Workspace {
	t.Helper()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes", "main")); err != nil {
		t.Fatal(err)
	}
	nightlyReview(newScript(t, ws, "nightly-review", "night", day(2026, 9, 28, 6, 0)))
	importerResume(newScript(t, ws, "codex-import-resume", "codex", day(2026, 11, 12, 14, 5)))
	releaseNotes(newScript(t, ws, "release-0.9", "rel", day(2026, 11, 18, 16, 30)))
	dbPool(newScript(t, ws, "db-pool-timeout", "db", day(2026, 11, 20, 2, 12)))
	flakyFlush(newScript(t, ws, "fix-flaky-flush", "flush", day(2026, 11, 21, 9, 14)))
	return ws
}

func day(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

// script writes a tape entry by entry, as an agent does: each entry is
// an id, a kind, a payload and a date a little after the last.
type script struct {
	t      *testing.T
	ws     *tapelog.Workspace
	tape   string
	prefix string // of the entries' ids
	folder string // the anchor folder written to
	now    time.Time
	n      int
}

func newScript(t *testing.T, ws *tapelog.Workspace, tape, prefix string, start time.Time) *script {
	return &script{t: t, ws: ws, tape: tape, prefix: prefix, now: start}
}

// anchor starts the anchor folder NNN_slug, with state.
func (s *script) anchor(folder, name string, state map[string]any) {
	s.folder = folder
	writeTape(s.t, s.ws, s.tape, folder, s.entry(s.nextID(), "anchor", map[string]any{"name": name, "state": state}))
}

// at moves the clock to t, for entries written later, on another day.
func (s *script) at(t time.Time) { s.now = t }

func (s *script) nextID() string {
	s.n++
	return fmt.Sprintf("%s-%d", s.prefix, s.n)
}

func (s *script) entry(id, kind string, payload any) string {
	b, err := json.Marshal(map[string]any{"id": id, "kind": kind, "payload": payload, "date": s.now.Format(time.RFC3339Nano)})
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// add appends an entry dt after the last one.
func (s *script) add(id, kind string, payload any, dt time.Duration) {
	s.now = s.now.Add(dt)
	appendLines(s.t, filepath.Join(s.ws.Dir(), "tapes", s.tape, "anchors", s.folder, "messages.jsonl"), s.entry(id, kind, payload))
}

func (s *script) user(text string) {
	s.add(s.nextID(), "message", map[string]any{"role": "user", "content": text}, 40*time.Second)
}

func (s *script) assistant(text string) {
	s.add(s.nextID(), "message", map[string]any{"role": "assistant", "content": text}, 9*time.Second)
}

func (s *script) think(text string) {
	s.add(s.nextID(), "event", map[string]any{"name": "thinking", "data": map[string]any{"thinking": text}}, 4*time.Second)
}

func (s *script) title(text string) {
	s.add(s.nextID(), "event", map[string]any{"name": "title", "data": map[string]any{"title": text}}, time.Second)
}

// call writes a tool_call entry of id ("" for the next) with one call,
// and the tool_result that answers it took later; a result "" leaves the
// call pending.
func (s *script) call(id, tool string, args map[string]any, result string, failed bool, took time.Duration) {
	if id == "" {
		id = s.nextID()
	}
	a, err := json.Marshal(args)
	if err != nil {
		s.t.Fatal(err)
	}
	callID := "call_" + id
	s.add(id, "tool_call", map[string]any{"calls": []any{map[string]any{"id": callID, "type": "function",
		"function": map[string]any{"name": tool, "arguments": string(a)}}}}, 3*time.Second)
	if result == "" {
		return
	}
	s.add(s.nextID(), "tool_result", map[string]any{"results": []any{map[string]any{"tool_call_id": callID, "content": result, "is_error": failed}}}, took)
}

// run records a model call's usage.
func (s *script) run(model string, in, out, cacheRead int) {
	s.add(s.nextID(), "event", map[string]any{"name": "run", "data": map[string]any{"status": "ok", "model": model,
		"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cache_read_input_tokens": cacheRead}}}, time.Second)
}

const (
	sonnet = "claude-sonnet-4-5"
	codex  = "gpt-5-codex"
	qwen   = "qwen3-coder-plus"
)

func flakyFlush(s *script) {
	s.anchor("001_session-start", "session/start", map[string]any{"cwd": "/home/ada/src/tape", "git_branch": "fix/flush-timeout", "source": "claude"})
	s.title("Fix the flaky TestFlushTimeout")
	s.user("TestFlushTimeout fails about one run in twenty on CI. Find out why and fix it — and please don't just raise the timeout.")
	s.think("A timeout test that fails one run in twenty usually races a ticker against wall time. Run it in a loop first to see how it fails.")
	s.assistant("I'll run it in a loop first, to see how it fails.")
	s.run(sonnet, 18420, 612, 12800)

	s.at(day(2026, 11, 21, 9, 16))
	s.anchor("002_investigate", "investigate", map[string]any{"summary": "the test sleeps 200ms and expects the flush; the ticker can fire a period late"})
	s.call("loop", "bash", map[string]any{"command": "go test ./log -run TestFlushTimeout -count=50"},
		"--- FAIL: TestFlushTimeout (0.21s)\n    writer_test.go:88: flushed after 212ms, want within 200ms\n--- FAIL: TestFlushTimeout (0.23s)\n    writer_test.go:88: flushed after 231ms, want within 200ms\nFAIL\nFAIL\tgithub.com/tape-dev/tape/log\t11.482s\nFAIL", true, 11482*time.Millisecond)
	s.assistant("It fails 2 times in 50. The test sleeps 200ms and then expects the flush to have happened, but the flusher's ticker can fire up to one period late when the machine is busy.")
	s.call("", "read_file", map[string]any{"path": "log/writer_test.go", "offset": 70, "limit": 30}, writerTest, false, 40*time.Millisecond)
	s.call("", "grep", map[string]any{"pattern": "flushTimeout", "path": "log/"},
		"log/writer.go:24:\tflushTimeout = 200 * time.Millisecond\nlog/writer.go:61:\tt := time.NewTicker(flushTimeout)\nlog/writer_test.go:84:\ttime.Sleep(flushTimeout)", false, 120*time.Millisecond)
	s.think("The writer already signals each flush on w.flushed. The test can wait on that with a deadline, and check the flush happened within flushTimeout of the write by the writer's own clock.")
	s.run(sonnet, 23911, 845, 18420)

	s.at(day(2026, 11, 21, 9, 34))
	s.anchor("003_fix", "fix", map[string]any{"summary": "wait on the flush, not on the clock"})
	s.assistant("The fix: the test waits for the writer's flush signal, with a deadline, instead of sleeping and hoping. The writer's timeout itself is unchanged.")
	s.call("", "edit_file", map[string]any{"path": "log/writer_test.go", "old": "time.Sleep(flushTimeout)", "new": "waitFlushed(t, w, 2*time.Second)"},
		"applied 1 edit to log/writer_test.go", false, 30*time.Millisecond)
	s.call("", "bash", map[string]any{"command": "go test ./log -run TestFlushTimeout -count=200"},
		"ok  \tgithub.com/tape-dev/tape/log\t41.907s", false, 41907*time.Millisecond)
	s.assistant("200 runs in a row pass. The test no longer depends on the scheduler: it checks the writer's timeout, not its own sleep.")
	s.user("Nice. Commit it with a message that says why.")
	s.call("", "bash", map[string]any{"command": "git commit -am 'log: TestFlushTimeout waits on the flush, not on a sleep'"}, "", false, 0)
	s.run(sonnet, 26240, 410, 23911)
}

const writerTest = `func TestFlushTimeout(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(filepath.Join(dir, "messages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	start := time.Now()
	if _, err := w.Write([]byte("{\"kind\":\"message\"}\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(flushTimeout)
	if !w.Flushed() {
		t.Fatalf("flushed after %v, want within %v", time.Since(start).Round(time.Millisecond), flushTimeout)
	}
}

func TestFlushOnClose(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(filepath.Join(dir, "messages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}`

func dbPool(s *script) {
	s.anchor("001_session-start", "session/start", map[string]any{"cwd": "/srv/orders-api", "git_branch": "feat/pool-timeout", "source": "codex"})
	s.title("数据库连接池超时可配置")
	s.user("订单服务在高峰期经常报“数据库连接超时”。把连接池的超时时间改成可配置的，默认 5 秒，并补上测试。")
	s.think("先找到连接池是在哪里创建的，再看配置是怎么加载的。")
	s.assistant("好的，我先看看连接池是在哪里创建的。")
	s.call("", "grep", map[string]any{"pattern": "sql.Open|SetConnMaxIdleTime", "path": "internal/"},
		"internal/db/pool.go:31:\tdb, err := sql.Open(\"pgx\", dsn)\ninternal/db/pool.go:38:\tdb.SetConnMaxIdleTime(2 * time.Second) // 写死的超时", false, 90*time.Millisecond)
	s.call("", "read_file", map[string]any{"path": "internal/config/config.go"},
		"type DB struct {\n\tDSN      string `yaml:\"dsn\"`\n\tMaxConns int    `yaml:\"max_conns\"`\n}", false, 20*time.Millisecond)
	s.run(qwen, 9120, 388, 0)
	s.assistant("连接池的超时目前写死在 pool.go 里（2 秒）。我会在配置里加一个 `pool_timeout` 字段，默认 5 秒，并在 pool.go 中读取它。")
	s.call("", "edit_file", map[string]any{"path": "internal/config/config.go", "old": "MaxConns int    `yaml:\"max_conns\"`", "new": "MaxConns    int           `yaml:\"max_conns\"`\n\tPoolTimeout time.Duration `yaml:\"pool_timeout\"`"},
		"applied 1 edit to internal/config/config.go", false, 25*time.Millisecond)
	s.call("", "bash", map[string]any{"command": "go test ./internal/..."},
		"ok  \torders-api/internal/config\t0.012s\nok  \torders-api/internal/db\t0.087s", false, 6240*time.Millisecond)
	s.assistant("已完成：新增配置项 `pool_timeout`（默认 5 秒），新增测试 TestPoolTimeoutFromConfig 覆盖默认值和自定义值，所有测试通过。")
	s.run(qwen, 11890, 521, 9120)
}

func releaseNotes(s *script) {
	s.anchor("001_session-start", "session/start", map[string]any{"cwd": "/home/ada/src/tape", "git_branch": "main"})
	s.user("Draft the release notes for v0.9 from the commits since v0.8, then tag it.")
	s.call("", "bash", map[string]any{"command": "git log --oneline v0.8..HEAD | wc -l"}, "47", false, 80*time.Millisecond)
	s.assistant("47 commits. The headline is `tape serve`: sessions in a browser, live. I grouped the rest under search, import and the CLI.")
	s.call("", "write_file", map[string]any{"path": "CHANGELOG.md"}, "wrote 2,140 bytes to CHANGELOG.md", false, 15*time.Millisecond)
	s.call("", "bash", map[string]any{"command": "git tag -s v0.9.0 -m 'tape v0.9.0'"},
		"error: gpg failed to sign the data\nfatal: failed to write tag object", true, 1200*time.Millisecond)
	s.assistant("Tagging failed: gpg has no key unlocked here. Please run `git tag -s v0.9.0` yourself; the notes are in CHANGELOG.md.")
	s.run(codex, 14210, 1290, 6000)
}

func importerResume(s *script) {
	s.anchor("001_session-start", "session/start", map[string]any{"cwd": "/home/ada/src/tape", "git_branch": "import/codex-resume", "source": "codex"})
	s.user("When a Codex session is resumed, tape import codex writes it as a new tape. It should append to the tape it already wrote.")
	s.call("", "grep", map[string]any{"pattern": "resumed_from", "path": "importer/"}, "importer/codex.go:142:\t// resumed_from is ignored for now", false, 70*time.Millisecond)
	s.assistant("The importer reads `resumed_from` but ignores it. I'll look the parent session up by its id and append to its tape from the line after the last one imported.")
	s.run(codex, 8030, 702, 0)
}

// nightlyReview is a review each weekday morning, an anchor a day: the
// usage chart's weeks.
func nightlyReview(s *script) {
	start, seq := s.now, 0
	for d := 0; d < 55; d++ {
		t := start.AddDate(0, 0, d)
		if t.Weekday() == time.Saturday || t.Weekday() == time.Sunday {
			continue
		}
		s.at(t)
		seq++
		var state map[string]any
		if seq == 1 {
			state = map[string]any{"cwd": "/home/ada/src/tape", "git_branch": "main"}
		}
		s.anchor(fmt.Sprintf("%03d_review-%s", seq, t.Format("01-02")), "review "+t.Format("2006-01-02"), state)
		if seq == 1 {
			s.title("Nightly review of main")
		}
		commits := 3 + (d*7)%11
		s.user("Review yesterday's commits on main and list anything that needs a follow-up.")
		s.call("", "bash", map[string]any{"command": "git log --since=yesterday --stat main"},
			fmt.Sprintf("%d commits, %d files changed", commits, commits*3), false, 300*time.Millisecond)
		s.assistant(fmt.Sprintf("%d commits reviewed. %s", commits, followUps[d%len(followUps)]))
		s.run(sonnet, 20000+commits*2600, 300+commits*45, 12000+(d*977)%9000)
	}
}

var followUps = []string{
	"Nothing needs a follow-up.",
	"One follow-up: a test in views/calls sleeps instead of polling.",
	"Two follow-ups: an unchecked error in importer/claude.go, and a TODO left in projector/watch.go.",
	"No follow-ups; the benchmarks did not move.",
}
