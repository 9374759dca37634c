// Package usage owns the usage view: the run events of every tape and the
// token usage they report, one runs row per event, kept with its entry;
// the rule by which runs that share a usage id count once; the totals by
// day and by model that its triggers keep, so that a sum reads a few rows;
// and the queries that sum usage (tape usage) and find a tape's latest run
// (tape info). What a run event says is read by one function, views.Extract
// (views.ParseRun for one payload), so the two commands agree.
package usage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tape-dev/tape/internal/stmts"
	"github.com/tape-dev/tape/views"
)

// Table is the usage view: the runs table.
type Table struct{}

// Name implements views.Table.
func (Table) Name() string { return "usage" }

// Tables implements views.Table.
func (Table) Tables() []string {
	return []string{"runs", "usage_totals", "usage_settled", "usage_blocks"}
}

// Schema implements views.Table.
func (Table) Schema() string { return schema + totalsSchema() + settledSchema() + blocksSchema }

const schema = `
-- Run events and their token usage: one row per event, with its entry.
CREATE TABLE runs (
	entry         INTEGER PRIMARY KEY, -- entries.rowid
	tape          TEXT NOT NULL,
	anchor_seq    INTEGER NOT NULL,
	folder        TEXT NOT NULL,
	time_ns       INTEGER,
	status        TEXT NOT NULL,
	model         TEXT NOT NULL,
	has_usage     INTEGER NOT NULL,
	input_tokens  INTEGER NOT NULL,
	output_tokens INTEGER NOT NULL,
	cache_creation_tokens INTEGER NOT NULL,
	cache_read_tokens     INTEGER NOT NULL,
	total_tokens  INTEGER NOT NULL,
	usage_id      TEXT,    -- runs that share one count once (views.Run.UsageID); NULL for none
	counted       INTEGER NOT NULL DEFAULT 1, -- 0 for a run whose usage_id another run counts (refreshCounted)
	bad_usage     INTEGER NOT NULL DEFAULT 0, -- the event gave a count that is not one (views.Run.BadUsage)
	copy          INTEGER NOT NULL DEFAULT 0  -- the usage repeats one recorded elsewhere (views.Run.Copy): counted last
);
CREATE INDEX runs_tape ON runs (tape, anchor_seq, folder);
CREATE INDEX runs_usage ON runs (usage_id) WHERE usage_id IS NOT NULL;
-- The counted runs in time order: what a usage sum between two times, and
-- the edges of 5-hour blocks (blocks.go), read of the runs.
CREATE INDEX runs_time ON runs (time_ns) WHERE counted AND time_ns IS NOT NULL;
`

// The usage of every tape is kept as totals by day and hour (UTC) and by
// tape, each split by model, so that `tape usage --by day` reads a few
// hundred rows instead of summing every counted run: 82 ms at 35,000 runs
// (1,747 imported sessions), most of it strftime on each run. The split by
// model is what a cost is priced from (pricing.Sums); sums by model are
// the day rows summed; the hour rows are the days, weeks and months of
// another time zone and the 5-hour blocks (period.go, blocks.go); the tape
// rows price `tape tapes --json` and are the projects, agents and sessions
// (attrs.go). Each grouping costs every run written an upsert: one is added
// with its first reader.
// Triggers
// on runs keep them, so every way a run comes, goes or stops counting
// (Added, Removing, refreshCounted) moves the totals in the same
// statement; a group whose last run goes is deleted, so the totals are
// what a GROUP BY over the counted runs gives
// (TestTotalsAreTheSumOfTheRuns). Grouped by anchor, or for one tape,
// usage is still summed from the runs: those are a tape's rows.
//
// A run's counts are at most views.MaxRunTokens, but enough runs can sum
// past an int64: a total that would overflow becomes a REAL in SQLite's
// arithmetic (it never fails), and the queries read every sum through
// saturated (query.go), so a workspace's usage is never an error.

// totalsGroupings maps each kept grouping to the key it groups a run by,
// with R standing for the run (NEW or OLD in a trigger).
var totalsGroupings = map[string]string{
	"day":  `coalesce(strftime('%Y-%m-%d', R.time_ns / 1000000000, 'unixepoch'), '')`,
	"hour": `coalesce(strftime('%Y-%m-%dT%H', R.time_ns / 1000000000, 'unixepoch'), '')`,
	"tape": `R.tape`,
}

// tokenColumns are the summed columns of a totals row and of a sum of
// runs, each with its expression over a run R: the counts, then the
// counts above each of pricing's thresholds (pricing.Sums).
var tokenColumns = [...][2]string{
	{"input_tokens", "R.input_tokens"}, {"output_tokens", "R.output_tokens"}, {"total_tokens", "R.total_tokens"},
	{"cache_creation_tokens", "R.cache_creation_tokens"}, {"cache_read_tokens", "R.cache_read_tokens"},
	{"input_over_200k", "max(R.input_tokens - 200000, 0)"}, {"output_over_200k", "max(R.output_tokens - 200000, 0)"},
	{"cache_creation_over_200k", "max(R.cache_creation_tokens - 200000, 0)"}, {"cache_read_over_200k", "max(R.cache_read_tokens - 200000, 0)"},
	{"input_over_272k", "max(R.input_tokens - 272000, 0)"}, {"output_over_272k", "max(R.output_tokens - 272000, 0)"},
	{"cache_creation_over_272k", "max(R.cache_creation_tokens - 272000, 0)"}, {"cache_read_over_272k", "max(R.cache_read_tokens - 272000, 0)"},
}

