package projector

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// searchContents runs a search and returns the contents of the messages
// found, sorted.
func searchContents(t *testing.T, p *Projector, q SearchQuery) []string {
	t.Helper()
	return sorted(searchRanked(t, p, q))
}

// searchRanked runs a search and returns the contents of the messages
// found, best first.
func searchRanked(t *testing.T, p *Projector, q SearchQuery) []string {
	t.Helper()
	hits, err := p.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	var got []string
	for _, h := range hits {
		var m struct{ Content string }
		json.Unmarshal(h.Entry.Payload, &m)
		got = append(got, m.Content)
	}
	return got
}

func TestSearch(t *testing.T) {
	ws := newWorkspace(t)
	for _, c := range []string{
		"发生了一个错误，请重试",
		"没有错",
		"エラーが発生しました",
		"TestFlush timed out waiting for flush",
		"open /usr/local/bin/tape: permission denied",
		"call fix_issue_42 now",
		"请运行npm install",
		"the store flushes on Close",
		`quote "inside" text`,
	} {
		appendMsg(t, ws, "main", c)
	}
	appendMsg(t, ws, "other", "flush on another tape")
	p := openProjector(t, ws)
	catchUp(t, p)
	main := []string{"main"}
	tests := []struct {
		query string
		tapes []string
		want  []string
	}{
		{"错误", main, []string{"发生了一个错误，请重试"}},
		{"错", main, []string{"发生了一个错误，请重试", "没有错"}},
		{"一个错误", main, []string{"发生了一个错误，请重试"}},
		{"重试", main, []string{"发生了一个错误，请重试"}},
		{"错误 重试", main, []string{"发生了一个错误，请重试"}},
		{"发生了一个错误，请重试", main, []string{"发生了一个错误，请重试"}},
		{"错误，请重试", main, []string{"发生了一个错误，请重试"}},
		{`"一个错误，请"`, main, []string{"发生了一个错误，请重试"}},
		{"运行npm", main, []string{"请运行npm install"}},
		{"发生", main, []string{"エラーが発生しました", "发生了一个错误，请重试"}[1:]},
		{"エラー", main, []string{"エラーが発生しました"}},
		{"flush", main, []string{"TestFlush timed out waiting for flush"}},
		{"flush", nil, []string{"TestFlush timed out waiting for flush", "flush on another tape"}},
		{"FLUSH waiting", main, []string{"TestFlush timed out waiting for flush"}},
		{`"waiting for flush"`, main, []string{"TestFlush timed out waiting for flush"}},
		{`"for waiting"`, main, nil},
		{"flush*", main, []string{"TestFlush timed out waiting for flush", "the store flushes on Close"}},
		{"/usr/local/bin/tape", main, []string{"open /usr/local/bin/tape: permission denied"}},
		{"fix_issue_42", main, []string{"call fix_issue_42 now"}},
		{"tape: permission", main, []string{"open /usr/local/bin/tape: permission denied"}},
		{`"inside`, main, []string{`quote "inside" text`}},
		{"NEAR(", main, nil},
		{"-flush", main, []string{"TestFlush timed out waiting for flush"}},
		{"a:b", main, nil},
		{"nothing-like-this", main, nil},
	}
	for _, tt := range tests {
		got := searchContents(t, p, SearchQuery{Text: tt.query, Tapes: tt.tapes})
		want := slices.Clone(tt.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("search %q = %q, want %q", tt.query, got, want)
		}
	}
	if _, err := p.Search(context.Background(), SearchQuery{Text: `" - "`}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("search for punctuation: %v, want ErrEmptyQuery", err)
	}
}

