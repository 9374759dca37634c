package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// What --remote reads: the server's rows of every workspace, or of the
// workspaces named (by name or id), as the local commands read theirs.

// ErrEmptyQuery is returned by Search for a query with no word in it.
var ErrEmptyQuery = projector.ErrEmptyQuery

// SearchQuery is what Search looks for and where.
type SearchQuery struct {
	Text       string
	Workspaces []string // names or ids; nil for every workspace
	Tapes      []string // nil for every tape
	Kinds      []string
	Since      time.Time // zero for no bound
	Until      time.Time
	Limit      int
}

// Hit is one search result: what the local search finds of an entry
// (its Rank is ts_rank's, higher is better; RankedBy is RankedByRank or
// projector.RankedByRecency), and the workspace it is of.
type Hit struct {
	Workspace string // its name
	projector.Hit
}

// RankedByRank says a search's hits are ordered by ts_rank, best first.
const RankedByRank = "ts_rank"

// rankWindow is how many matches a query may have for Search to rank
// them all: as in the local index (projector.DefaultRankWindow), a
// query with more is common enough that its newest matches are the
// answer, which the time index finds without scoring every match.
const rankWindow = projector.DefaultRankWindow

// ErrNoSchema is returned by the reads of a database that no tape has
// synced to.
var ErrNoSchema = errors.New("remote: the database has no tape tables yet; run 'tape sync' to it first")

// ready checks that the database has tape's tables, which a sync makes,
// so that a read of an empty database says so rather than that a
// relation does not exist.
func ready(ctx context.Context, conn *pgx.Conn) error {
	v, err := schemaVersion(ctx, conn)
	if err != nil {
		return err
	}
	if v == 0 {
		return ErrNoSchema
	}
	return nil
}

// where builds a query's conditions and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// workspaces narrows to the workspaces named, by name or id (alias the
// table's workspace_id column).
func (w *where) workspaces(col string, names []string) {
	if names != nil {
		w.add(col+` IN (SELECT id FROM tape.workspaces WHERE name = ANY(?) OR id = ANY(?))`, names, names)
	}
}