// totalsSchema is the totals table and the triggers that keep it. A run's
// row changes only in counted (refreshCounted), so an update adds or takes
// away the run as it stands, once: every open of the index parses the
// triggers' SQL.
func totalsSchema() string {
	var cols strings.Builder
	for _, c := range tokenColumns {
		cols.WriteString("\t" + c[0] + " INTEGER NOT NULL,\n")
	}
	return `
CREATE TABLE usage_totals (
	grouping      TEXT NOT NULL, -- day, hour, tape, project, source, session
	key           TEXT NOT NULL,
	model         TEXT NOT NULL,
	runs          INTEGER NOT NULL,
	with_usage    INTEGER NOT NULL,
	bad_usage     INTEGER NOT NULL,
` + cols.String() + `	PRIMARY KEY (grouping, key, model)
) WITHOUT ROWID;
CREATE TRIGGER runs_totals_insert AFTER INSERT ON runs WHEN NEW.counted BEGIN
` + addToTotals("NEW", "1") + `END;
CREATE TRIGGER runs_totals_delete AFTER DELETE ON runs WHEN OLD.counted BEGIN
` + addToTotals("OLD", "-1") + dropEmptyTotals("OLD") + `END;
CREATE TRIGGER runs_totals_update AFTER UPDATE OF counted ON runs WHEN OLD.counted <> NEW.counted BEGIN
` + addToTotals("NEW", "(NEW.counted - OLD.counted)") + dropEmptyTotals("NEW") + `END;
`
}

// dropEmptyTotals is the trigger statements that delete the totals rows of
// run r that no run is left in, each by its key: a scan of the table for
// runs = 0 on every update was quadratic once the totals held a row per
// tape (a rebuild of 10,002 tapes took 60% longer).
func dropEmptyTotals(r string) string {
	var b strings.Builder
	for _, g := range slices.Sorted(maps.Keys(totalsGroupings)) {
		key := strings.ReplaceAll(totalsGroupings[g], "R.", r+".")
		fmt.Fprintf(&b, "\tDELETE FROM usage_totals WHERE grouping = '%s' AND key = %s AND model = %s.model AND runs = 0;\n", g, key, r)
	}
	return b.String()
}

// addToTotals is the trigger statements that add run r, times sign, to
// the totals of each grouping.
func addToTotals(r, sign string) string {
	var values, updates strings.Builder
	for _, c := range tokenColumns {
		fmt.Fprintf(&values, ", %s * (%s)", sign, strings.ReplaceAll(c[1], "R.", r+"."))
		fmt.Fprintf(&updates, ", %[1]s = %[1]s + excluded.%[1]s", c[0])
	}
	var b strings.Builder
	for _, g := range slices.Sorted(maps.Keys(totalsGroupings)) {
		key := strings.ReplaceAll(totalsGroupings[g], "R.", r+".")
		fmt.Fprintf(&b, `	INSERT INTO usage_totals SELECT '%s', %s, %s.model, %s, %[4]s * %[3]s.has_usage, %[4]s * %[3]s.bad_usage%[5]s
		WHERE %[4]s <> 0
		ON CONFLICT (grouping, key, model) DO UPDATE SET runs = runs + excluded.runs, with_usage = with_usage + excluded.with_usage,
			bad_usage = bad_usage + excluded.bad_usage%[6]s;
`, g, key, r, sign, values.String(), updates.String())
	}
	return b.String()
}

