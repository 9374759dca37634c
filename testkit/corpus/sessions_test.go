package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"
	"unicode"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// One seed gives the same files; another seed, others.
func TestGenerateSessionsDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	opts := SessionOptions{Tapes: 40, Seed: 3}
	for _, dir := range []string{a, b} {
		if _, err := GenerateSessions(dir, opts); err != nil {
			t.Fatal(err)
		}
	}
	opts.Seed = 4
	if _, err := GenerateSessions(c, opts); err != nil {
		t.Fatal(err)
	}
	ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
	if !slices.Equal(slices.Sorted(maps.Keys(ta)), slices.Sorted(maps.Keys(tb))) {
		t.Fatalf("two runs with one seed wrote different files")
	}
	for name, data := range ta {
		if !bytes.Equal(data, tb[name]) {
			t.Errorf("%s differs between two runs with one seed", name)
		}
	}
	if maps.EqualFunc(ta, tc, bytes.Equal) {
		t.Errorf("seeds 3 and 4 wrote the same files")
	}
}

// sessionShape is what the tests measure of a workspace of sessions, read
// back through the log package as tape reads it.
type sessionShape struct {
	tapes, folders, secondFolders, entries int
	perTape                                []int
	kinds                                  map[string]int
	calls, answered, failed                int
	runsWithUsage, titles, startsWithCWD   int
	chinese, messages                      int
	payloadBytes                           int
	first, last                            time.Time
	lines                                  [][]byte // every entry's line, for the rare words
}

func readSessions(t *testing.T, dir string) sessionShape {
	t.Helper()
	ws, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	names, err := ws.Tapes()
	if err != nil {
		t.Fatal(err)
	}
	sh := sessionShape{tapes: len(names), kinds: map[string]int{}}
	for _, name := range names {
		tp, err := ws.Tape(name)
		if err != nil {
			t.Fatal(err)
		}
		anchors, err := tp.Anchors()
		if err != nil {
			t.Fatal(err)
		}
		sh.folders += len(anchors)
		if len(anchors) > 1 {
			sh.secondFolders++
		}
		sh.readStart(t, name, anchors[0])
		sh.perTape = append(sh.perTape, sh.readTape(t, tp))
	}
	return sh
}

// readStart checks the first anchor's state, as the importer writes it.
func (sh *sessionShape) readStart(t *testing.T, name string, a tapelog.Anchor) {
	var state struct {
		Source    string `json:"source"`
		SessionID string `json:"session_id"`
		CWD       string `json:"cwd"`
		GitBranch string `json:"git_branch"`
	}
	if err := json.Unmarshal(a.State, &state); err != nil {
		t.Fatalf("%s: first anchor's state: %v", name, err)
	}
	if a.Name != "session/start" || state.Source == "" || state.SessionID == "" || state.CWD == "" || state.GitBranch == "" {
		t.Errorf("%s: first anchor %q with state %s; want session/start with source, session_id, cwd and git_branch", name, a.Name, a.State)
	}
}

// readTape reads a tape's entries, and returns how many there are.
func (sh *sessionShape) readTape(t *testing.T, tp *tapelog.Tape) int {
	n := 0
	for e, err := range tp.All(context.Background()) {
		if err != nil {
			t.Fatalf("tape %s: %v", tp.Name(), err)
		}
		if e.Kind == tapelog.KindAnchor {
			continue
		}
		var payload map[string]any
		if err := json.Unmarshal(e.Payload, &payload); err != nil {
			t.Fatalf("%s: %v", e.Pos.Path(), err)
		}
		f := views.Extract(e.Kind, payload, e.Meta)
		if n == 0 && f.CWD != "" && f.Branch != "" {
			sh.startsWithCWD++
		}
		n++
		sh.entries++
		sh.kinds[e.Kind]++
		sh.calls += len(f.Calls)
		sh.answered += len(f.Results)
		for _, r := range f.Results {
			if r.Failed {
				sh.failed++
			}
		}
		if f.Run != nil && f.Run.Model != "" && f.Run.Usage {
			sh.runsWithUsage++
		}
		if f.Title != "" {
			sh.titles++
		}
		if e.Kind == tapelog.KindMessage {
			sh.messages++
			if content, _ := payload["content"].(string); hasHan(content) {
				sh.chinese++
			}
		}
		sh.payloadBytes += len(e.Payload)
		sh.dated(t, e)
		line, _ := json.Marshal(payload)
		sh.lines = append(sh.lines, line)
	}
	return n
}

