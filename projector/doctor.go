package projector

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/fts5"

	tapelog "github.com/tape-dev/tape/log"
)

// Checkpoint is how far the index has read one tape file, and how many of
// its entries it holds.
type Checkpoint struct {
	Key     tapelog.FileKey
	Offset  int64 // the end of the last complete line read
	Entries int
}

// Checkpoints returns the index's checkpoints, by file, for one tape or,
// with tape "", for all. It only reads the index.
func (p *Projector) Checkpoints(ctx context.Context, tape string) (map[tapelog.FileKey]Checkpoint, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT f.tape, f.folder, f.name, f.offset,
		(SELECT count(*) FROM entries e WHERE e.file_id = f.id)
		FROM files f WHERE ? = '' OR f.tape = ?`, tape, tape)
	if err != nil {
		return nil, fmt.Errorf("query checkpoints: %w", err)
	}
	defer rows.Close()
	cps := map[tapelog.FileKey]Checkpoint{}
	for rows.Next() {
		var cp Checkpoint
		if err := rows.Scan(&cp.Key.Tape, &cp.Key.Folder, &cp.Key.Name, &cp.Offset, &cp.Entries); err != nil {
			return nil, fmt.Errorf("query checkpoints: %w", err)
		}
		cps[cp.Key] = cp
	}
	return cps, rows.Err()
}

// CheckIndexLag is tape doctor's check of an index a running watcher
// should have caught up and did not: reads that sync with it trust it.
const CheckIndexLag = "index_lag"

// Diagnosis is what Doctor found.
type Diagnosis struct {
	*tapelog.CheckResult
	// Lag is what the index has not read of the files' complete lines
	// (a torn tail is the file checks' to report). Without a watcher it
	// is no problem: the next read catches up with it.
	Lag TapeBytes
}

// Watched is what a running watcher answered before Doctor's checks:
// package fresh asks it to catch up, as a read does (fresh.Doctor), and
// passes on its answer. The zero value is no watcher, or none that
// answered.
type Watched struct {
	// Synced is whether a watcher answered that the index was caught up.
	Synced bool
	// PID is its pid, when watch.lock names it (0 otherwise).
	PID int
}

// Doctor checks the workspace's files (see tapelog.Workspace.CheckFiles)
// and the index against them, without writing either, and returns what
// CheckFiles found with the index's problems added. The index drifts
// when what it holds of a file is not what the file's bytes up to the
// index's checkpoint hold; bytes past the checkpoint are lag, not drift:
// the next catch-up reads them. If a running watcher answered that it had
// caught up (w.Synced), what it has not read is a problem too, since
// readers trust it (issue 29 found an index left empty that every read
// trusted). The watcher is asked by the caller, fresh.Doctor, so that
// package fresh depends on this one and never the other way.
func (p *Projector) Doctor(ctx context.Context, w Watched) (*Diagnosis, error) {
	cps, err := p.Checkpoints(ctx, "")
	if err != nil {
		return nil, err
	}
	upTo := make(map[tapelog.FileKey]int64, len(cps))
	for k, cp := range cps {
		upTo[k] = cp.Offset
	}
	res, err := p.ws.CheckFiles(ctx, upTo)
	if err != nil {
		return nil, err
	}
	d := &Diagnosis{CheckResult: res}
	problems := res.Problems
	seen := make(map[tapelog.FileKey]bool, len(res.Files))
	for _, f := range res.Files {
		seen[f.Key] = true
		cp, ok := cps[f.Key]
		switch {
		case !ok:
			d.Lag.add(f.Complete)
		case cp.Offset > f.Complete:
			problems = append(problems, drift(f.Key, fmt.Sprintf("the index read this file up to byte %d, but its complete lines end at byte %d: it shrank or was rewritten", cp.Offset, f.Complete)))
		case cp.Entries != f.EntriesUpTo:
			problems = append(problems, drift(f.Key, fmt.Sprintf("the index holds %d entries of this file's first %d bytes, which hold %d", cp.Entries, cp.Offset, f.EntriesUpTo)))
		default:
			d.Lag.add(f.Complete - cp.Offset)
		}
	}
	for k, cp := range cps {
		if !seen[k] && !p.unreadable(k, problems) {
			problems = append(problems, drift(k, fmt.Sprintf("the index holds %d entries of this file, which is gone", cp.Entries)))
		}
	}
	if w.Synced && d.Lag.LagBytes > 0 {
		problems = append(problems, lagProblem(d.Lag, len(cps), w.PID))
	}
	problems = append(problems, p.killedBuilds()...)
	gone, err := p.goneFolders(ctx)
	res.Problems = append(problems, gone...)
	return d, err
}

// add counts n bytes of one file not yet indexed.
func (tb *TapeBytes) add(n int64) {
	if n > 0 {
		tb.Files++
		tb.LagBytes += n
	}
}

// lagProblem says that a running watcher left the index behind.
func lagProblem(lag TapeBytes, indexed, pid int) tapelog.Problem {
	what := fmt.Sprintf("the index has not read %d bytes of %d files", lag.LagBytes, lag.Files)
	if indexed == 0 {
		what = fmt.Sprintf("the index is empty, and %d files hold %d bytes", lag.Files, lag.LagBytes)
	}
	watcher := "a tape watch runs"
	if pid > 0 {
		watcher = fmt.Sprintf("a tape watch (pid %d) runs", pid)
	}
	return tapelog.Problem{Check: CheckIndexLag, Path: IndexFile,
		Problem: what + ", though " + watcher + " and answered that it had caught up: reads that trust it miss them",
		Fix:     "run 'tape reindex'; if this stays, stop the watcher and run 'tape reindex --full'"}
}

// killedBuilds reports the scratch files of a search index build that a
// killed pass left, if no pass runs: they hold the tapes' words.
func (p *Projector) killedBuilds() []tapelog.Problem {
	if !buildsLeft(p.ws) {
		return nil
	}
	if free, err := fileutil.TryLock(p.lock); err != nil || !free {
		return nil // a pass runs, and may be building
	}
	defer fileutil.Unlock(p.lock) //nolint:errcheck // closing releases it anyway
	var problems []tapelog.Problem
	for _, name := range fts5.BuildsLeft(p.ws.Dir()) {
		problems = append(problems, tapelog.Problem{Check: tapelog.CheckTempFile, Path: name,
			Problem: "a search index build that a killed pass left; it holds the tapes' words",
			Fix:     "run 'tape reindex', which removes it"})
	}
	return problems
}

func drift(k tapelog.FileKey, problem string) tapelog.Problem {
	return tapelog.Problem{Check: tapelog.CheckIndexDrift, Path: pathOf(k), Problem: problem, Fix: "run 'tape reindex --full'"}
}

func pathOf(k tapelog.FileKey) string {
	return tapelog.Position{Tape: k.Tape, Folder: k.Folder, File: k.Name}.Path()
}

// unreadable reports whether the file checks already reported k as a file
// that cannot be read: the index keeping its old rows is then not news.
func (p *Projector) unreadable(k tapelog.FileKey, problems []tapelog.Problem) bool {
	rel := pathOf(k)
	for _, pr := range problems {
		if pr.Path == rel && pr.Check == tapelog.CheckUnreadable {
			return true
		}
	}
	return false
}

// goneFolders reports the anchors the index holds whose folder is gone.
func (p *Projector) goneFolders(ctx context.Context) ([]tapelog.Problem, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder FROM anchors ORDER BY tape, seq, folder`)
	if err != nil {
		return nil, fmt.Errorf("query anchors: %w", err)
	}
	defer rows.Close()
	var problems []tapelog.Problem
	for rows.Next() {
		var k tapelog.FileKey
		if err := rows.Scan(&k.Tape, &k.Folder); err != nil {
			return nil, fmt.Errorf("query anchors: %w", err)
		}
		t, err := p.ws.Tape(k.Tape)
		if err != nil {
			continue // a name no tape can have cannot be on disk either
		}
		if _, err := t.QuickStat(k.Folder, ""); errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, drift(k, "the index holds this anchor folder, which is gone"))
		}
	}
	return problems, rows.Err()
}