var statements = map[string]string{
	"insertRun": `INSERT INTO runs (entry, tape, anchor_seq, folder, time_ns, status, model, has_usage, input_tokens, output_tokens,
		cache_creation_tokens, cache_read_tokens, total_tokens, usage_id, bad_usage, copy)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
}

// Begin implements views.Table.
func (Table) Begin(tx views.Tx) views.Pass {
	return &pass{tx: tx, stmts: stmts.New(tx, statements), usageIDs: map[string]bool{}, tapes: map[string]bool{}}
}

// pass keeps the runs rows through one pass: they are written and deleted
// with their entries.
type pass struct {
	tx       views.Tx
	stmts    *stmts.Cache
	usageIDs map[string]bool // usage ids of the runs the pass added or removed (refreshCounted)
	tapes    map[string]bool // tapes whose runs the pass added, removed or recounted (settleAttrs)
	earliest *int64          // the earliest time of a run the pass added, removed or recounted (settleBlocks)
}

// Added writes the runs row of a run event, and notes the tape of every
// entry: its sessions row may name other groups (settleAttrs).
func (p *pass) Added(ctx context.Context, e views.Added) error {
	p.tapes[e.Tape] = true
	run := e.Facts.Run
	if run == nil {
		return nil
	}
	var usageID any
	if run.UsageID != "" {
		usageID = run.UsageID
		p.usageIDs[run.UsageID] = true
	}
	p.tapes[e.Tape] = true
	p.touchTime(e.TimeNS)
	_, err := p.stmts.Exec(ctx, "insertRun", e.Rowid, e.Tape, e.Place.Seq, e.Place.Folder, e.TimeNS, run.Status, run.Model,
		run.Usage, run.In, run.Out, run.CacheCreation, run.CacheRead, run.Total, usageID, run.BadUsage, run.Copy)
	if err != nil {
		return fmt.Errorf("index run event %s: %w", e.ID, err)
	}
	return nil
}

// Removing deletes the runs rows of the entries, and notes their usage ids
// and tapes.
func (p *pass) Removing(ctx context.Context, where string, args ...any) error {
	if err := p.touch(ctx, `SELECT usage_id, tape, time_ns FROM runs WHERE entry IN (SELECT rowid FROM entries WHERE `+where+`)`, args...); err != nil {
		return err
	}
	if err := p.touch(ctx, `SELECT DISTINCT NULL, tape, NULL FROM entries WHERE `+where, args...); err != nil {
		return err
	}
	_, err := p.tx.ExecContext(ctx, `DELETE FROM runs WHERE entry IN (SELECT rowid FROM entries WHERE `+where+`)`, args...)
	return err
}

// Changed needs nothing: a runs row depends on its entry alone.
func (p *pass) Changed(string, views.Place) {}

// DropTape notes the tape: its entries were removed (Removing), and its
// sessions row goes.
func (p *pass) DropTape(_ context.Context, tape string) error {
	p.tapes[tape] = true
	return nil
}

// Backlog is 0: settling costs the same whenever it runs.
func (p *pass) Backlog() int { return 0 }

// Settle marks which run counts for each usage id the pass touched, and
// moves the totals by project, source and session of each tape it touched.
func (p *pass) Settle(ctx context.Context) error {
	if err := p.refreshCounted(ctx); err != nil {
		return fmt.Errorf("count the runs of a usage id: %w", err)
	}
	if err := settleAttrs(ctx, p.tx, p.tapes); err != nil {
		return fmt.Errorf("sum usage by project, source and session: %w", err)
	}
	clear(p.tapes)
	if p.earliest != nil {
		if err := settleBlocks(ctx, p.tx, *p.earliest); err != nil {
			return fmt.Errorf("find the 5-hour blocks of usage: %w", err)
		}
		p.earliest = nil
	}
	return nil
}

// Of the runs that share a usage id (a request an agent reported more than
// once, on any tape), usage counts one: the one with the largest total,
// then the earliest, then the first in tape order of the first tape. The
// runs row keeps whether it is that one (counted), so that a usage sum
// reads the rows it counts instead of ranking every run of the workspace
// (100 ms at 35,000 runs). A pass marks again the runs of each usage id it
// added or removed a run of.

// touchTime notes the time of a run the pass changes (nil for none).
func (p *pass) touchTime(ns *int64) {
	if ns != nil && (p.earliest == nil || *ns < *p.earliest) {
		t := *ns
		p.earliest = &t
	}
}

// touch notes the usage ids (NULL for none), tapes and times that query
// (of runs) selects.
func (p *pass) touch(ctx context.Context, query string, args ...any) error {
	rows, err := p.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id sql.NullString
		var tape string
		var ns sql.NullInt64
		if err := rows.Scan(&id, &tape, &ns); err != nil {
			return err
		}
		if id.Valid {
			p.usageIDs[id.String] = true
		}
		p.tapes[tape] = true
		if ns.Valid {
			p.touchTime(&ns.Int64)
		}
	}
	return rows.Err()
}

// refreshCounted marks, for each usage id the pass touched, which of its
// runs counts.
func (p *pass) refreshCounted(ctx context.Context) error {
	if len(p.usageIDs) == 0 {
		return nil
	}
	ids, err := json.Marshal(slices.Sorted(maps.Keys(p.usageIDs)))
	if err != nil {
		return err
	}
	clear(p.usageIDs)
	// Which run counts may move to another tape: each tape of these ids'
	// runs is touched.
	if err := p.touch(ctx, `SELECT NULL, tape, time_ns FROM runs WHERE usage_id IN (SELECT value FROM json_each(?))`, string(ids)); err != nil {
		return err
	}
	_, err = p.tx.ExecContext(ctx, `UPDATE runs SET counted = (entry IN (
			SELECT entry FROM (
				SELECT r.entry, row_number() OVER (PARTITION BY r.usage_id
					ORDER BY r.copy, r.total_tokens DESC, r.time_ns, r.tape, e.anchor_seq, e.folder, e.eff_time, e.file, e.line) AS n
				FROM runs r JOIN entries e ON e.rowid = r.entry
				WHERE r.usage_id IN (SELECT value FROM json_each(?1)))
			WHERE n = 1))
		WHERE usage_id IN (SELECT value FROM json_each(?1))`, string(ids))
	return err
}
