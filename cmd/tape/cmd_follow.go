package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read/records"
)

// followTick is how often `tape log -f` looks at the files when no event
// came: a safety net for file systems without inotify (NFS, some
// containers), where it is the only way to notice a write.
const followTick = time.Second

// follow is `tape log -f`: the entries `tape log` prints, then those
// written after, read from the files as they arrive.
//
// The follower starts before the first read, so nothing written between
// the two is missed; what both saw is printed once, by the first read.
func (c *LogCmd) follow(env *Env, g *Globals) error {
	ctx := env.Context()
	ws, t, err := g.openTape(env, oneTape, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer t.Close()
	f, err := t.Follow(ctx)
	if err != nil {
		return fmt.Errorf("follow tape %s: %w", t.Name(), err)
	}
	first, err := c.read(env, g)
	if err != nil && !errors.Is(err, errUnreadable) {
		return err
	}
	printed := make(map[tapelog.Position]bool, len(first))
	for _, e := range first {
		printed[placeOf(e)] = true
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		fw = nil // no inotify: the tick alone
	} else {
		defer fw.Close()
	}
	tick := time.NewTicker(followTick)
	defer tick.Stop()
	out := newJSONLines(env.Stdout)
	kinds := splitKinds(c.Kind)
	watched := ""
	for {
		watched = c.watchFolder(fw, ws, t, watched)
		entries, bad, err := f.Poll(ctx)
		if ctx.Err() != nil {
			return nil // interrupted: the way to stop following
		}
		if err != nil {
			return fmt.Errorf("follow tape %s: %w", t.Name(), err)
		}
		for _, le := range bad {
			warnLine(env.Stderr, le) //nolint:errcheck // a warning; following goes on
		}
		for _, e := range entries {
			if printed[placeOf(e)] || (len(kinds) > 0 && !slices.Contains(kinds, e.Kind)) {
				continue
			}
			if err := c.printOne(env, out, e); err != nil {
				return err
			}
		}
		clear(printed) // only the first poll can meet what the first read printed
		if !wait(env, fw, tick) {
			return nil
		}
	}
}

// placeOf is where an entry is: what tells the same entry read twice.
func placeOf(e tapelog.Entry) tapelog.Position {
	return tapelog.Position{Folder: e.Pos.Folder, File: e.Pos.File, Line: e.Pos.Line}
}

func (c *LogCmd) printOne(env *Env, out *jsonLines, e tapelog.Entry) error {
	if c.JSON {
		return out.writeRecord(records.NewEntry(e))
	}
	if _, err := fmt.Fprintln(env.Stdout, humanEntry(e, env.color)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// watchFolder keeps an inotify watch on the tape's anchors folder and its
// newest anchor folder, and returns the folder watched. Both are added
// again every time: inotify watches an inode, and tape reset puts a new
// anchors folder, and maybe a new folder of the same name, at the paths.
func (c *LogCmd) watchFolder(fw *fsnotify.Watcher, ws *tapelog.Workspace, t *tapelog.Tape, watched string) string {
	if fw == nil {
		return watched
	}
	anchors := ws.Abs(filepath.ToSlash(filepath.Join("tapes", t.Name(), "anchors")))
	fw.Add(anchors) //nolint:errcheck // not there yet: the tick looks again
	folders, err := t.Folders()
	if err != nil || len(folders) == 0 {
		return watched
	}
	newest := filepath.Join(anchors, folders[len(folders)-1].Name)
	if err := fw.Add(newest); err != nil {
		return watched
	}
	if watched != "" && watched != newest {
		fw.Remove(watched) //nolint:errcheck
	}
	return newest
}

// wait returns when something may have been written, or false when the
// command is interrupted.
func wait(env *Env, fw *fsnotify.Watcher, tick *time.Ticker) bool {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw != nil {
		events, errs = fw.Events, fw.Errors
	}
	select {
	case <-env.Context().Done():
		return false
	case <-events:
	case <-errs:
	case <-tick.C:
	}
	for { // one poll reads what a burst of events announced
		select {
		case <-events:
		default:
			return true
		}
	}
}
