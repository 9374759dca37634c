package projector

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// ErrEmptyQuery is returned by Search for a query with no word in it.
var ErrEmptyQuery = errors.New("projector: the query has no word to search for")

// SearchQuery is what Search looks for and where.
type SearchQuery struct {
	Text    string
	Tapes   []string // nil for every tape
	Folders []string // anchor folders, with Tapes of one tape; nil for all
	Kinds   []string
	Since   time.Time // zero for no bound
	Until   time.Time
	Limit   int
	// Newest orders the hits newest first, by the time --since and --until
	// compare (an entry's date, or a later one of its file's before it),
	// rather than best first (a query of more matches than the rank
	// window is ordered so anyway).
	Newest bool
	// Relax, when the terms together find fewer hits than Limit, adds
	// the entries that match some of them (Hit.Match MatchSome) after
	// those that match all, the most terms first (decision 0110).
	Relax bool
}

// Hit is one search result.
type Hit struct {
	Entry    tapelog.Entry
	Rank     float64 // bm25, lower is better; 0 when ranked by recency
	RankedBy string  // RankedByBM25 or RankedByRecency
	Snippet  string  // the matching text, matches in **bold**
	Match    string  // MatchAll, or MatchSome for a hit of the relaxed pass
}

// How the hits of a search are ordered.
const (
	RankedByBM25    = "bm25"    // best first
	RankedByRecency = "recency" // newest first: the query matched more than the rank window in the whole index (acrossTapesByTime)
)

// DefaultRankWindow is how many entries a query's words may match together
// (its phrases taken apart), in the whole index, for Search to rank its
// matches by bm25. Ranking means counting and scoring every match, and a
// word in half a million entries takes far too long; a query with more
// matches returns the newest first, which for agent sessions is the order
// people look in.
const DefaultRankWindow = 2000

// partsWeight is the weight bm25 gives the parts column (the parts of
// camelCase words, searchlang.IdentifierParts) against the text's 1.0: a word that
// stands alone in an entry ranks it above an entry where it is part of a
// name, so "flush" finds "flush the buffer" before "TestFlush".
const partsWeight = "0.5"

