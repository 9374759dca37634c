package projector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tape-dev/tape/internal/fts5"
	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/indexdump"
	"github.com/tape-dev/tape/testkit/tapetest"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

func newWorkspace(t *testing.T) *tapelog.Workspace { return tapetest.NewWorkspace(t) }

func openProjector(t *testing.T, ws *tapelog.Workspace) *Projector {
	t.Helper()
	p, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatalf("projector.Open: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func catchUp(t *testing.T, p *Projector) Stats {
	t.Helper()
	st, err := p.CatchUp(context.Background())
	if err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	return st
}

// appendMsgs appends one user message of each content to a tape, in one
// batch; appendMsg one.
func appendMsgs(t *testing.T, ws *tapelog.Workspace, tape string, contents []string) {
	t.Helper()
	tapetest.AppendMessages(t, ws, tape, contents...)
}

func appendMsg(t *testing.T, ws *tapelog.Workspace, tape, content string) tapelog.Entry {
	t.Helper()
	return tapetest.AppendMessages(t, ws, tape, content)[0]
}

// found reports whether a search, on the index as it stands, finds word.
func found(t *testing.T, p *Projector, word string) bool {
	t.Helper()
	hits, err := p.Search(context.Background(), SearchQuery{Text: word})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits) > 0
}

func appendRaw(t *testing.T, path, text string) { t.Helper(); tapetest.AppendRaw(t, path, text) }

// dump renders everything the index answers from (indexdump.Tables), so
// that two indexes of the same files dump the same.
func dump(t *testing.T, p *Projector, words []string) string {
	t.Helper()
	return indexdump.Tables(t, p, words)
}

// dumpQuery writes the rows of a query into b (indexdump.Query).
func dumpQuery(t *testing.T, p *Projector, b *strings.Builder, q string, args ...any) {
	t.Helper()
	indexdump.Query(t, p.DB(), b, q, args...)
}

// rebuiltDump builds a fresh index of the same files in another folder and
// dumps it.
func rebuiltDump(t *testing.T, ws *tapelog.Workspace, words []string) string {
	t.Helper()
	return rebuilt(t, ws, func(p *Projector) string { return dump(t, p, words) })
}

// ftsJoinChecked is fts5.CheckJoin's answer, found once for the test
// binary: the references rebuilt makes take it rather than each run the
// check again (a fifth of projector's race pass went to it). The
// Projectors under test run their own.
var ftsJoinChecked = sync.OnceValue(func() error { return fts5.CheckJoin(context.Background(), nil) })

// rebuilt builds a fresh index of the same files in another folder and
// returns what show says of it. It builds the search index in two parts,
// rows alternating, so that every comparison with a rebuild also compares
// an index joined from parts with one written in place.
func rebuilt(t *testing.T, ws *tapelog.Workspace, show func(*Projector) string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".tape")
	if err := os.CopyFS(dir, os.DirFS(ws.Dir())); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{IndexFile, IndexFile + "-wal", IndexFile + "-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	copyWS, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer copyWS.Close()
	p, err := Open(context.Background(), copyWS)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.buildParts, p.buildBlock = 2, 1
	p.ftsJoin.done, p.ftsJoin.err = true, ftsJoinChecked()
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	return show(p)
}

func itoa(n int) string { return fmt.Sprint(n) }

// answerWords are the words answers searches for: a CJK word (bigrams)
// and one with a digit. Each search loads its hits from the files and
// cuts snippets; dump compares the matches of every word.
var answerWords = []string{"错误", "fix_42"}

// answers renders what the index answers through its public read API, the
// way the CLI asks: the tapes and the sessions list, the calls and
// orphaned results, usage by every grouping, a search for each of
// answerWords over every tape and within two, and, of each tape in tapes
// (nil for every tape), its entries in order with their payloads,
// anchors, bad lines, messages and last usage. dump compares the tables;
// this compares what is read from them, so a view that moves into tables
// of its own (the sessions) is still compared.
func answers(t *testing.T, p *Projector, tapes []string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	all, err := p.Tapes(ctx)
	check("Tapes", err)
	fmt.Fprintf(&b, "tapes %q\n", all)
	list, total, err := sessions.List(ctx, p, sessions.Filter{})
	check("sessions.List", err)
	fmt.Fprintf(&b, "sessions %d\n", total)
	for _, s := range list {
		fmt.Fprintf(&b, "session %+v\n", s)
	}
	if tapes == nil {
		tapes = all
	}
	for _, tape := range tapes {
		answersOfTape(t, p, &b, tape)
	}
	for _, status := range []string{"", "pending", "completed", "failed"} { // the first page of each list
		list, total, errs, err := calls.List(ctx, p, calls.Filter{Status: status, Page: views.Page{Limit: 20}})
		check("calls.List", err)
		fmt.Fprintf(&b, "calls %q %d %v\n", status, total, errs)
		for _, c := range list {
			fmt.Fprintf(&b, "call %s %s %s %s %s args=%s result=%s %s %s %v\n", c.Tape, c.Anchor, c.ID, c.Name, c.Status,
				c.Arguments, c.Result, c.CalledAt, c.AnsweredAt, durationOf(c.DurationMS))
		}
	}
	orphans, total, err := calls.Orphans(ctx, p, "", 1<<30)
	check("calls.Orphans", err)
	fmt.Fprintf(&b, "orphans %d %+v\n", total, orphans)
	for _, by := range []string{"tape", "anchor", "model", "day"} {
		rows, total, err := usage.Sum(ctx, p, usage.Filter{By: by})
		check("usage.Sum by "+by, err)
		fmt.Fprintf(&b, "usage by %s %d %+v\n", by, total, rows)
	}
	var some []string // tapes to search within: the first and a middle one
	if len(all) > 0 {
		some = []string{all[0], all[len(all)/2]}
	}
	for _, w := range answerWords {
		searchAnswers(t, p, &b, SearchQuery{Text: w})
		for _, tape := range some {
			searchAnswers(t, p, &b, SearchQuery{Text: w, Tapes: []string{tape}})
		}
	}
	return b.String()
}

