//go:build postgres

package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// sessionsWorkspace writes a workspace of n generated sessions.
func sessionsWorkspace(t testing.TB, n int, seed uint64) (*tapelog.Workspace, *projector.Projector) {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpus.GenerateSessions(filepath.Join(dir, tapelog.DirName), corpus.SessionOptions{Tapes: n, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	ws, err := tapelog.Open(filepath.Join(dir, tapelog.DirName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, openIndex(t, ws)
}

// Two workspaces (two machines) sync into one database; each is found by
// the other's search, and each one's tapes, usage and search answers are
// its local index's.
func TestTwoWorkspacesOneServer(t *testing.T) {
	ctx := context.Background()
	url := server.DB(t)
	wsA, ixA := sessionsWorkspace(t, 30, 1)
	wsB, ixB := sessionsWorkspace(t, 20, 2)
	appendEntry(t, wsA, "claude-mine", "message", map[string]any{"role": "user", "content": "只在甲机器上: the quuxFrobnicate of alpha"})
	appendEntry(t, wsB, "codex-yours", "message", map[string]any{"role": "user", "content": "只在乙机器上: the plughWibble of beta"})
	connA, connB := connect(t, url), connect(t, url)
	syncNow(t, ixA, connA)
	syncNow(t, ixB, connB)
	idA, idB := identity(t, wsA), identity(t, wsB)
	if idA == idB {
		t.Fatal("two workspaces share an id")
	}

	// Each finds what only the other has: in English, Chinese and by a
	// part of a camelCase name.
	for _, c := range []struct {
		conn        *pgx.Conn
		query, from string
	}{{connA, "wibble", idB}, {connA, "乙机器", idB}, {connB, "frobnicate", idA}, {connB, "甲机", idA}} {
		hits, err := Search(ctx, c.conn, SearchQuery{Text: c.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || !strings.Contains(hits[0].Entry.Pos.Tape, map[string]string{idA: "mine", idB: "yours"}[c.from]) {
			var tapes []string
			for _, h := range hits {
				tapes = append(tapes, h.Entry.Pos.Tape)
			}
			t.Errorf("search %q: hits in %v; want the other workspace's entry", c.query, tapes)
		}
	}
	hits, err := Search(ctx, connB, SearchQuery{Text: "quuxFrobnicate", Workspaces: []string{idB}})
	if err != nil || len(hits) != 0 {
		t.Errorf("search narrowed to workspace B found A's entry: %v, %v", hits, err)
	}

	for _, w := range []struct {
		id string
		ix *projector.Projector
	}{{idA, ixA}, {idB, ixB}} {
		compareTapes(t, connA, w.ix, w.id)
		compareUsage(t, connA, w.ix, w.id)
		compareSearch(t, connA, w.ix, w.id)
	}
}

func compareTapes(t *testing.T, conn *pgx.Conn, ix *projector.Projector, wsID string) {
	t.Helper()
	local, _, err := sessions.List(context.Background(), ix, sessions.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	remote, total, err := Tapes(context.Background(), conn, TapesFilter{Workspaces: []string{wsID}})
	if err != nil {
		t.Fatal(err)
	}
	var got []sessions.Session
	for _, r := range remote {
		got = append(got, r.Session)
	}
	if total != len(local) || fmt.Sprint(got) != fmt.Sprint(local) {
		t.Errorf("tapes on the server (%d):\n%v\nlocal (%d):\n%v", total, got, len(local), local)
	}
}

// corpusPrices are the prices tape ships, which price some of the
// corpus's models and not others.
var corpusPrices = pricing.Snapshot()

func compareUsage(t *testing.T, conn *pgx.Conn, ix *projector.Projector, wsID string) {
	t.Helper()
	for _, by := range []string{"model", "day", "tape"} {
		// Priced by a table of the corpus's model, as the local index prices.
		local, _, err := usage.Sum(context.Background(), ix, usage.Filter{By: by, Prices: corpusPrices})
		if err != nil {
			t.Fatal(err)
		}
		remote, _, err := Usage(context.Background(), conn, by, []string{wsID}, corpusPrices)
		if err != nil {
			t.Fatal(err)
		}
		var got []usage.Row
		for _, r := range remote {
			got = append(got, r.Row)
		}
		if fmt.Sprint(got) != fmt.Sprint(local) {
			t.Errorf("usage by %s on the server:\n%v\nlocal:\n%v", by, got, local)
		}
	}
}

// compareSearch checks that queries of each kind find the same entries
// on the server as in the local index.
func compareSearch(t *testing.T, conn *pgx.Conn, ix *projector.Projector, wsID string) {
	t.Helper()
	for _, q := range []string{corpus.RareWord(0), corpus.RareWord(40), "错误", "发生", "flush", "timeout store", `"the store"`, "ret*", "Handler", "错"} {
		local, err := ix.Search(context.Background(), projector.SearchQuery{Text: q, Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		remote, err := Search(context.Background(), conn, SearchQuery{Text: q, Workspaces: []string{wsID}, Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, h := range local {
			want = append(want, h.Entry.Pos.Tape+"/"+h.Entry.ID)
		}
		for _, h := range remote {
			got = append(got, h.Entry.Pos.Tape+"/"+h.Entry.ID)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("search %q: the server finds %d entries, the local index %d\nserver: %s\nlocal:  %s", q, len(got), len(want),
				strings.Join(first(got, 10), " "), strings.Join(first(want, 10), " "))
		}
	}
}

func first(l []string, n int) []string { return l[:min(n, len(l))] }

// Runs that share a usage id count once on the server as in the local
// index, the one with the most tokens, across tapes; when it goes, the
// next counts.
func TestUsageCountsEachUsageIDOnce(t *testing.T) {
	ws := newWorkspace(t)
	run := func(tape string, total int, id string) {
		appendEntry(t, ws, tape, "event", map[string]any{"name": "run", "data": map[string]any{"model": "m",
			"usage": map[string]any{"input_tokens": total, "output_tokens": 0}, "usage_id": id}})
	}
	run("main", 10, "req_1")
	run("main", 30, "req_1")
	run("side", 20, "req_1")
	run("side", 5, "req_2")
	run("third", 7, "req_2")
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	wsID := identity(t, ws)
	syncNow(t, ix, conn)
	compareUsage(t, conn, ix, wsID)
	if rows, _, _ := Usage(t.Context(), conn, "workspace", nil, nil); len(rows) != 1 || rows[0].Input != 37 || rows[0].Runs != 2 {
		t.Errorf("usage by workspace: %+v; want 2 runs of 37 tokens (30 of req_1, 7 of req_2)", rows)
	}
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes/main")); err != nil { // the counted run of req_1 goes
		t.Fatal(err)
	}
	syncNow(t, ix, conn)
	compareUsage(t, conn, ix, wsID)
	if rows, _, _ := Usage(t.Context(), conn, "workspace", nil, nil); len(rows) != 1 || rows[0].Input != 27 {
		t.Errorf("usage by workspace after the counted run went: %+v; want 27 tokens (20 of req_1, 7 of req_2)", rows)
	}
}