func (sh *sessionShape) dated(t *testing.T, e tapelog.Entry) {
	at, err := tapelog.ParseTime(e.Date)
	if err != nil {
		t.Fatalf("%s: date %q: %v", e.Pos.Path(), e.Date, err)
	}
	if sh.first.IsZero() || at.Before(sh.first) {
		sh.first = at
	}
	if at.After(sh.last) {
		sh.last = at
	}
}

func hasHan(s string) bool {
	return bytes.ContainsFunc([]byte(s), func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// The sessions have the shape of the users' workspaces, every line reads
// as an entry, and the stats say what was written.
func TestGenerateSessionsShape(t *testing.T) {
	dir := t.TempDir()
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	st, err := GenerateSessions(dir, SessionOptions{Tapes: 300, Seed: 1, End: end})
	if err != nil {
		t.Fatal(err)
	}
	sh := readSessions(t, dir)
	files := len(readTree(t, dir))
	if got, want := [4]int{st.Tapes, st.Anchors, st.Files, st.Entries}, [4]int{sh.tapes, sh.folders, files, sh.entries}; got != want {
		t.Errorf("stats say tapes, folders, files, entries = %v; the files hold %v", got, want)
	}
	share := func(n, of int) float64 { return float64(n) / float64(of) }
	slices.Sort(sh.perTape)
	for _, c := range []struct {
		what   string
		got    float64
		lo, hi float64
	}{
		{"tapes", float64(sh.tapes), 300, 300},
		{"mean entries per tape", share(sh.entries, sh.tapes), 28, 44},
		{"median entries per tape", float64(sh.perTape[len(sh.perTape)/2]), 15, 26},
		{"most entries of a tape", float64(sh.perTape[len(sh.perTape)-1]), 150, 600},
		{"fewest entries of a tape", float64(sh.perTape[0]), 2, 6},
		{"share of tapes with a second anchor folder", share(sh.secondFolders, sh.tapes), 0.08, 0.24},
		{"files per anchor folder, anchor.json included", share(files, sh.folders), 3, 4},
		{"share of messages", share(sh.kinds[tapelog.KindMessage], sh.entries), 0.15, 0.28},
		{"share of tool calls", share(sh.kinds[tapelog.KindToolCall], sh.entries), 0.30, 0.42},
		{"share of tool results", share(sh.kinds[tapelog.KindToolResult], sh.entries), 0.30, 0.44},
		{"share of run events with model and usage", share(sh.runsWithUsage, sh.entries), 0.03, 0.08},
		{"share of title events", share(sh.titles, sh.entries), 0.005, 0.04},
		{"share of tapes whose first entry names its cwd and branch", share(sh.startsWithCWD, sh.tapes), 1, 1},
		{"share of calls left pending", 1 - share(sh.answered, sh.calls), 0.01, 0.06},
		{"share of results that failed", share(sh.failed, sh.answered), 0.03, 0.10},
		{"share of messages in Chinese", share(sh.chinese, sh.messages), 0.12, 0.30},
		{"mean payload bytes", share(sh.payloadBytes, sh.entries), 1000, 1700},
		{"days from the first entry to the last", sh.last.Sub(sh.first).Hours() / 24, 80, 91},
		{"hours from the last entry to the end", end.Sub(sh.last).Hours(), -24, 24},
	} {
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s: %.3f, want %g to %g", c.what, c.got, c.lo, c.hi)
		}
	}
	all := bytes.Join(sh.lines, []byte("\n"))
	for i := 0; i < sh.entries; i += RareEvery {
		if n := bytes.Count(all, []byte(RareWord(i))); n != 1 {
			t.Errorf("rare word %s is in %d entries, want 1", RareWord(i), n)
		}
	}
}