// answersOfTape renders what the index answers of one tape.
func answersOfTape(t *testing.T, p *Projector, b *strings.Builder, tape string) {
	t.Helper()
	ctx := context.Background()
	entries, errs, err := p.Entries(ctx, EntryFilter{Tape: tape})
	if err != nil {
		t.Fatalf("Entries of %s: %v", tape, err)
	}
	fmt.Fprintf(b, "tape %s: %d entries %v\n", tape, len(entries), errs)
	for _, e := range entries {
		fmt.Fprintf(b, "%s %s %+v date=%s payload=%s meta=%s\n", e.ID, e.Kind, e.Pos, e.Date, e.Payload, e.Meta)
	}
	anchors, counts, err := p.Anchors(ctx, tape)
	if err != nil {
		t.Fatalf("Anchors of %s: %v", tape, err)
	}
	fmt.Fprintf(b, "anchors %+v %v\n", anchors, counts)
	bad, err := p.BadLines(ctx, tape, nil)
	if err != nil {
		t.Fatalf("BadLines of %s: %v", tape, err)
	}
	for _, e := range bad {
		fmt.Fprintf(b, "bad %v\n", e)
	}
	msgs, total, errs, err := p.Messages(ctx, tape, views.Page{})
	if err != nil {
		t.Fatalf("Messages of %s: %v", tape, err)
	}
	fmt.Fprintf(b, "messages %d %v\n", total, errs)
	for _, m := range msgs {
		fmt.Fprintf(b, "message %s %s\n", m.ID, views.MessageText(m.Payload))
	}
	last, ok, err := usage.Last(ctx, p, tape)
	if err != nil {
		t.Fatalf("usage.Last of %s: %v", tape, err)
	}
	fmt.Fprintf(b, "last usage %v %s %s\n", ok, last.ID, last.Payload)
}

// searchAnswers renders the hits of a search. Hits ranked by bm25 are
// compared in order, as the search returns them. Of hits ranked by
// recency in one tape, or of a phrase, only their number is: that is the
// order entries were indexed in, which an incremental index and a rebuild
// need not share (decision 0032), so neither is the first page. (dump
// compares every match.) Across tapes, a query of words ranked by recency
// is listed by time, and compared in order.
func searchAnswers(t *testing.T, p *Projector, b *strings.Builder, q SearchQuery) {
	t.Helper()
	hits, err := p.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search %+v: %v", q, err)
	}
	fmt.Fprintf(b, "search %q in %q: %d hits\n", q.Text, q.Tapes, len(hits))
	if len(hits) > 0 && hits[0].RankedBy == RankedByRecency {
		fmt.Fprintln(b, "ranked by recency")
	} else {
		writeHits(b, hits)
	}
	// Across tapes, a common query of words is listed by time, an order
	// of the data (decision 0065): with the window at 1, so that it is
	// common, the pages of both plans are compared too.
	expr, _ := searchlang.MatchExpr(q.Text)
	loose, _ := searchlang.LooseExpr(q.Text)
	if q.Tapes != nil || expr != loose {
		return
	}
	window, dense := p.RankWindow, p.denseAt
	defer func() { p.RankWindow, p.denseAt = window, dense }()
	for _, at := range []int{1, 1 << 30} {
		p.RankWindow, p.denseAt = 1, at
		hits, err := p.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("Search %+v by time: %v", q, err)
		}
		fmt.Fprintf(b, "search %q by time, dense at %d:\n", q.Text, at)
		writeHits(b, hits)
	}
}

func writeHits(b *strings.Builder, hits []Hit) {
	for _, h := range hits {
		fmt.Fprintf(b, "hit %s %s %s %.9g %q\n", h.Entry.Pos.Path(), h.Entry.ID, h.RankedBy, h.Rank, h.Snippet)
	}
}

func durationOf(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return fmt.Sprint(*ms)
}

// firstDiff shows where two renderings first differ, with a few lines
// around it: a whole dump of a many-tapes workspace is too long to read.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(0, i-3)
	window := func(lines []string) string {
		return strings.Join(lines[min(from, len(lines)):min(i+4, len(lines))], "\n")
	}
	return fmt.Sprintf("first difference at line %d of %d/%d:\nincremental:\n%s\nrebuild:\n%s", i+1, len(g), len(w), window(g), window(w))
}

// everything is what two indexes of the same files must agree on: their
// tables (dump, with the matches of words) and their answers through the
// read API (answers), with those of each tape in tapes (nil for every
// tape).
func everything(t *testing.T, p *Projector, words, tapes []string) string {
	t.Helper()
	return dump(t, p, words) + "answers:\n" + answers(t, p, tapes)
}

// rebuiltEverything is everything of a fresh index of the same files.
func rebuiltEverything(t *testing.T, ws *tapelog.Workspace, words, tapes []string) string {
	t.Helper()
	return rebuilt(t, ws, func(p *Projector) string { return everything(t, p, words, tapes) })
}
