package remote

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
)

// A batch is the rows of one transaction of a sync: what it removes, the
// rows it adds, the checkpoints of the files they came from, and the
// tapes whose tapes and calls rows fall behind them. It commits as one,
// so that a file's checkpoint never passes the rows it covers, nor lags
// them: a sync killed at any moment leaves the server as it was before
// a transaction, and the next sync goes on from there.
type batch struct {
	removals []removal
	entries  [][]any
	bad      [][]any
	runs     [][]any
	files    map[fileKey]checkpoint // checkpoint upserts, by file
	anchors  [][]any
	pending  map[string]views.Place // per tape, the first place that changed
	usageIDs map[string]bool        // of the runs written: which run of each counts is decided again
	bytes    int                    // of the lines in entries and bad
}

// checkpoint is how far a file's rows go: its position after the last
// line written, and the stamp the local index read it with.
type checkpoint struct {
	pos   tapelog.FilePos
	stamp string
}

// removal deletes, before the batch's rows are written, the workspace's
// rows of one table: of a tape, of one of its folders, or of one file of
// a folder ("" for any).
type removal struct {
	table, tape, folder, file string
}

// statement is the removal's DELETE, of the workspace wsID.
func (r removal) statement(wsID string) (string, []any) {
	sql, args := `DELETE FROM tape.`+r.table+` WHERE workspace_id = $1 AND tape = $2`, []any{wsID, r.tape}
	and := func(col, v string) {
		args = append(args, v)
		sql += ` AND ` + col + ` = $` + strconv.Itoa(len(args))
	}
	if r.folder != "" {
		and("folder", r.folder)
	}
	if r.file != "" && r.table == "files" {
		and("name", r.file)
	} else if r.file != "" {
		and("file", r.file)
	}
	return sql, args
}

func newBatch() *batch {
	return &batch{files: map[fileKey]checkpoint{}, pending: map[string]views.Place{}, usageIDs: map[string]bool{}}
}

// rows is how many rows the batch writes.
func (b *batch) rows() int {
	return len(b.entries) + len(b.bad) + len(b.runs) + len(b.files) + len(b.anchors) + len(b.removals)
}

func (b *batch) empty() bool { return b.rows() == 0 && len(b.pending) == 0 }

// mark notes that the tape changed from place from on.
func (b *batch) mark(tape string, from views.Place) {
	if old, ok := b.pending[tape]; !ok || from.Compare(old) < 0 {
		b.pending[tape] = from
	}
}

var (
	entryColumns = []string{"workspace_id", "tape", "folder", "file", "line", "id", "kind", "anchor_seq", "eff_time", "time", "raw", "search"}
	badColumns   = []string{"workspace_id", "tape", "folder", "file", "line", "offset", "reason", "raw"}
	runColumns   = []string{"workspace_id", "tape", "folder", "file", "line", "anchor_seq", "eff_time", "time", "status", "model", "has_usage",
		"input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens", "total_tokens", "usage_id", "bad_usage", "copy"}
)

