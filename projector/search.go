package projector

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	tapelog "github.com/tape-dev/tape/log"
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
}

// Hit is one search result.
type Hit struct {
	Entry    tapelog.Entry
	Rank     float64 // bm25, lower is better; 0 when ranked by recency
	RankedBy string  // RankedByBM25 or RankedByRecency
	Snippet  string  // the matching text, matches in **bold**
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
// camelCase words, IdentifierParts) against the text's 1.0: a word that
// stands alone in an entry ranks it above an entry where it is part of a
// name, so "flush" finds "flush the buffer" before "TestFlush".
const partsWeight = "0.5"

// Search finds the entries whose text matches the query (see MatchExpr),
// best first.
func (p *Projector) Search(ctx context.Context, q SearchQuery) ([]Hit, error) {
	expr, ok := MatchExpr(q.Text)
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
	// query's phrases taken apart into their words (looseExpr): a phrase of
	// common words, such as "database transaction", has to be checked in
	// every entry that has both, and ranking its matches by bm25 checks them
	// all twice more (once to match, once to count them for the phrase's
	// weight): 140 ms at 1M entries for 195 matches among 95,000 entries
	// with both words. Such a phrase is ranked by recency, which finds its
	// newest matches without checking the rest.
	loose, ok := looseExpr(q.Text)
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
		// A common query on a small tape: walk the tape's entries, newest
		// first, and ask FTS5 about each, instead of walking the
		// workspace's matches to find the tape's.
		from = ` FROM entries e CROSS JOIN entries_fts ON entries_fts.rowid = e.rowid JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE ` + cond
		recent = `e.rowid DESC`
	case common && len(q.Tapes) != 1 && expr == loose:
		var err error
		if from, recent, err = p.acrossTapesByTime(ctx, loose, cond, limit); err != nil {
			return nil, err
		}
	}
	// bm25 needs the number of entries each term is in, and FTS5 counts
	// them by walking the term's whole doclist: tens of milliseconds for a
	// word in most of a million entries, whatever else limits the query.
	// A query with more matches than the window is common enough that the
	// newest matches are the answer; the others are ranked by bm25.
	order, rankExpr, rankedBy := `rank, e.tape, e.anchor_seq, e.eff_time, e.file, e.line`, `bm25(entries_fts, 1.0, `+partsWeight+`)`, RankedByBM25
	if common {
		order, rankExpr, rankedBy = recent, `0.0`, RankedByRecency
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
	entries, _, err := p.load(ctx, found)
	if err != nil {
		return nil, err
	}
	terms := queryTerms(q.Text)
	var hits []Hit
	for i, e := range entries {
		if e.Payload == nil { // the line changed since it was indexed
			continue
		}
		hits = append(hits, Hit{Entry: e, Rank: ranks[i], RankedBy: rankedBy, Snippet: Snippet(SearchText(e), terms, 80)})
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
// them by time instead. A dense query walks the entries by time
// (entries_time) and asks FTS5 about each; a sparser one sorts all its
// matches (see denseMatches), their rowids alone: sorting whole rows, each
// joined to its anchor, took three times as long (31-58 ms for 2,400 to
// 8,500 matches on the imported sessions). A phrase keeps the rowid order: taken
// apart, its words can match many times what it matches, and checking the
// phrase in each is what the rank window avoids (DefaultRankWindow).
func (p *Projector) acrossTapesByTime(ctx context.Context, loose, cond string, limit int) (from, order string, err error) {
	dense, err := p.matchesMoreThan(ctx, loose, cmp.Or(p.denseAt, denseMatches))
	if err != nil {
		return "", "", err
	}
	if dense {
		return ` FROM entries e INDEXED BY entries_time CROSS JOIN entries_fts ON entries_fts.rowid = e.rowid JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder WHERE ` + cond, byTime, nil
	}
	newest := `SELECT e.rowid AS id FROM entries_fts CROSS JOIN entries e ON e.rowid = entries_fts.rowid WHERE ` + cond +
		` ORDER BY ` + byTime + ` LIMIT ` + strconv.Itoa(limit)
	return ` FROM (` + newest + `) newest CROSS JOIN entries e ON e.rowid = newest.id JOIN anchors a ON a.tape = e.tape AND a.folder = e.folder`, byTime, nil
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

// SnippetTerms are the words of a query, lowercased, as Snippet marks
// them.
func SnippetTerms(query string) []string { return queryTerms(query) }

// queryTerms are the words of a query, lowercased, for snippets.
func queryTerms(query string) []string {
	var terms []string
	for _, t := range splitTerms(query) {
		for _, w := range strings.FieldsFunc(t.text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
			terms = append(terms, strings.ToLower(w))
		}
	}
	return terms
}

// Snippet cuts about width runes of text around the first term found in
// it, marks every term in the cut with **, and folds it onto one line.
// Terms match without regard to case.
//
// The cut is the one of the text with every run of white space made one
// space and none at either end (strings.Fields, joined), but only the
// runes around the cut are folded: a hit's text can be tens of kilobytes,
// and folding all of it was a sixth of a search's own work. Terms hold no
// white space, so a term matches the text where it matches the folded
// text.
func Snippet(text string, terms []string, width int) string {
	first := firstMatch(text, terms)
	start := skipSpace(text, 0)                     // where the folded text starts
	if first > start && foldedLonger(text, width) { // a short text is shown whole
		start = foldedBack(text, first, start, width/3) // some context before the match
	}
	end := foldedForward(text, start, width)
	var b strings.Builder
	if hasNonSpace(text[:start]) {
		b.WriteString("…")
	}
	cut := text[start:end]
	for i := 0; i < len(cut); {
		if n := matchAt(cut[i:], terms); n > 0 {
			b.WriteString("**" + cut[i:i+n] + "**")
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(cut[i:])
		if unicode.IsSpace(r) {
			b.WriteByte(' ')
			i = skipSpace(cut, i)
			continue
		}
		b.WriteString(cut[i : i+size])
		i += size
	}
	if hasNonSpace(text[end:]) {
		b.WriteString("…")
	}
	return b.String()
}

// SnippetSpan is a piece of a snippet: text as it is, or a match that
// Snippet marked.
type SnippetSpan struct {
	Text  string
	Match bool
}

// SnippetSpans reads a snippet's **marks**, for a front end that shows
// the matches its own way (in color, in <mark>). A mark is ** around
// letters and digits alone, as every query term is; any other ** is the
// text's own (Markdown's bold, say), and is kept as text.
func SnippetSpans(s string) []SnippetSpan {
	var out []SnippetSpan
	for {
		i, n := nextMark(s)
		if i < 0 {
			if s != "" {
				out = append(out, SnippetSpan{Text: s})
			}
			return out
		}
		if i > 0 {
			out = append(out, SnippetSpan{Text: s[:i]})
		}
		out = append(out, SnippetSpan{Text: s[i+2 : i+2+n], Match: true})
		s = s[i+2+n+2:]
	}
}

// nextMark finds the first match marked in s: where its opening ** is,
// and the length of the text between the marks; -1 when there is none.
func nextMark(s string) (at, n int) {
	for from := 0; ; {
		i := strings.Index(s[from:], "**")
		if i < 0 {
			return -1, 0
		}
		i += from
		word := s[i+2:]
		n := strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if n > 0 && strings.HasPrefix(word[n:], "**") {
			return i, n
		}
		from = i + 1
	}
}

// firstMatch returns where the first term found in text starts, or -1.
func firstMatch(text string, terms []string) int {
	for i := 0; i < len(text); {
		if matchAt(text[i:], terms) > 0 {
			return i
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return -1
}

// skipSpace returns the index of the first rune of s at or after i that
// is not white space, or len(s).
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// hasNonSpace reports whether s holds a rune that is not white space.
func hasNonSpace(s string) bool { return skipSpace(s, 0) < len(s) }

// foldedLonger reports whether text, folded, is longer than width runes.
func foldedLonger(text string, width int) bool {
	return hasNonSpace(text[foldedForward(text, skipSpace(text, 0), width):])
}

// foldedForward returns where n runes of the folded text that start at i
// end in text: a run of white space counts as one rune, and one that ends
// the text as none.
func foldedForward(text string, i, n int) int {
	for ; i < len(text) && n > 0; n-- {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			i += size
			continue
		}
		next := skipSpace(text, i)
		if next == len(text) {
			return i // white space that ends the text is not in the folded text
		}
		i = next
	}
	return i
}

// foldedBack returns where n runes of the folded text before i start in
// text, not before floor, where the folded text starts: a run of white
// space counts as one rune.
func foldedBack(text string, i, floor, n int) int {
	for ; i > floor && n > 0; n-- {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsSpace(r) {
			i -= size
			continue
		}
		for i > floor {
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if !unicode.IsSpace(r) {
				break
			}
			i -= size
		}
	}
	return i
}

// matchAt returns the length in bytes of the longest term that s starts
// with, ignoring case, or 0.
func matchAt(s string, terms []string) int {
	best := 0
	for _, t := range terms {
		if n := foldPrefix(s, t); n > best {
			best = n
		}
	}
	return best
}

// foldPrefix returns how many bytes of s match prefix, rune by rune without
// regard to case, or 0 if s does not start with it.
func foldPrefix(s, prefix string) int {
	i := 0
	for _, want := range prefix {
		if i >= len(s) {
			return 0
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != want && !strings.EqualFold(string(r), string(want)) {
			return 0
		}
		i += size
	}
	return i
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
