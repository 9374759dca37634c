package projector

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tape-dev/tape/internal/searchlang"
)

// How a hit matched its query (Hit.Match).
const (
	MatchAll  = "all"  // every term: what a search finds
	MatchSome = "some" // some of them: the relaxed pass
)

// relaxWindow is how many entries that match some of a query's terms the
// relaxed pass reads, best first by bm25, to order by how many terms each
// matches: enough for a page of a few screens.
const relaxWindow = 400

// relaxed is the relaxed pass of a search (SearchQuery.Relax): the
// entries that match some of q's terms and are not among the hits found,
// the most terms first, then by bm25 (for terms that together match more
// than the rank window, in the order FTS5 walks them, the last indexed
// first: "the zebra" took 4.5 s at 350,000 entries sorted by time); at
// most n. filter is the search's conditions but its MATCH.
func (p *Projector) relaxed(ctx context.Context, q SearchQuery, filter conds, exact []Hit, n int) ([]Hit, error) {
	anyExpr, terms, ok := searchlang.AnyExpr(q.Text)
	if !ok || n <= 0 {
		return nil, nil
	}
	common, err := p.matchesMoreThan(ctx, anyExpr, p.rankWindow())
	if err != nil {
		return nil, err
	}
	order, rankExpr, rankedBy := `rank, e.tape, e.anchor_seq, e.eff_time, e.file, e.line`, `bm25(entries_fts, 1.0, `+partsWeight+`)`, RankedByBM25
	if common { // bm25 would score, and byTime sort, every match: FTS5 walks them newest first by itself
		order, rankExpr, rankedBy = `entries_fts.rowid DESC`, `0.0`, RankedByRecency
	}
	where := append([]string{"entries_fts MATCH ?"}, filter.where...)
	args := append([]any{anyExpr}, filter.args...)
	rows, err := p.db.QueryContext(ctx, `SELECT `+entryColumns+`, e.rowid, `+rankExpr+` AS rank FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE `+
		strings.Join(where, " AND ")+` ORDER BY `+order+` LIMIT ?`, append(args, relaxWindow)...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	seen := map[string]bool{}
	for _, h := range exact {
		seen[h.Entry.Pos.Tape+"\x00"+h.Entry.ID] = true
	}
	type candidate struct {
		l     located
		rowid int64
		rank  float64
		terms int
	}
	var cands []candidate
	for rows.Next() {
		var c candidate
		l, err := scanLocated(rows, &c.rowid, &c.rank)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if c.l = l; !seen[l.e.Pos.Tape+"\x00"+l.e.ID] {
			cands = append(cands, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.rowid
	}
	counts, err := p.termsMatched(ctx, terms, ids)
	if err != nil {
		return nil, err
	}
	for i := range cands {
		cands[i].terms = counts[cands[i].rowid]
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.terms, a.terms) }) // the order read kept within a count
	cands = cands[:min(n, len(cands))]
	found, ranks := make([]located, len(cands)), make([]float64, len(cands))
	for i, c := range cands {
		found[i], ranks[i] = c.l, c.rank
	}
	return p.hitsOf(ctx, q.Text, found, ranks, rankedBy, MatchSome)
}

// termsMatched counts, for each of the rowids, how many of the terms its
// entry matches: one query a term, over the rowids.
func (p *Projector) termsMatched(ctx context.Context, terms []string, rowids []int64) (map[int64]int, error) {
	counts := map[int64]int{}
	if len(rowids) == 0 {
		return counts, nil
	}
	ids := make([]any, len(rowids))
	for i, id := range rowids {
		ids[i] = id
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	for _, term := range terms {
		rows, err := p.db.QueryContext(ctx, `SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? AND rowid IN (`+in+`)`, append([]any{term}, ids...)...)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			counts[id]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	return counts, nil
}