// commit writes the batch in one transaction.
func (b *batch) commit(ctx context.Context, conn *pgx.Conn, wsID string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	for _, r := range b.removals {
		if err := b.remove(ctx, tx, wsID, r); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{{"anchors", anchorColumns, b.anchors}, {"entries", entryColumns, b.entries}, {"bad_lines", badColumns, b.bad}, {"runs", runColumns, b.runs}} {
		if len(c.rows) == 0 {
			continue
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{Schema, c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			return fmt.Errorf("write %s: %w", c.table, err)
		}
	}
	if err := b.saveCheckpoints(ctx, tx, wsID); err != nil {
		return err
	}
	if err := b.savePending(ctx, tx, wsID); err != nil {
		return err
	}
	if err := countRuns(ctx, tx, wsID, b.usageIDs); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// remove runs a removal; one of runs notes the usage ids of the runs it
// removed, whose counted run may change.
func (b *batch) remove(ctx context.Context, tx pgx.Tx, wsID string, r removal) error {
	sql, args := r.statement(wsID)
	if r.table != "runs" {
		_, err := tx.Exec(ctx, sql, args...)
		return err
	}
	rows, err := tx.Query(ctx, sql+` RETURNING usage_id`, args...)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[*string])
	for _, id := range ids {
		if id != nil {
			b.usageIDs[*id] = true
		}
	}
	return err
}

// countRuns decides again, of the workspace's runs that share each usage
// id, which one counts, by the rule of the local index (views/usage): the
// one with the most tokens, then the first by time (no date first) and
// place. Kept in runs.counted, in the transaction that changed the runs,
// it spares every usage query ranking every run: usage --remote --by
// model at 1M entries took 162 ms, and 49 ms with it (tape-bench pg).
func countRuns(ctx context.Context, tx pgx.Tx, wsID string, usageIDs map[string]bool) error {
	if len(usageIDs) == 0 {
		return nil
	}
	ids := make([]string, 0, len(usageIDs))
	for id := range usageIDs {
		ids = append(ids, id)
	}
	_, err := tx.Exec(ctx, `UPDATE tape.runs r SET counted = ranked.n = 1
		FROM (SELECT tape, folder, file, line, row_number() OVER (PARTITION BY usage_id
				ORDER BY copy, total_tokens DESC, time NULLS FIRST, tape, anchor_seq, folder, eff_time, file, line) AS n
			FROM tape.runs WHERE workspace_id = $1 AND usage_id = ANY($2)) ranked
		WHERE r.workspace_id = $1 AND r.tape = ranked.tape AND r.folder = ranked.folder AND r.file = ranked.file AND r.line = ranked.line
			AND r.counted <> (ranked.n = 1)`, wsID, ids)
	if err != nil {
		return fmt.Errorf("count the runs of each usage id: %w", err)
	}
	return nil
}

var anchorColumns = []string{"workspace_id", "tape", "folder", "seq", "name", "state", "stamp"}

// saveCheckpoints upserts the files' checkpoints, all in one statement.
func (b *batch) saveCheckpoints(ctx context.Context, tx pgx.Tx, wsID string) error {
	if len(b.files) == 0 {
		return nil
	}
	var tapes, folders, names, stamps []string
	var offsets, effs, fps []int64
	var lines []int32
	for k, c := range b.files {
		tapes, folders, names, stamps = append(tapes, k.Tape), append(folders, k.Folder), append(names, k.Name), append(stamps, c.stamp)
		offsets, effs, fps, lines = append(offsets, c.pos.Offset), append(effs, projector.EffTime(c.pos.Time)), append(fps, int64(c.pos.Fingerprint)), append(lines, int32(c.pos.Line))
	}
	_, err := tx.Exec(ctx, `INSERT INTO tape.files (workspace_id, tape, folder, name, "offset", line, eff_time, fingerprint, stamp)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::bigint[], $8::bigint[], $9::text[])
		ON CONFLICT (workspace_id, tape, folder, name) DO UPDATE SET "offset" = excluded."offset", line = excluded.line,
			eff_time = excluded.eff_time, fingerprint = excluded.fingerprint, stamp = excluded.stamp`,
		wsID, tapes, folders, names, offsets, lines, effs, fps, stamps)
	if err != nil {
		return fmt.Errorf("write checkpoints: %w", err)
	}
	return nil
}

// savePending marks the tapes whose rows changed, keeping the earlier
// place of a mark already there.
func (b *batch) savePending(ctx context.Context, tx pgx.Tx, wsID string) error {
	if len(b.pending) == 0 {
		return nil
	}
	var tapes, folders, files []string
	var seqs, effs []int64
	var lines []int32
	for tape, p := range b.pending {
		tapes, seqs, folders, effs, files, lines = append(tapes, tape), append(seqs, p.Seq), append(folders, p.Folder),
			append(effs, p.Eff), append(files, p.File), append(lines, int32(p.Line))
	}
	_, err := tx.Exec(ctx, `INSERT INTO tape.pending AS p (workspace_id, tape, anchor_seq, folder, eff_time, file, line)
		SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::int[])
		ON CONFLICT (workspace_id, tape) DO UPDATE SET anchor_seq = excluded.anchor_seq, folder = excluded.folder,
			eff_time = excluded.eff_time, file = excluded.file, line = excluded.line
		WHERE (excluded.anchor_seq, excluded.folder COLLATE "C", excluded.eff_time, excluded.file COLLATE "C", excluded.line)
			< (p.anchor_seq, p.folder, p.eff_time, p.file, p.line)`,
		wsID, tapes, seqs, folders, effs, files, lines)
	if err != nil {
		return fmt.Errorf("mark the tapes to bring up to date: %w", err)
	}
	return nil
}

// committer commits batches in order, on a goroutine of its own, so that
// the next batch is read from the files and its search vectors made while
// the server writes the last: the two took about as long, and overlapped
// a first sync of 500 sessions takes 2.0 s instead of 3.3
// (BenchmarkSyncSessions). At most one batch waits while one commits.
// After a failed commit it commits nothing more, and send and wait
// return the error.
type committer struct {
	batches chan *batch
	failed  chan struct{} // closed once err is set
	done    chan struct{} // closed when the goroutine returns
	written SyncStats     // what committed: written by the goroutine, read after done
	err     error         // written by the goroutine, read after failed
}

func startCommitter(ctx context.Context, conn *pgx.Conn, wsID string) *committer {
	c := &committer{batches: make(chan *batch), failed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for b := range c.batches {
			if err := b.commit(ctx, conn, wsID); err != nil {
				c.err = err
				close(c.failed)
				return
			}
			c.written.Commits++
			c.written.Entries += len(b.entries)
			c.written.BadLines += len(b.bad)
			c.written.Bytes += int64(b.bytes)
		}
	}()
	return c
}

// send hands a batch over, once the committer is free to take it.
func (c *committer) send(ctx context.Context, b *batch) error {
	select {
	case c.batches <- b:
		return nil
	case <-c.failed:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait waits for the batches sent to be committed, and returns what they
// wrote and the first error. The committer takes no more after it.
func (c *committer) wait() (SyncStats, error) {
	select {
	case <-c.done:
	default:
		close(c.batches)
		<-c.done
	}
	written := c.written
	c.written = SyncStats{}
	return written, c.err
}