// TestSearchFindsPartsOfNames: a word finds the camelCase and PascalCase
// names it is part of, below the entries where it stands alone, and a
// whole name still finds only itself.
func TestSearchFindsPartsOfNames(t *testing.T) {
	ws := newWorkspace(t)
	for _, c := range []string{
		"TestFlush failed",
		"flush the buffer before close, then return to the caller",
		"return newHandler(cfg)",
		"the handler runs, and then it runs again for a while",
		"修复TestFlush测试",
		"HTTPServer started",
	} {
		appendMsg(t, ws, "main", c)
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	tests := []struct {
		query string
		want  []string // best first
	}{
		{"flush", []string{"flush the buffer before close, then return to the caller", "TestFlush failed", "修复TestFlush测试"}},
		{"handler", []string{"the handler runs, and then it runs again for a while", "return newHandler(cfg)"}},
		{"TestFlush", []string{"TestFlush failed", "修复TestFlush测试"}},
		{"newHandler", []string{"return newHandler(cfg)"}},
		{"test flush", []string{"TestFlush failed", "修复TestFlush测试"}},
		{"测试", []string{"修复TestFlush测试"}},
		{"server", []string{"HTTPServer started"}},
		{"http", []string{"HTTPServer started"}},
	}
	for _, tt := range tests {
		got := searchRanked(t, p, SearchQuery{Text: tt.query})
		if len(got) != len(tt.want) || got[0] != tt.want[0] || !slices.Equal(sorted(got), sorted(tt.want)) {
			t.Errorf("search %q = %q, want %q (the first first)", tt.query, got, tt.want)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestSearchFiltersAndSnippet(t *testing.T) {
	ws := newWorkspace(t)
	tp, _ := ws.Tape("main")
	defer tp.Close()
	ctx := context.Background()
	add := func(kind, payload, date string) {
		if _, err := tp.Append(ctx, tapelog.Entry{Kind: kind, Payload: json.RawMessage(payload), Date: date}); err != nil {
			t.Fatal(err)
		}
	}
	add("message", `{"role":"user","content":"deploy failed on friday"}`, "2026-01-01T10:00:00Z")
	add("tool_call", `{"calls":[{"id":"c","type":"function","function":{"name":"deploy","arguments":"{\"env\":\"prod\"}"}}]}`, "2026-01-02T10:00:00Z")
	if _, err := tp.Handoff(ctx, "retry", json.RawMessage(`{"summary":"deploy again"}`)); err != nil {
		t.Fatal(err)
	}
	add("error", `{"kind":"deploy","message":"deploy timed out"}`, "2026-01-03T10:00:00Z")
	p := openProjector(t, ws)
	catchUp(t, p)
	kinds := func(q SearchQuery) []string {
		hits, err := p.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var k []string
		for _, h := range hits {
			k = append(k, h.Entry.Kind)
		}
		slices.Sort(k)
		return k
	}
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		name string
		q    SearchQuery
		want []string
	}{
		{"all", SearchQuery{Text: "deploy"}, []string{"anchor", "error", "message", "tool_call"}},
		{"kind", SearchQuery{Text: "deploy", Kinds: []string{"error", "tool_call"}}, []string{"error", "tool_call"}},
		{"folder", SearchQuery{Text: "deploy", Tapes: []string{"main"}, Folders: []string{"002_retry"}}, []string{"anchor", "error"}},
		{"since", SearchQuery{Text: "deploy", Since: day(2)}, []string{"anchor", "error", "tool_call"}},
		{"until", SearchQuery{Text: "deploy", Until: day(2)}, []string{"message"}},
		{"limit", SearchQuery{Text: "deploy", Limit: 1, Kinds: []string{"message"}}, []string{"message"}},
	} {
		if got := kinds(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%s: kinds found = %v, want %v", tt.name, got, tt.want)
		}
	}
	var dates []string
	newest, err := p.Search(ctx, SearchQuery{Text: "deploy", Newest: true})
	for _, h := range newest {
		dates = append(dates, h.Entry.Kind+" "+h.RankedBy)
	}
	// The handoff's anchor is dated when it ran: today.
	if want := []string{"anchor recency", "error recency", "tool_call recency", "message recency"}; err != nil || !slices.Equal(dates, want) {
		t.Errorf("newest first: %v, %v; want %v", dates, err, want)
	}
	hits, _ := p.Search(ctx, SearchQuery{Text: "friday", Kinds: []string{"message"}})
	if len(hits) != 1 || hits[0].Snippet != "deploy failed on **friday**" || hits[0].Rank >= 0 {
		t.Errorf("hit = %+v; want the snippet with **friday** and a negative bm25 rank", hits)
	}
}

// A query with more matches than the rank window returns the newest first.
func TestSearchRankWindow(t *testing.T) {
	ws := newWorkspace(t)
	contents := make([]string, 50)
	for i := range contents {
		contents[i] = "common word"
	}
	contents[3] = "common common common common word" // the best match, but old
	appendMsgs(t, ws, "main", contents)
	p := openProjector(t, ws)
	catchUp(t, p)
	best := func() string {
		hits, err := p.Search(context.Background(), SearchQuery{Text: "common", Limit: 1})
		if err != nil || len(hits) != 1 {
			t.Fatalf("search: %v, %d hits", err, len(hits))
		}
		return views.SearchText(hits[0].Entry)
	}
	if got := best(); !strings.HasPrefix(got, "common common") {
		t.Errorf("best match with the whole doclist ranked = %q", got)
	}
	p.RankWindow = 10
	hits, err := p.Search(context.Background(), SearchQuery{Text: "common", Limit: 3})
	if err != nil || len(hits) != 3 {
		t.Fatalf("search: %v, %d hits", err, len(hits))
	}
	for i, h := range hits {
		if h.RankedBy != RankedByRecency || h.Entry.Pos.Offset <= 0 || (i > 0 && h.Entry.Pos.Offset >= hits[i-1].Entry.Pos.Offset) {
			t.Errorf("hit %d: %s at offset %d; with more matches than the window, want the newest first", i, h.RankedBy, h.Entry.Pos.Offset)
		}
	}
}

// TestSearchAcrossTapesNewestFirst: a common query over several tapes
// lists its matches by time, newest first, whichever plan it takes, not
// in the order the index read them (tape by tape, in name order): in a
// workspace of imported sessions, named by hashes, that was an arbitrary
// session's matches first.
func TestSearchAcrossTapesNewestFirst(t *testing.T) {
	ws := newWorkspace(t)
	ctx := context.Background()
	for _, tape := range []struct {
		name, month string
	}{{"aaa", "2026-03"}, {"zzz", "2025-01"}, {"mmm", "2025-06"}} {
		tp, err := ws.Tape(tape.name)
		if err != nil {
			t.Fatal(err)
		}
		for day := 1; day <= 4; day++ {
			payload := fmt.Sprintf(`{"role":"user","content":"common word, %s day %d"}`, tape.name, day)
			if _, err := tp.Append(ctx, tapelog.Entry{Kind: "message", Payload: json.RawMessage(payload), Date: fmt.Sprintf("%s-%02dT10:00:00Z", tape.month, day)}); err != nil {
				t.Fatal(err)
			}
		}
		tp.Close()
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	p.RankWindow = 3
	for _, tt := range []struct {
		plan    string
		denseAt int
	}{{"walk the entries by time", 1}, {"sort the matches", 1 << 30}} {
		p.denseAt = tt.denseAt
		for _, q := range []struct {
			tapes        []string
			since, until time.Time
			want         []string
		}{
			{nil, time.Time{}, time.Time{}, []string{"common word, aaa day 4", "common word, aaa day 3", "common word, aaa day 2", "common word, aaa day 1", "common word, mmm day 4"}},
			{[]string{"zzz", "mmm"}, time.Time{}, time.Time{}, []string{"common word, mmm day 4", "common word, mmm day 3", "common word, mmm day 2", "common word, mmm day 1", "common word, zzz day 4"}},
			// The filters hold in both plans: only 2025-01-03 to 2025-06-03.
			{nil, time.Date(2025, 1, 3, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC), []string{"common word, mmm day 2", "common word, mmm day 1", "common word, zzz day 4", "common word, zzz day 3"}},
		} {
			hits, err := p.Search(ctx, SearchQuery{Text: "common", Tapes: q.tapes, Since: q.since, Until: q.until, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				if h.RankedBy != RankedByRecency {
					t.Errorf("%s: ranked by %s, want recency", tt.plan, h.RankedBy)
				}
				got = append(got, strings.TrimSpace(views.SearchText(h.Entry)))
			}
			if !slices.Equal(got, q.want) {
				t.Errorf("%s, tapes %v: hits\n%q\nwant\n%q", tt.plan, q.tapes, got, q.want)
			}
		}
	}
}

// A phrase whose words are common is ranked by recency even when the
// phrase itself is rare: ranking it by bm25 would check every entry that
// has its words; a phrase of rarer words is ranked by bm25.
func TestSearchPhraseOfCommonWords(t *testing.T) {
	ws := newWorkspace(t)
	contents := make([]string, 40)
	for i := range contents {
		contents[i] = "alpha then beta"
	}
	contents[5], contents[20], contents[30] = "alpha beta together", "alpha beta together", "alpha beta together" // the phrase, three times
	contents[10] = "gamma delta here"                                                                             // a rare phrase
	appendMsgs(t, ws, "main", contents)
	p := openProjector(t, ws)
	p.RankWindow = 10
	catchUp(t, p)
	hits, err := p.Search(context.Background(), SearchQuery{Text: `"alpha beta"`})
	if err != nil || len(hits) != 3 {
		t.Fatalf("search of the phrase: %v, %d hits; want 3", err, len(hits))
	}
	for i, h := range hits {
		if h.RankedBy != RankedByRecency || !strings.Contains(views.SearchText(h.Entry), "alpha beta") || (i > 0 && h.Entry.Pos.Offset >= hits[i-1].Entry.Pos.Offset) {
			t.Errorf("hit %d: %q by %s at offset %d; want the phrase's matches, newest first", i, views.SearchText(h.Entry), h.RankedBy, h.Entry.Pos.Offset)
		}
	}
	hits, err = p.Search(context.Background(), SearchQuery{Text: `"gamma delta"`})
	if err != nil || len(hits) != 1 || hits[0].RankedBy != RankedByBM25 || hits[0].Rank >= 0 {
		t.Fatalf("search of a rare phrase: %v, %+v; want one hit ranked by bm25", err, hits)
	}
}

// FuzzSearchQuery checks that no query reaches SQLite as an FTS5 syntax
// error.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{`"unbalanced`, "NEAR(", "a:b", "-x", "AND", "*", `"a" OR "b"`, "col:x", "^x", "x + y", "错误*", "\"x \u0301 y\"", "约㌔㌢"} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`); err != nil {
		f.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO t (rowid, text) VALUES (1, 'hello world 错误 误'), (2, ?)`, searchlang.Tokenize("x \u0301 y 约㌔㌢ a:b")); err != nil {
		f.Fatal(err)
	}
	matches := func(t *testing.T, q, expr string) int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH ?`, expr).Scan(&n); err != nil {
			t.Fatalf("query %q as %q: %v", q, expr, err)
		}
		return n
	}
	f.Fuzz(func(t *testing.T, q string) {
		expr, ok := searchlang.MatchExpr(q)
		if !ok {
			return
		}
		n := matches(t, q, expr)
		// The relaxed pass's OR of the terms matches every row the AND does.
		if anyExpr, terms, ok := searchlang.AnyExpr(q); ok {
			if m := matches(t, q, anyExpr); m < n {
				t.Fatalf("AnyExpr(%q) = %q matches %d rows, fewer than the query's %d", q, anyExpr, m, n)
			}
			for _, term := range terms {
				matches(t, q, term)
			}
		}
		// Search asks looseExpr whether the query is common: it must match
		// every row the query does.
		if loose, ok := searchlang.LooseExpr(q); ok {
			if m := matches(t, q, loose); m < n {
				t.Fatalf("query %q: %q matches %d rows, its loose form %q only %d", q, expr, n, loose, m)
			}
		}
	})
}

// A common query on a small tape, beside a large one, finds the small
// tape's matches, newest first.
func TestSearchCommonWordOnSmallTape(t *testing.T) {
	ws := newWorkspace(t)
	common := make([]string, 40)
	for i := range common {
		common[i] = "common words everywhere"
	}
	appendMsgs(t, ws, "big", common)
	appendMsg(t, ws, "small", "common one")
	appendMsg(t, ws, "small", "nothing here")
	appendMsg(t, ws, "small", "common two")
	p := openProjector(t, ws)
	p.RankWindow = 10
	catchUp(t, p)
	hits, err := p.Search(context.Background(), SearchQuery{Text: "common", Tapes: []string{"small"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.Entry.Pos.Tape+":"+views.SearchText(h.Entry)+":"+h.RankedBy)
	}
	want := []string{"small:common two\n:recency", "small:common one\n:recency"}
	if !slices.Equal(got, want) {
		t.Errorf("hits = %q, want %q", got, want)
	}

	// The small tape's span of rowids now holds the big one's too.
	appendMsgs(t, ws, "big", common[:5])
	appendMsg(t, ws, "small", "common three")
	catchUp(t, p)
	hits, err = p.Search(context.Background(), SearchQuery{Text: "common", Tapes: []string{"small"}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, h := range hits {
		got = append(got, h.Entry.Pos.Tape+":"+views.SearchText(h.Entry)+":"+h.RankedBy)
	}
	want = []string{"small:common three\n:recency", "small:common two\n:recency"}
	if !slices.Equal(got, want) {
		t.Errorf("after appends to both: hits = %q, want %q", got, want)
	}
}

// The dense plan lists its hits in one read and reads them back in
// another: a rowid a pass freed between the two, and gave to another
// entry, is dropped, not taken for a hit.
func TestNewestInBlocksDropsReusedRowids(t *testing.T) {
	ws := newWorkspace(t)
	appendMsgs(t, ws, "old", []string{"plain words"})
	appendMsgs(t, ws, "new", []string{"meteor one", "meteor two", "meteor three"})
	p := openProjector(t, ws)
	catchUp(t, p)
	from, args, err := p.newestInBlocks(context.Background(), "meteor", conds{}, 20, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// The tape of the matches removed, and as many entries appended to
	// another: they take the freed rowids.
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes", "new")); err != nil {
		t.Fatal(err)
	}
	catchUp(t, p)
	appendMsgs(t, ws, "old", []string{"plain a", "plain b", "plain c", "plain d"})
	catchUp(t, p)
	var n int
	if err := p.DB().QueryRow(`SELECT count(*)`+from, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d entries read back for rowids the matches no longer hold; want none", n)
	}
}
