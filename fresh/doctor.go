package fresh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

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

// Doctor checks the workspace's files (see tapelog.Workspace.CheckFiles)
// and p's index against them, without writing either, and returns what
// CheckFiles found with the index's problems added (tape doctor). The
// index drifts when what it holds of a file is not what the file's bytes
// up to the index's checkpoint hold; bytes past the checkpoint are lag,
// not drift: the next catch-up reads them.
//
// It first asks a running watcher to catch up, as a read asks it. What
// the watcher then has not read, though it answered that it had, is an
// index_lag problem: readers trust it (issue 29 found an index left empty
// that every read trusted; decision 0068).
func Doctor(ctx context.Context, p *projector.Projector) (*Diagnosis, error) {
	synced, err := SyncWatcher(ctx, p, SyncTimeout)
	if err != nil {
		return nil, err
	}
	w := watcherAnswer{synced: synced}
	if synced {
		_, w.pid = Watching(p.Workspace())
	}
	return examine(ctx, p, w)
}

// watcherAnswer is what a running watcher answered before Doctor's checks.
// The zero value is no watcher, or none that answered.
type watcherAnswer struct {
	synced bool // it answered that the index was caught up
	pid    int  // its pid, when watch.lock names it (0 otherwise)
}

// examine is Doctor's checks, once the watcher, if any, has answered w.
func examine(ctx context.Context, p *projector.Projector, w watcherAnswer) (*Diagnosis, error) {
	cps, err := p.Checkpoints(ctx, "")
	if err != nil {
		return nil, err
	}
	upTo := make(map[tapelog.FileKey]int64, len(cps))
	for k, cp := range cps {
		upTo[k] = cp.Offset
	}
	res, err := p.Workspace().CheckFiles(ctx, upTo)
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
		if !seen[k] && !unreadable(k, problems) {
			problems = append(problems, drift(k, fmt.Sprintf("the index holds %d entries of this file, which is gone", cp.Entries)))
		}
	}
	if w.synced && d.Lag.LagBytes > 0 {
		problems = append(problems, lagProblem(d.Lag, len(cps), w.pid))
	}
	problems = append(problems, killedBuilds(p)...)
	gone, err := goneFolders(ctx, p)
	res.Problems = append(problems, gone...)
	return d, err
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
	return tapelog.Problem{Check: CheckIndexLag, Path: projector.IndexFile,
		Problem: what + ", though " + watcher + " and answered that it had caught up: reads that trust it miss them",
		Fix:     "run 'tape reindex'; if this stays, stop the watcher and run 'tape reindex --full'"}
}

// killedBuilds reports the scratch files of a search index build that a
// killed pass left, if no pass runs: they hold the tapes' words.
func killedBuilds(p *projector.Projector) []tapelog.Problem {
	var problems []tapelog.Problem
	for _, name := range p.KilledBuilds() {
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
func unreadable(k tapelog.FileKey, problems []tapelog.Problem) bool {
	rel := pathOf(k)
	for _, pr := range problems {
		if pr.Path == rel && pr.Check == tapelog.CheckUnreadable {
			return true
		}
	}
	return false
}

// goneFolders reports the anchors the index holds whose folder is gone,
// in tape order: by tape, then sequence number, then folder.
func goneFolders(ctx context.Context, p *projector.Projector) ([]tapelog.Problem, error) {
	anchors, err := p.AnchorFolders(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(anchors, func(a, b projector.AnchorFolder) int {
		return cmp.Or(cmp.Compare(a.Tape, b.Tape), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Folder, b.Folder))
	})
	var problems []tapelog.Problem
	for _, a := range anchors {
		t, err := p.Workspace().Tape(a.Tape)
		if err != nil {
			continue // a name no tape can have cannot be on disk either
		}
		if _, err := t.QuickStat(a.Folder, ""); errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, drift(tapelog.FileKey{Tape: a.Tape, Folder: a.Folder}, "the index holds this anchor folder, which is gone"))
		}
	}
	return problems, nil
}