// Search finds the entries whose text matches the query (see searchlang.MatchExpr),
// best first.
func (p *Projector) Search(ctx context.Context, q SearchQuery) ([]Hit, error) {
	expr, ok := searchlang.MatchExpr(q.Text)
	if !ok {
		return nil, ErrEmptyQuery
	}
	c := conds{where: []string{"entries_fts MATCH ?"}, args: []any{expr}}
	c.in("e.tape", q.Tapes, q.Tapes != nil)
	c.in("e.folder", q.Folders, q.Folders != nil)
	c.in("e.kind", q.Kinds, len(q.Kinds) > 0)
	if !q.Since.IsZero() {
		c.where, c.args = append(c.where, "e.time_ns >= ?"), append(c.args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		c.where, c.args = append(c.where, "e.time_ns < ?"), append(c.args, q.Until.UnixNano())
	}
	where, args := c.where, c.args
	cond := strings.Join(where, " AND ")
	from := ` FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE ` + cond

	// Does the query match more entries than the window, in the whole
	// index? FTS5 walks its matches in rowid order without scoring them, and
	// stops at the window. (With the filters joined in, a query on a small
	// tape would walk every match of the workspace.) It asks with the
	// query's phrases taken apart into their words (searchlang.LooseExpr): a phrase of
	// common words, such as "database transaction", has to be checked in
	// every entry that has both, and ranking its matches by bm25 checks them
	// all twice more (once to match, once to count them for the phrase's
	// weight): 140 ms at 1M entries for 195 matches among 95,000 entries
	// with both words. Such a phrase is ranked by recency, which finds its
	// newest matches without checking the rest.
	loose, ok := searchlang.LooseExpr(q.Text)
	if !ok {
		loose = expr // no token of it stands alone
	}
	common, err := p.matchesMoreThan(ctx, loose, p.rankWindow())
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	recent := `entries_fts.rowid DESC` // FTS5 walks its matches newest first
	switch {
	case common && len(q.Tapes) == 1 && p.smallTape(ctx, q.Tapes[0]):
		// A common query on a small tape: the matches in the span of
		// rowids the tape's entries hold, which FTS5 finds with one seek,
		// instead of the workspace's. Walking the tape's entries and
		// asking FTS5 about each, as this plan did, cost a seek an entry:
		// 1.8 s for a word of other tapes on a tape of 4,800 entries
		// (BenchmarkSearchOneTapeWhereMatchesAre).
		lo, hi, err := p.tapeSpan(ctx, q.Tapes[0])
		if err != nil {
			return nil, err
		}
		from = ` FROM entries_fts CROSS JOIN entries e ON e.rowid = entries_fts.rowid JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE ` +
			cond + ` AND entries_fts.rowid BETWEEN ? AND ?`
		args = append(slices.Clip(args), lo, hi)
		recent = `e.rowid DESC`
	case common && len(q.Tapes) != 1 && expr == loose:
		var err error
		if from, recent, args, err = p.acrossTapesByTime(ctx, loose, cond, args, c.filter(), limit, q.Since); err != nil {
			return nil, err
		}
	}
	// bm25 needs the number of entries each term is in, and FTS5 counts
	// them by walking the term's whole doclist: tens of milliseconds for a
	// word in most of a million entries, whatever else limits the query.
	// A query with more matches than the window is common enough that the
	// newest matches are the answer; the others are ranked by bm25.
	order, rankExpr, rankedBy := `rank, e.tape, e.anchor_seq, e.eff_time, e.file, e.line`, `bm25(entries_fts, 1.0, `+partsWeight+`)`, RankedByBM25
	switch {
	case common:
		order, rankExpr, rankedBy = recent, `0.0`, RankedByRecency
	case q.Newest: // at most the rank window's matches to sort
		order, rankExpr, rankedBy = byTime, `0.0`, RankedByRecency
	}
	rows, err := p.db.QueryContext(ctx, `SELECT `+entryColumns+`, `+rankExpr+` AS rank`+from+` ORDER BY `+order+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var found []located
	var ranks []float64
	for rows.Next() {
		var rank float64
		l, err := scanLocated(rows, &rank)
		if err != nil {
			rows.Close()
			return nil, err
		}
		found, ranks = append(found, l), append(ranks, rank)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits, err := p.hitsOf(ctx, q.Text, found, ranks, rankedBy, MatchAll)
	if err != nil {
		return nil, err
	}
	if q.Relax && len(hits) < limit {
		more, err := p.relaxed(ctx, q, c.filter(), hits, limit-len(hits))
		if err != nil {
			return nil, err
		}
		hits = append(hits, more...)
	}
	return hits, nil
}

// hitsOf reads the entries found, ranked so, and makes them hits of
// query with their snippets; an entry whose line changed since it was
// indexed is left out.
func (p *Projector) hitsOf(ctx context.Context, query string, found []located, ranks []float64, rankedBy, match string) ([]Hit, error) {
	entries, _, err := p.load(ctx, found)
	if err != nil {
		return nil, err
	}
	terms := searchlang.SnippetTerms(query)
	var hits []Hit
	for i, e := range entries {
		if e.Payload == nil {
			continue
		}
		hits = append(hits, Hit{Entry: e, Rank: ranks[i], RankedBy: rankedBy, Match: match, Snippet: searchlang.Snippet(views.SearchText(e), terms, 80)})
	}
	return hits, nil
}

// denseMatches is how many matches, in the whole index, make a common
// query dense enough for acrossTapesByTime to walk the entries by time and
// ask FTS5 about each: it finds its 20 newest matches in about 20 x
// entries / matches probes, where sorting costs a read of every match's
// row. Whole `tape search --all-tapes` processes on 1,748 imported
// sessions (160k entries), mean of five, both plans giving the same hits:
// words of 2,400 / 4,800 / 8,500 / 12,000 matches sorted in 25 / 36 / 46 /
// 16 ms and walked in 39 / 51 / 34 / 15 ms; the words of most matches
// walk in 10-16 ms. (The rowid order they replace took about 5 ms, and
// listed an arbitrary session's matches first.)
const denseMatches = 6000

// byTime is the order of a search's hits across tapes by recency: newest
// first, by the time of the entry, then the tape order for entries of the
// same time (an order of the data, not of rowids, so that an incremental
// index and a rebuild give the same answer); entries without a date last.
const byTime = `e.time_ns DESC, e.tape DESC, e.anchor_seq DESC, e.folder DESC, e.eff_time DESC, e.file DESC, e.line DESC`

// acrossTapesByTime (decision 0065) plans a common query of words (not phrases) over more
// than one tape: its matches in rowid order are the order the index read
// them, which after a rebuild is tape by tape in name order, so it orders
// them by time instead. A dense query visits the recency blocks newest
// first (newestInBlocks, decision 0077); a sparser one sorts all its
// matches (see denseMatches), their rowids alone: sorting whole rows, each
// joined to its anchor, took three times as long (31-58 ms for 2,400 to
// 8,500 matches on the imported sessions). A phrase keeps the rowid order: taken
// apart, its words can match many times what it matches, and checking the
// phrase in each is what the rank window avoids (DefaultRankWindow).
// It returns the plan's FROM clause, its order and the arguments of the
// query it makes.
func (p *Projector) acrossTapesByTime(ctx context.Context, loose, cond string, args []any, filter conds, limit int, since time.Time) (from, order string, _ []any, err error) {
	dense, err := p.matchesMoreThan(ctx, loose, cmp.Or(p.denseAt, denseMatches))
	if err != nil {
		return "", "", nil, err
	}
	if dense {
		from, args, err := p.newestInBlocks(ctx, loose, filter, limit, since)
		return from, byTime, args, err
	}
	newest := `SELECT e.rowid AS id FROM entries_fts CROSS JOIN entries e ON e.rowid = entries_fts.rowid WHERE ` + cond +
		` ORDER BY ` + byTime + ` LIMIT ` + strconv.Itoa(limit)
	return ` FROM (` + newest + `) newest CROSS JOIN entries e ON e.rowid = newest.id JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder`, byTime, args, nil
}

// matchesMoreThan reports whether expr matches more than n entries in the
// whole index: FTS5 walks its doclist in rowid order without scoring, and
// stops at the (n+1)th match.
func (p *Projector) matchesMoreThan(ctx context.Context, expr string, n int) (bool, error) {
	var rowid int64
	err := p.db.QueryRowContext(ctx, `SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`, expr, n).Scan(&rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	return true, nil
}

func (p *Projector) rankWindow() int {
	if p.RankWindow > 0 {
		return p.RankWindow
	}
	return DefaultRankWindow
}

// smallTapeLines is the size, in lines, under which a tape counts as small
// for Search's plan.
const smallTapeLines = 20000

// smallTape reports whether a tape has few lines, from its checkpoints.
func (p *Projector) smallTape(ctx context.Context, tape string) bool {
	var lines int64
	err := p.db.QueryRowContext(ctx, `SELECT coalesce(sum(line), 0) FROM files WHERE tape = ?`, tape).Scan(&lines)
	return err == nil && lines < smallTapeLines
}

// filter is a search's conditions but the first (entries_fts MATCH): those
// on the entries alone.
func (c conds) filter() conds { return conds{where: c.where[1:], args: c.args[1:]} }

// tapeSpan is the least and greatest rowid of a tape's entries (1 and 0
// for a tape of none).
func (p *Projector) tapeSpan(ctx context.Context, tape string) (lo, hi int64, err error) {
	err = p.db.QueryRowContext(ctx, `SELECT coalesce(min(rowid), 1), coalesce(max(rowid), 0) FROM entries WHERE tape = ?`, tape).Scan(&lo, &hi)
	if err != nil {
		return 0, 0, fmt.Errorf("search: %w", err)
	}
	return lo, hi, nil
}
