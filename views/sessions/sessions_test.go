package sessions_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/short"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
)

// fixture is a workspace whose files a test writes by hand, and its index.
type fixture struct {
	t  *testing.T
	ws *tapelog.Workspace
	ix *projector.Projector
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes", "main")); err != nil { // Init's, dated now
		t.Fatal(err)
	}
	ix, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &fixture{t: t, ws: ws, ix: ix}
}

// path is a file under tapes/.
func (f *fixture) path(rel string) string {
	return filepath.Join(f.ws.Dir(), "tapes", filepath.FromSlash(rel))
}

// write replaces a file under tapes/ with lines.
func (f *fixture) write(rel string, lines ...string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.path(rel)), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.path(rel), []byte(joinLines(lines)), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// append appends lines to a file under tapes/.
func (f *fixture) append(rel string, lines ...string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.path(rel)), 0o700); err != nil {
		f.t.Fatal(err)
	}
	file, err := os.OpenFile(f.path(rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		f.t.Fatal(err)
	}
	defer file.Close()
	if _, err := file.WriteString(joinLines(lines)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(rel string) {
	f.t.Helper()
	if err := os.RemoveAll(f.path(rel)); err != nil {
		f.t.Fatal(err)
	}
}

// anchor writes a folder's anchor.json.
func (f *fixture) anchor(folder, date, state string) {
	f.write(folder+"/anchor.json", fmt.Sprintf(`{"kind":"anchor","payload":{"name":"start","state":%s},"date":%q}`, state, date))
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func (f *fixture) catchUp() {
	f.t.Helper()
	if _, err := f.ix.CatchUp(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

// list is every session, as the view lists them, and checks that the
// old computation (oracle) says the same.
func (f *fixture) list() string {
	f.t.Helper()
	ctx := context.Background()
	got, total, err := sessions.List(ctx, f.ix, sessions.Filter{})
	if err != nil {
		f.t.Fatal(err)
	}
	if total != len(got) {
		f.t.Errorf("total %d, listed %d", total, len(got))
	}
	want, err := oracle(ctx, f.ix)
	if err != nil {
		f.t.Fatal(err)
	}
	if g, w := render(got), render(want); g != w {
		f.t.Errorf("the view lists\n%s\nthe sessions computed when asked are\n%s", g, w)
	}
	return render(got)
}

func render(list []sessions.Session) string {
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "%s title=%q cwd=%q branch=%q model=%q first=%s last=%s entries=%d anchors=%d", s.Name, s.Title, s.CWD, s.Branch, s.Model,
			when(s.First), when(s.Last), s.Entries, s.Anchors)
		if s.Source != "" || s.SessionID != "" || s.Parent != "" {
			fmt.Fprintf(&b, " source=%s session=%s parent=%s", s.Source, s.SessionID, s.Parent)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("15:04")
}

// Lines of a tape, by hand: kind, date (09:mm on one day), payload, meta.
func line(kind, hhmm, payload, meta string) string {
	return fmt.Sprintf(`{"kind":%q,"date":"2026-11-20T%s:00Z","payload":%s,"meta":%s}`, kind, hhmm, payload, meta)
}

func user(hhmm, text, meta string) string {
	return line("message", hhmm, fmt.Sprintf(`{"role":"user","content":%q}`, text), meta)
}

func title(hhmm, text string) string {
	return line("event", hhmm, fmt.Sprintf(`{"name":"title","data":{"title":%q}}`, text), `{}`)
}

func run(hhmm, model string) string {
	return line("event", hhmm, fmt.Sprintf(`{"name":"run","data":{"status":"ok","model":%q}}`, model), `{}`)
}

const noMeta = `{}`

// TestSessions: what a list says of a tape, after the files are written
// and indexed, and after a change and a catch-up; each the same as the
// sessions computed when asked, and as a rebuild.
func TestSessions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		setup  func(f *fixture)
		change func(f *fixture) // after a first catch-up; nil for none
		want   string
	}{{
		name: "the title is the last an agent gave",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "hello", noMeta), title("09:02", "first"), title("09:03", "second"), user("09:04", "more", noMeta))
		},
		want: `a title="second" cwd="" branch="" model="" first=09:00 last=09:04 entries=4 anchors=1`,
	}, {
		name: "else the first message a person wrote",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl",
				user("09:01", "<environment_context>", `{"synthetic":true}`),
				line("message", "09:02", `{"role":"assistant","content":"hi"}`, noMeta),
				line("message", "09:03", `{"role":"user","content":[{"type":"text","text":"fix the login bug"},{"type":"image","source":{"type":"base64","data":"AAAA"}}]}`, noMeta),
				user("09:04", "and run the tests", noMeta))
		},
		want: `a title="fix the login bug" cwd="" branch="" model="" first=09:00 last=09:04 entries=4 anchors=1`,
	}, {
		// The row keeps views.PromptBytes of it; a longer one is read whole.
		name: "a first prompt longer than the row keeps is the title whole",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", strings.Repeat("词", 700)+" end", noMeta))
		},
		want: `a title="` + strings.Repeat("词", 700) + ` end" cwd="" branch="" model="" first=09:00 last=09:01 entries=1 anchors=1`,
	}, {
		name: "a role in capitals is a user's, as LIKE compared it",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl", line("message", "09:01", `{"role":"USER","content":"shout"}`, noMeta))
		},
		want: `a title="shout" cwd="" branch="" model="" first=09:00 last=09:01 entries=1 anchors=1`,
	}, {
		name: "the first cwd and the last branch an entry names, else the first anchor's",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{"cwd":"/start","git_branch":"dev"}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "one", `{"cwd":"/one","git_branch":"b1"}`), user("09:02", "two", `{"workdir":"/two","branch":"b2"}`))
			f.anchor("b/anchors/001_start", "2026-11-20T08:00:00Z", `{"cwd":"/start","git_branch":"dev"}`)
			f.write("b/anchors/001_start/m.jsonl", user("08:01", "no meta", noMeta))
			f.anchor("b/anchors/002_next", "2026-11-20T08:30:00Z", `{"cwd":"/next","git_branch":"next"}`)
		},
		want: `a title="one" cwd="/one" branch="b2" model="" first=09:00 last=09:02 entries=2 anchors=1
b title="no meta" cwd="/start" branch="dev" model="" first=08:00 last=08:30 entries=1 anchors=2`,
	}, {
		name: "the model of the last run that names one, by folder before time",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl", run("09:50", "late-in-first"))
			f.anchor("a/anchors/002_next", "2026-11-20T09:10:00Z", `{}`)
			f.write("a/anchors/002_next/m.jsonl", run("09:11", "gpt"), run("09:12", ""))
		},
		want: `a title="" cwd="" branch="" model="gpt" first=09:00 last=09:12 entries=3 anchors=2`,
	}, {
		name: "a line appended to an older file sorts before the entries indexed",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/a.jsonl", line("message", "09:01", `{"role":"assistant","content":"ready"}`, noMeta))
			f.write("a/anchors/001_start/b.jsonl", user("09:30", "in b", `{"cwd":"/b","git_branch":"bb"}`), run("09:31", "b-model"))
		},
		change: func(f *fixture) {
			f.append("a/anchors/001_start/a.jsonl", user("09:02", "late in a", `{"cwd":"/a","git_branch":"aa"}`), run("09:03", "a-model"))
		},
		want: `a title="late in a" cwd="/a" branch="bb" model="b-model" first=09:00 last=09:31 entries=5 anchors=1`,
	}, {
		name: "a file truncated is read again",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "hello", noMeta), title("09:02", "named"), user("09:03", "again", `{"cwd":"/x"}`))
		},
		change: func(f *fixture) {
			if err := os.Truncate(f.path("a/anchors/001_start/m.jsonl"), int64(len(user("09:01", "hello", noMeta))+1)); err != nil {
				t.Fatal(err)
			}
		},
		want: `a title="hello" cwd="" branch="" model="" first=09:00 last=09:01 entries=1 anchors=1`,
	}, {
		name: "a file rewritten is read again",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{"cwd":"/start"}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "hello", `{"cwd":"/x"}`), title("09:02", "named"))
		},
		change: func(f *fixture) {
			f.write("a/anchors/001_start/m.jsonl", user("09:05", "rewritten, and longer than it was before", noMeta))
		},
		want: `a title="rewritten, and longer than it was before" cwd="/start" branch="" model="" first=09:00 last=09:05 entries=1 anchors=1`,
	}, {
		name: "a folder removed",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "hello", noMeta), run("09:02", "first-model"))
			f.anchor("a/anchors/002_next", "2026-11-20T10:00:00Z", `{}`)
			f.write("a/anchors/002_next/m.jsonl", run("10:01", "second-model"), title("10:02", "named"))
		},
		change: func(f *fixture) { f.remove("a/anchors/002_next") },
		want:   `a title="hello" cwd="" branch="" model="first-model" first=09:00 last=09:02 entries=2 anchors=1`,
	}, {
		name: "the first folder removed: the next one starts the tape",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{"source":"claude","session_id":"S1","cwd":"/one"}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "hello", noMeta))
			f.anchor("a/anchors/002_next", "2026-11-20T10:00:00Z", `{"cwd":"/two"}`)
			f.write("a/anchors/002_next/m.jsonl", user("10:01", "next", noMeta))
		},
		change: func(f *fixture) { f.remove("a/anchors/001_start") },
		want:   `a title="next" cwd="/two" branch="" model="" first=10:00 last=10:01 entries=1 anchors=1`,
	}, {
		name: "an anchor.json written into a folder made by hand",
		setup: func(f *fixture) {
			f.write("a/anchors/001_hand/m.jsonl", user("09:01", "hello", noMeta))
		},
		change: func(f *fixture) {
			f.anchor("a/anchors/001_hand", "2026-11-20T09:00:00Z", `{"cwd":"/later","source":"claude","session_id":"L"}`)
		},
		want: `a title="hello" cwd="/later" branch="" model="" first=09:00 last=09:01 entries=1 anchors=1 source=claude session=L parent=`,
	}, {
		name: "a tape removed",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
			f.anchor("b/anchors/001_start", "2026-11-20T10:00:00Z", `{}`)
		},
		change: func(f *fixture) { f.remove("b") },
		want:   `a title="" cwd="" branch="" model="" first=09:00 last=09:00 entries=0 anchors=1`,
	}, {
		name: "anchors added by a handoff",
		setup: func(f *fixture) {
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{"cwd":"/start","source":"codex","session_id":"X"}`)
			f.write("a/anchors/001_start/m.jsonl", user("09:01", "hello", noMeta), run("09:02", "gpt"))
		},
		change: func(f *fixture) {
			f.anchor("a/anchors/002_review", "2026-11-20T11:00:00Z", `{"cwd":"/review"}`)
			f.write("a/anchors/002_review/m.jsonl", user("11:01", "review it", `{"git_branch":"rev"}`))
			f.anchor("a/anchors/003_plan", "2026-11-20T12:00:00Z", `{}`)
		},
		want: `a title="hello" cwd="/start" branch="rev" model="gpt" first=09:00 last=12:00 entries=3 anchors=3 source=codex session=X parent=`,
	}, {
		name: "a subagent's tape names its parent's",
		setup: func(f *fixture) {
			f.anchor("main/anchors/001_start", "2026-11-20T09:00:00Z", `{"source":"claude","session_id":"S"}`)
			f.anchor("sub/anchors/001_start", "2026-11-20T09:30:00Z", `{"source":"claude","session_id":"S-agent","parent_session":"S"}`)
			f.anchor("other/anchors/001_start", "2026-11-20T09:10:00Z", `{"source":"codex","session_id":"S"}`)
		},
		change: func(f *fixture) { // a second tape of the same session: the last by name is the parent
			f.anchor("zmain/anchors/001_start", "2026-11-20T08:00:00Z", `{"source":"claude","session_id":"S"}`)
		},
		want: `sub title="" cwd="" branch="" model="" first=09:30 last=09:30 entries=0 anchors=1 source=claude session=S-agent parent=zmain
other title="" cwd="" branch="" model="" first=09:10 last=09:10 entries=0 anchors=1 source=codex session=S parent=
main title="" cwd="" branch="" model="" first=09:00 last=09:00 entries=0 anchors=1 source=claude session=S parent=
zmain title="" cwd="" branch="" model="" first=08:00 last=08:00 entries=0 anchors=1 source=claude session=S parent=`,
	}, {
		name: "a tape without dates lists last",
		setup: func(f *fixture) {
			f.write("bare/anchors/001_hand/m.jsonl", `{"role":"user","content":"no date"}`)
			f.anchor("a/anchors/001_start", "2026-11-20T09:00:00Z", `{}`)
		},
		want: `a title="" cwd="" branch="" model="" first=09:00 last=09:00 entries=0 anchors=1
bare title="no date" cwd="" branch="" model="" first=- last=- entries=1 anchors=1`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			c.setup(f)
			f.catchUp()
			f.list()
			if c.change != nil {
				c.change(f)
				f.catchUp()
			}
			got := f.list()
			if got != c.want+"\n" {
				t.Errorf("listed\n%s\nwant\n%s", got, c.want)
			}
			if _, err := f.ix.Rebuild(context.Background()); err != nil {
				t.Fatal(err)
			}
			if rebuilt := f.list(); rebuilt != got {
				t.Errorf("after a rebuild\n%s\nincrementally\n%s", rebuilt, got)
			}
		})
	}
}

// TestListPagesAndFilters: a page of the list, its total, and --since.
func TestListPagesAndFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i, tape := range []string{"a", "b", "c", "d"} {
		f.anchor(tape+"/anchors/001_start", fmt.Sprintf("2026-11-20T09:0%d:00Z", i), `{}`)
	}
	f.write("bare/anchors/001_hand/m.jsonl", `{"role":"user","content":"no date"}`)
	f.catchUp()
	at := func(min int) time.Time { return time.Date(2026, 11, 20, 9, min, 0, 0, time.UTC) }
	cases := []struct {
		f     sessions.Filter
		names string
		total int
	}{
		{sessions.Filter{}, "d c b a bare", 5},
		{sessions.Filter{Page: page(2, 1)}, "c b", 5},
		{sessions.Filter{Page: page(0, 4)}, "bare", 5},
		{sessions.Filter{Page: page(3, 9)}, "", 5},
		{sessions.Filter{Since: at(1)}, "d c b", 3},
		{sessions.Filter{Since: at(1).Add(time.Nanosecond), Page: page(1, 1)}, "c", 2},
		{sessions.Filter{Since: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)}, "d c b a", 4},
		{sessions.Filter{Since: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}, "", 0},
		{sessions.Filter{Tape: "b"}, "b", 1},
		{sessions.Filter{Tape: "b", Since: at(2)}, "", 0},
		{sessions.Filter{Tapes: []string{"b", "d", "nope"}}, "d b", 2},
		{sessions.Filter{Tapes: []string{}}, "", 0},
	}
	for _, c := range cases {
		list, total, err := sessions.List(context.Background(), f.ix, c.f)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range list {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, " "); got != c.names || total != c.total {
			t.Errorf("%+v: listed %q of %d, want %q of %d", c.f, got, total, c.names, c.total)
		}
		if c.f.Tape != "" || c.f.Tapes != nil {
			continue // Count counts every tape
		}
		n, err := sessions.Count(context.Background(), f.ix, c.f.Since)
		if err != nil || n != c.total {
			t.Errorf("%+v: Count = %d, %v; want %d", c.f, n, err, c.total)
		}
	}
}

func page(limit, offset int) views.Page { return views.Page{Limit: limit, Offset: offset} }

// mutator makes random changes to a fixture's tapes that move what a list
// says of them: messages by people and agents, with and without meta,
// titles, runs, lines appended to older files that sort before the rest,
// handoffs, new tapes, truncated, rewritten and removed files, folders
// and tapes.
type mutator struct {
	f   *fixture
	r   *rand.Rand
	log []string
}

func (m *mutator) pick(list ...string) string { return list[m.r.IntN(len(list))] }

func (m *mutator) glob(pattern string) []string {
	found, _ := filepath.Glob(m.f.path(pattern))
	var rel []string
	for _, p := range found {
		r, _ := filepath.Rel(m.f.path(""), p)
		rel = append(rel, filepath.ToSlash(r))
	}
	return rel
}

func (m *mutator) line() string {
	hhmm := fmt.Sprintf("09:%02d", m.r.IntN(60))
	meta := m.pick(noMeta, noMeta, `{"cwd":"/a"}`, `{"cwd":"/b","git_branch":"x"}`, `{"branch":"y"}`, `{"synthetic":true}`)
	switch m.r.IntN(7) {
	case 0, 1:
		return line("message", hhmm, fmt.Sprintf(`{"role":%q,"content":%q}`, m.pick("user", "user", "User", "assistant"), m.pick("hello", "fix it", "再试一次")), meta)
	case 2:
		return title(hhmm, m.pick("named", "renamed"))
	case 3:
		return run(hhmm, m.pick("", "gpt", "claude"))
	case 4:
		return fmt.Sprintf(`{"role":"user","content":%q}`, m.pick("bare", "undated")) // no date: it takes its file's
	}
	return line("note", hhmm, `{"text":"n"}`, meta)
}

func (m *mutator) state() string {
	return fmt.Sprintf(`{"cwd":%q,"git_branch":%q,"source":%q,"session_id":%q,"parent_session":%q}`,
		m.pick("", "/s1", "/s2"), m.pick("", "main"), m.pick("", "claude"), m.pick("", "S1", "S2"), m.pick("", "", "S1"))
}

func (m *mutator) step() {
	tapes := m.glob("*")
	folders := m.glob("*/anchors/*")
	files := m.glob("*/anchors/*/*.jsonl")
	switch k := m.r.IntN(100); {
	case k < 45 && len(folders) > 0: // append, to any file of any folder
		file := m.pick(folders...) + "/" + m.pick("a.jsonl", "b.jsonl", "c.jsonl")
		m.f.append(file, m.line())
		m.log = append(m.log, "append "+file)
	case k < 55 && len(tapes) > 0: // handoff
		tape := m.pick(tapes...)
		folder := fmt.Sprintf("%s/anchors/%03d_next", tape, 2+m.r.IntN(5))
		if len(m.glob(folder)) == 0 {
			m.f.anchor(folder, fmt.Sprintf("2026-11-20T09:%02d:00Z", m.r.IntN(60)), m.state())
			m.log = append(m.log, "handoff "+folder)
		}
	case k < 62: // a new tape
		tape := m.pick("t1", "t2", "t3", "t4")
		if len(m.glob(tape)) == 0 {
			m.f.anchor(tape+"/anchors/001_start", fmt.Sprintf("2026-11-20T09:%02d:00Z", m.r.IntN(60)), m.state())
			m.log = append(m.log, "tape "+tape)
		}
	case k < 65 && len(tapes) > 0: // a folder made by hand, and maybe its anchor.json later
		folder := fmt.Sprintf("%s/anchors/%03d_hand", m.pick(tapes...), m.r.IntN(4))
		if err := os.MkdirAll(m.f.path(folder), 0o700); err != nil {
			m.f.t.Fatal(err)
		}
		m.log = append(m.log, "mkdir "+folder)
	case k < 68 && len(folders) > 0:
		folder := m.pick(folders...)
		if len(m.glob(folder+"/anchor.json")) == 0 {
			m.f.anchor(folder, fmt.Sprintf("2026-11-20T09:%02d:00Z", m.r.IntN(60)), m.state())
			m.log = append(m.log, "anchor.json in "+folder)
		}
	case k < 75 && len(files) > 0:
		file := m.pick(files...)
		fi, err := os.Stat(m.f.path(file))
		if err == nil {
			os.Truncate(m.f.path(file), m.r.Int64N(fi.Size()+1))
			m.log = append(m.log, "truncate "+file)
		}
	case k < 79 && len(files) > 0:
		file := m.pick(files...)
		m.f.write(file, m.line())
		m.log = append(m.log, "rewrite "+file)
	case k < 82 && len(files) > 0:
		file := m.pick(files...)
		m.f.remove(file)
		m.log = append(m.log, "rm "+file)
	case k < 85 && len(folders) > 1:
		folder := m.pick(folders...)
		m.f.remove(folder)
		m.log = append(m.log, "rm -r "+folder)
	case k < 87 && len(tapes) > 1:
		tape := m.pick(tapes...)
		m.f.remove(tape)
		m.log = append(m.log, "rm tape "+tape)
	default:
		m.f.catchUp()
		m.f.list()
		m.log = append(m.log, "catch-up")
	}
}

// TestListAfterRandomChanges: after any sequence of changes, with
// catch-ups between, the view lists what the sessions computed when asked
// say (fixture.list), and what a rebuild of the same files lists.
func TestListAfterRandomChanges(t *testing.T) {
	t.Parallel()
	for seed := range short.Seeds(20) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			f := newFixture(t)
			m := &mutator{f: f, r: rand.New(rand.NewPCG(seed, 18))}
			f.anchor("t0/anchors/001_start", "2026-11-20T09:30:00Z", m.state())
			for range 60 {
				m.step()
				if t.Failed() {
					t.Fatalf("after %v", m.log)
				}
			}
			f.catchUp()
			got := f.list()
			if _, err := f.ix.Rebuild(context.Background()); err != nil {
				t.Fatal(err)
			}
			if rebuilt := f.list(); rebuilt != got {
				t.Fatalf("after %v\nincrementally:\n%s\nrebuilt:\n%s", m.log, got, rebuilt)
			}
		})
	}
}

// TestListMatches: Match keeps the tapes whose name, title, working
// directory, branch, model or source contains it, in either case, and
// reads % and _ as themselves.
func TestListMatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.anchor("alpha/anchors/001_start", "2026-11-20T09:00:00Z", `{"cwd":"/src/Payments"}`)
	f.anchor("beta/anchors/001_start", "2026-11-20T09:01:00Z", `{}`)
	f.write("beta/anchors/001_start/m.jsonl", title("09:02", "修复 50%_off 折扣"))
	f.anchor("gamma/anchors/001_start", "2026-11-20T09:03:00Z", `{}`)
	f.write("gamma/anchors/001_start/m.jsonl", run("09:04", "claude-opus-4"))
	f.catchUp()
	for _, c := range []struct{ match, names string }{
		{"payments", "alpha"},
		{"BETA", "beta"},
		{"折扣", "beta"},
		{"50%_", "beta"},
		{"%", "beta"},
		{"_", "beta"},
		{"opus", "gamma"},
		{"a", "gamma beta alpha"},
		{"nowhere", ""},
	} {
		list, total, err := sessions.List(context.Background(), f.ix, sessions.Filter{Match: c.match})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range list {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, " "); got != c.names || total != len(names) {
			t.Errorf("Match %q: listed %q of %d, want %q", c.match, got, total, c.names)
		}
	}
}
