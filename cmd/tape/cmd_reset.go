package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// ResetCmd is `tape reset`.
type ResetCmd struct {
	Archive bool `help:"Move the old anchor folders into .tape/archive/<tape>-<time>/ instead of deleting them."`
	Yes     bool `short:"y" help:"Do not ask; needed when stdin is not a terminal."`
	JSON    bool `help:"Print what was archived or deleted as a JSON object."`
}

func (c *ResetCmd) Help() string {
	return `Starts the tape over with a new bootstrap anchor. Without --archive the old
anchor folders are DELETED; with it they are moved, by rename, to
.tape/archive/<tape>-<time>/, and the new anchor's state names the archive.
On a terminal it asks first; scripts must pass --yes. The tape's forks stay.

Example:
  tape reset --archive --yes`
}

func (c *ResetCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, oneTape, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer t.Close()
	if !c.Yes {
		if err := c.confirm(env, t); err != nil {
			return err
		}
	}
	res, err := t.Reset(env.Context(), c.Archive)
	if err != nil {
		return err
	}
	if c.JSON {
		rec := resetRecord{Tape: t.Name(), Anchors: res.Anchors, Anchor: res.Anchor.Folder}
		if c.Archive {
			rec.Archived = res.Archived
		} else {
			rec.Deleted = res.Anchors
		}
		return newJSONLines(env.Stdout).write(rec)
	}
	what := fmt.Sprintf("deleted %d anchors", len(res.Anchors))
	if c.Archive {
		what = fmt.Sprintf("archived %d anchors to %s", len(res.Anchors), res.Archived)
	}
	if _, err := fmt.Fprintf(env.Stdout, "reset tape %s: %s; new anchor %s\n", t.Name(), what, res.Anchor.Folder); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// resetRecord is what `tape reset --json` prints.
type resetRecord struct {
	Tape     string   `json:"tape"`
	Anchors  []string `json:"anchors"`            // the old anchor folders
	Archived string   `json:"archived,omitempty"` // with --archive: where they went, ".tape/archive/..."
	Deleted  []string `json:"deleted,omitempty"`  // without: the folders deleted
	Anchor   string   `json:"anchor"`             // the new bootstrap anchor's folder
}

// confirm asks on a terminal; anywhere else it refuses, so that a script
// never deletes a tape by accident.
func (c *ResetCmd) confirm(env *Env, t *tapelog.Tape) error {
	if !isTerminal(env.Stdin) {
		return usagef("tape reset changes tape %q for good and stdin is not a terminal; run 'tape reset --yes' (add --archive to keep the old anchors)", t.Name())
	}
	entries, anchors := 0, 0
	for e, err := range t.All(env.Context()) {
		if err == nil && e.Kind == tapelog.KindAnchor && e.Pos.File == tapelog.AnchorFile {
			anchors++
		} else if err == nil {
			entries++
		}
	}
	fmt.Fprintf(env.Stderr, "reset tape %q (%s, %s)? [y/N] ", t.Name(), wording.Plural(entries, "entry", "entries"), wording.Plural(anchors, "anchor", "anchors"))
	answer, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("read answer: %w", err)
	}
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return usagef("reset of tape %q cancelled; nothing changed", t.Name())
	}
	return nil
}

// isTerminal reports whether a stream (stdin, stdout) is a terminal;
// /dev/null, a character device too, is not.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
