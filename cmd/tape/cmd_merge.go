package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// MergeCmd is `tape merge`.
type MergeCmd struct {
	ID   string `arg:"" name:"id" help:"The fork to merge, as 'tape fork' printed it."`
	JSON bool   `help:"Print what was merged as a JSON object."`
}

func (c *MergeCmd) Help() string {
	return `Appends the fork's entries to the tape, in order, keeping their ids and dates,
then removes the fork. The fork's anchors become anchor folders of the tape. A
merge that was interrupted (killed, power cut) is finished by running it again:
every entry ends up in the tape exactly once.

Example:
  tape merge 01JD8Z5N0QF3KJ6W2M1T7XG4BC`
}

func (c *MergeCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, oneTape, false)
	if err != nil {
		return g.forkElsewhere(env, c.ID, err)
	}
	defer ws.Close()
	defer t.Close()
	res, err := t.Merge(env.Context(), c.ID, tapelog.MergeOptions{AfterWrite: killHook()})
	if err != nil {
		return g.forkElsewhere(env, c.ID, err)
	}
	if c.JSON {
		return newJSONLines(env.Stdout).write(mergeRecord{Fork: res.Fork, Tape: t.Name(), Base: res.Base,
			Entries: res.Entries, Anchors: res.Anchors, Skipped: res.Skipped, Finished: res.Finished})
	}
	msg := fmt.Sprintf("merged fork %s into tape %s: %s, %s", res.Fork, t.Name(), wording.Plural(res.Entries, "entry", "entries"), wording.Plural(res.Anchors, "anchor", "anchors"))
	if res.Skipped > 0 || res.Finished {
		msg += fmt.Sprintf(" (finished an interrupted merge; %d already there)", res.Skipped)
	}
	if _, err := fmt.Fprintln(env.Stdout, msg); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// mergeRecord is what `tape merge --json` prints.
type mergeRecord struct {
	Fork     string `json:"fork"`
	Tape     string `json:"tape"`
	Base     string `json:"base"`     // the anchor folder that got the fork's first entries
	Entries  int    `json:"entries"`  // entries written by this run
	Anchors  int    `json:"anchors"`  // anchor folders created by this run
	Skipped  int    `json:"skipped"`  // entries and anchors an interrupted run had written
	Finished bool   `json:"finished"` // only the removal of a merged fork was left
}

// killHook is the test hook of the crash tests: in the test binary
// standing in for tape (TAPE_TEST_AS_CLI=1), TAPE_TEST_MERGE_KILL_AFTER=N
// makes the merge SIGKILL itself after its N-th write. Elsewhere it is nil.
func killHook() func() {
	n, err := strconv.Atoi(os.Getenv("TAPE_TEST_MERGE_KILL_AFTER"))
	if os.Getenv("TAPE_TEST_AS_CLI") != "1" || err != nil || n <= 0 {
		return nil
	}
	return func() {
		if n--; n == 0 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}