// Search finds the entries whose text matches the query (the local
// query language: searchlang.QueryTerms), in every workspace or those
// named: ranked by ts_rank, best first, or, for a common query, the
// newest first.
//
// A query is common when its words, its phrases taken apart
// (looseTSQuery), match more than rankWindow entries together: GIN
// counts those from the index alone, where a phrase is checked in each
// entry's vector, which a phrase of common words cost 1.3 s to count at
// 1M entries (tape-bench pg). A common query walks the entries newest
// first and checks each (entries_recent), never planned through GIN: a
// common phrase found its 20 newest matches in 0.44 s that way, against
// 1.6 s sorting all of them.
func Search(ctx context.Context, conn *pgx.Conn, q SearchQuery) ([]Hit, error) {
	tsq, ok := tsQuery(q.Text)
	if !ok {
		return nil, ErrEmptyQuery
	}
	loose, _ := looseTSQuery(q.Text)
	if err := ready(ctx, conn); err != nil {
		return nil, err
	}
	var w where
	w.add(`?::tsquery IS NOT NULL AND ?::tsquery IS NOT NULL`, tsq, loose) // $1 the query, $2 its words: the match is added below, by plan
	w.workspaces("e.workspace_id", q.Workspaces)
	if q.Tapes != nil {
		w.add(`e.tape = ANY(?)`, q.Tapes)
	}
	if len(q.Kinds) > 0 {
		w.add(`e.kind = ANY(?)`, q.Kinds)
	}
	if !q.Since.IsZero() {
		w.add(`e.time >= ?`, q.Since)
	}
	if !q.Until.IsZero() {
		w.add(`e.time < ?`, q.Until)
	}
	common, err := isCommon(ctx, conn, w)
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(q.Limit, 20)
	// The newest first, entries without a date last, as the local index
	// orders them (projector's byTime); the index entries_recent read
	// backward, so that a common word's newest matches are found without
	// sorting them all (40 ms against 0.2 ms for "the" in 17,821 entries).
	const byTime = `e.time DESC NULLS LAST, e.workspace_id DESC, e.tape DESC, e.anchor_seq DESC, e.folder DESC, e.eff_time DESC, e.file DESC, e.line DESC`
	rank, order, rankedBy := `ts_rank(`+rankWeights+`, e.search, `+"$1"+`::tsquery)`, `rank DESC, `+byTime, RankedByRank
	match := ` AND e.search @@ $1::tsquery`
	if common {
		rank, order, rankedBy = `0::real`, byTime, projector.RankedByRecency
		match = ` AND (e.search @@ $1::tsquery) IS TRUE` // not a GIN clause: the plan walks entries_recent
	}
	rows, err := conn.Query(ctx, `SELECT ws.name, e.tape, e.folder, e.file, e.line, e.id, e.kind, e.anchor_seq, e.raw, a.name, a.state::text, `+rank+` AS rank
		FROM tape.entries e JOIN tape.workspaces ws ON ws.id = e.workspace_id
		LEFT JOIN tape.anchors a ON a.workspace_id = e.workspace_id AND a.tape = e.tape AND a.folder = e.folder`+
		w.String()+match+` ORDER BY `+order+` LIMIT `+strconv.Itoa(limit), w.args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	terms := searchlang.SnippetTerms(q.Text)
	hits, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Hit, error) {
		var h Hit
		var l storedLine
		var rank float32
		if err := r.Scan(&h.Workspace, &l.tape, &l.folder, &l.file, &l.line, &l.id, &l.kind, &l.seq, &l.raw, &l.anchor, &l.state, &rank); err != nil {
			return h, err
		}
		h.Entry, h.Rank, h.RankedBy = l.entry(), float64(rank), rankedBy
		h.Snippet = searchlang.Snippet(views.SearchText(h.Entry), terms, 80)
		return h, nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// commonEstimate is the planner's estimate of a query's matches over
// which isCommon takes it as common without counting them: far over the
// rank window, where the estimate comes from the lexemes' measured
// frequencies (ANALYZE's most common elements), and over the default it
// gives a word it knows nothing of (0.5% of the rows: 5,111 at 1M).
const commonEstimate = 20000

// isCommon reports whether the query's words (looseTSQuery, $2 of w)
// match more than rankWindow entries where w selects. GIN counts them
// from the index alone, but builds the bitmap of every match first: a
// word in a fifth of 1M entries took 40-90 ms to count past 2,000. A
// query the planner expects to match more than commonEstimate entries is
// common without a count (a plan costs 0.3 ms); a wrong guess only
// orders its hits by time instead of rank.
func isCommon(ctx context.Context, conn *pgx.Conn, w where) (bool, error) {
	words := w.String() + ` AND e.search @@ $2::tsquery`
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if err := conn.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT 1 FROM tape.entries e`+words, w.args...).Scan(&plan); err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	if len(plan) > 0 && plan[0].Plan.Rows > commonEstimate {
		return true, nil
	}
	var matches int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM tape.entries e`+words+` LIMIT `+strconv.Itoa(rankWindow+1)+`) m`, w.args...).Scan(&matches); err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	return matches > rankWindow, nil
}

// storedLine is an entry as the server holds it.
type storedLine struct {
	tape, folder, file, id, kind string
	line                         int
	seq                          int64
	raw                          []byte
	anchor, state                *string
}

// entry reads the stored line back as the entry it was read as.
func (l storedLine) entry() tapelog.Entry {
	a := tapelog.Anchor{Seq: l.seq, Folder: l.folder, Name: l.folder}
	if l.anchor != nil {
		a.Name = *l.anchor
	}
	pos := tapelog.Position{Tape: l.tape, AnchorSeq: l.seq, Anchor: a.Name, Folder: l.folder, File: l.file, Line: l.line}
	if l.raw != nil {
		if e, err := tapelog.EntryAt(a, l.file, l.line, trimLineEnd(l.raw)); err == nil {
			e.Pos.Tape, e.ID = l.tape, l.id
			return e
		}
	}
	// An anchor folder without a readable anchor.json: the entry its
	// folder stands for, as the local reader makes it.
	state := "{}"
	if l.state != nil {
		state = *l.state
	}
	payload := rawjson.AppendString([]byte(`{"name":`), a.Name)
	payload = append(append(append(payload, `,"state":`...), state...), '}')
	return tapelog.Entry{ID: l.id, Kind: l.kind, Payload: payload, Pos: pos}
}

func trimLineEnd(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Tape is a session on the server: the local sessions row, and the
// workspace it is of.
type Tape struct {
	Workspace string
	sessions.Session
}

// TapesFilter selects tapes.
type TapesFilter struct {
	Workspaces []string  // names or ids; nil for every workspace
	Since      time.Time // last written at or after it; zero for all
	Limit      int       // 0 for all
	Offset     int
}

// Tapes lists the tapes of every workspace (or those named), the most
// recently written first, and how many there are in all.
func Tapes(ctx context.Context, conn *pgx.Conn, f TapesFilter) ([]Tape, int, error) {
	if err := ready(ctx, conn); err != nil {
		return nil, 0, err
	}
	var w where
	w.workspaces("t.workspace_id", f.Workspaces)
	if !f.Since.IsZero() {
		w.add(`t.last >= ?`, f.Since)
	}
	var total int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM tape.tapes t`+w.String(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("list tapes: %w", err)
	}
	page := ``
	if f.Limit > 0 {
		page = ` LIMIT ` + strconv.Itoa(f.Limit)
	}
	if f.Offset > 0 {
		page += ` OFFSET ` + strconv.Itoa(f.Offset)
	}
	rows, err := conn.Query(ctx, `SELECT ws.name, t.tape, t.title, t.cwd, t.branch, t.model, t.first, t.last, t.entries, t.anchors, t.source, t.session_id, t.parent
		FROM tape.tapes t JOIN tape.workspaces ws ON ws.id = t.workspace_id`+w.String()+`
		ORDER BY t.last DESC NULLS LAST, ws.name, t.workspace_id, t.tape`+page, w.args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list tapes: %w", err)
	}
	tapes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Tape, error) {
		var t Tape
		var first, last *time.Time
		err := r.Scan(&t.Workspace, &t.Name, &t.Title, &t.CWD, &t.Branch, &t.Model, &first, &last, &t.Entries, &t.Anchors, &t.Source, &t.SessionID, &t.Parent)
		if first != nil {
			t.First = first.UTC()
		}
		if last != nil {
			t.Last = last.UTC()
		}
		return t, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list tapes: %w", err)
	}
	return tapes, total, nil
}

// UsageRow is the token usage of one group of run events: usage.Row,
// and the workspace for a grouping by workspace or tape (two workspaces
// may share a name: their ids tell them apart).
type UsageRow struct {
	Workspace, WorkspaceID string
	usage.Row
}

// UsageBy are the groupings Usage sums by.
var UsageBy = []string{"workspace", "model", "day", "tape"}

// usageGroups are the columns each grouping selects, groups and orders by:
// workspace name and id, tape, model, day.
var usageGroups = map[string]string{
	"workspace": `ws.name, ws.id, '', '', ''`,
	"tape":      `ws.name, ws.id, r.tape, '', ''`,
	"model":     `'', '', '', r.model, ''`,
	"day":       `'', '', '', '', coalesce(to_char(r.time AT TIME ZONE 'UTC', 'YYYY-MM-DD'), '')`,
}

// Usage sums the token usage of the run events of every workspace (or
// those named) by workspace, model, day or tape, and prices each group's
// runs by model with prices (nil for tokens alone), as the local index
// does; it names the models prices has no price for. Of the runs of one
// workspace that share a usage id, one counts, the one with the most
// tokens: the local rule (views/usage), which counts within one index,
// kept in runs.counted by the sync (countRuns).
func Usage(ctx context.Context, conn *pgx.Conn, by string, workspaces []string, prices *pricing.Table) ([]UsageRow, []string, error) {
	cols, ok := usageGroups[by]
	if !ok {
		return nil, nil, fmt.Errorf("usage by %q: want %s", by, strings.Join(UsageBy, ", "))
	}
	if err := ready(ctx, conn); err != nil {
		return nil, nil, err
	}
	var w where
	w.workspaces("r.workspace_id", workspaces)
	w.add(`r.counted`)
	// Each group's runs by model, with the tokens of each kind above each
	// of pricing's thresholds, so that a group is priced as the local
	// index prices it (views/usage).
	over := ""
	for _, th := range []int{pricing.Threshold200k, pricing.Threshold272k} {
		for _, c := range []string{"input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens"} {
			over += fmt.Sprintf(", %s", saturated(fmt.Sprintf("greatest(r.%s - %d, 0)", c, th)))
		}
	}
	rows, err := conn.Query(ctx, `SELECT `+cols+`, r.model, count(*), count(*) FILTER (WHERE r.has_usage), count(*) FILTER (WHERE r.bad_usage),
			`+saturated("r.input_tokens")+`, `+saturated("r.output_tokens")+`, `+saturated("r.total_tokens")+`,
			`+saturated("r.cache_creation_tokens")+`, `+saturated("r.cache_read_tokens")+over+`
		FROM tape.runs r JOIN tape.workspaces ws ON ws.id = r.workspace_id`+w.String()+`
		GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`, w.args...)
	if err != nil {
		return nil, nil, fmt.Errorf("query usage: %w", err)
	}
	type part struct {
		UsageRow
		model string
		sums  pricing.Sums
	}
	parts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (part, error) {
		var p part
		s := &p.sums
		err := r.Scan(&p.Workspace, &p.WorkspaceID, &p.Tape, &p.Model, &p.Day, &p.model, &p.Runs, &p.WithUsage, &p.BadUsage, &p.Input, &p.Output, &p.Total,
			&p.CacheCreation, &p.CacheRead,
			&s.Over[0].Input, &s.Over[0].Output, &s.Over[0].CacheWrite, &s.Over[0].CacheRead,
			&s.Over[1].Input, &s.Over[1].Output, &s.Over[1].CacheWrite, &s.Over[1].CacheRead)
		s.Input, s.Output, s.CacheWrite, s.CacheRead = p.Input, p.Output, p.CacheCreation, p.CacheRead
		return p, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("query usage: %w", err)
	}
	var out []UsageRow
	pr := pricing.NewPricer(prices)
	for _, p := range parts {
		p.Price(pr, p.model, p.sums)
		if n := len(out); n > 0 && out[n-1].WorkspaceID == p.WorkspaceID && out[n-1].Tape == p.Tape && out[n-1].Model == p.Model && out[n-1].Day == p.Day {
			out[n-1].Add(p.Row)
			continue
		}
		out = append(out, p.UsageRow)
	}
	return out, pr.Unpriced(), nil
}

// saturated is the SQL of a sum of a column of token counts as a bigint:
// PostgreSQL sums bigints as numeric, which never overflows, and a sum
// past the largest bigint is read as it (the smallest, for rows changed
// by hand), as the local index reads one (views/usage).
func saturated(col string) string {
	return `greatest(least(sum(` + col + `), 9223372036854775807), -9223372036854775808)::bigint`
}

// ErrNoWorkspace is returned when no workspace on the server has the
// name or id asked for.
var ErrNoWorkspace = errors.New("remote: no such workspace on the server")

// Workspace is a workspace the server has rows of.
type Workspace struct {
	ID, Name, Host, Path string
	SyncedAt             time.Time // zero before its first sync ended
	Tapes                int       // its tapes (sessions) on the server
}

// Workspaces lists the workspaces on the server whose name or id is one
// of names (every one for nil), by name.
func Workspaces(ctx context.Context, conn *pgx.Conn, names []string) ([]Workspace, error) {
	if err := ready(ctx, conn); err != nil {
		return nil, err
	}
	var w where
	if names != nil {
		w.add(`(name = ANY(?) OR id = ANY(?))`, names, names)
	}
	rows, err := conn.Query(ctx, `SELECT id, name, host, path, synced_at, (SELECT count(*) FROM tape.tapes t WHERE t.workspace_id = w.id)
		FROM tape.workspaces w`+w.String()+` ORDER BY name, id`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return collectWorkspaces(rows)
}

// collectWorkspaces reads rows of id, name, host, path, synced_at and
// the count of tapes.
func collectWorkspaces(rows pgx.Rows) ([]Workspace, error) {
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Workspace, error) {
		var ws Workspace
		var at *time.Time
		err := r.Scan(&ws.ID, &ws.Name, &ws.Host, &ws.Path, &at, &ws.Tapes)
		if at != nil {
			ws.SyncedAt = at.UTC()
		}
		return ws, err
	})
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return all, nil
}
