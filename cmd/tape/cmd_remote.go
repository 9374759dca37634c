package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/remote"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// search, tapes and usage with --remote: the same commands over the
// team's server (package remote), a workspace column added.

// runRemote is `tape search --remote`.
func (c *SearchCmd) runRemote(env *Env, g *Globals) error {
	given, words := urlArg(c.Query)
	if c.Remote.url != "" {
		given = c.Remote.url
	}
	if len(words) == 0 {
		return usagef("want a query after the server's URL")
	}
	if c.Anchor != "" {
		return usagef("--anchor is for this workspace's tapes, not --remote")
	}
	now := time.Now()
	q := remote.SearchQuery{Text: strings.Join(words, " "), Workspaces: nilIfEmpty(c.Workspaces), Kinds: splitKinds(c.Kind), Limit: c.Limit + 1}
	var err error
	if q.Since, err = tapelog.ParseWhen(c.Since, now); err != nil {
		return usagef("--since: %v", err)
	}
	if q.Until, err = tapelog.ParseWhen(c.Until, now); err != nil {
		return usagef("--until: %v", err)
	}
	if g.tapeFlag {
		q.Tapes = []string{g.Tape}
	}
	conn, u, err := connectServer(env, g, given)
	if err != nil {
		return err
	}
	defer closeServer(conn)
	hits, err := remote.Search(env.Context(), conn, q)
	if errors.Is(err, remote.ErrEmptyQuery) {
		return usagef("%q has no word to search for", q.Text)
	}
	if err != nil {
		return serverFailed(err, u, "")
	}
	more := len(hits) > c.Limit
	hits = hits[:min(len(hits), c.Limit)]
	if len(hits) == 0 {
		return errNoMatch
	}
	local, workspaces := make([]projector.Hit, len(hits)), make([]string, len(hits))
	for i, h := range hits {
		local[i], workspaces[i] = h.Hit, h.Workspace
	}
	var out bytes.Buffer
	if err := c.print(env, &out, local, workspaces); err != nil {
		return err
	}
	if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if more {
		c.moreHits(env)
	}
	return nil
}

// runRemote is `tape tapes --remote`.
func (c *TapesCmd) runRemote(env *Env, g *Globals, since time.Time) error {
	conn, u, err := connectServer(env, g, cmpURL(c.Remote.url, c.URL))
	if err != nil {
		return err
	}
	defer closeServer(conn)
	f := remote.TapesFilter{Workspaces: nilIfEmpty(c.Workspaces), Since: since, Limit: c.Limit, Offset: c.Offset}
	if c.Count {
		f.Limit = 1
	}
	page, total, err := remote.Tapes(env.Context(), conn, f)
	if err != nil {
		return serverFailed(err, u, "")
	}
	if c.Count {
		return printCount(env, total)
	}
	if c.JSON {
		out := newJSONLines(env.Stdout)
		for _, t := range page {
			rec := records.NewTape(t.Session)
			rec.Workspace = &t.Workspace
			if err := out.write(rec); err != nil {
				return err
			}
		}
	} else {
		var sess []sessions.Session
		var workspaces []string
		for _, t := range page {
			sess, workspaces = append(sess, t.Session), append(workspaces, t.Workspace)
		}
		if err := printSessionsOf(env, sess, workspaces); err != nil {
			return err
		}
	}
	c.footer(env, len(page), total, "tapes")
	return nil
}

// runRemote is `tape usage --remote`.
func (c *UsageCmd) runRemote(env *Env, g *Globals) error {
	switch c.By {
	case "workspace", "tape", "model", "day":
	default:
		return usagef("--by %s is for this workspace's tapes; with --remote: --by workspace, tape, model or day", c.By)
	}
	conn, u, err := connectServer(env, g, cmpURL(c.Remote.url, c.URL))
	if err != nil {
		return err
	}
	defer closeServer(conn)
	all, unpriced, err := remote.Usage(env.Context(), conn, c.By, nilIfEmpty(c.Workspaces), loadPrices(env))
	if err != nil {
		return serverFailed(err, u, "")
	}
	if len(all) == 0 {
		fmt.Fprintln(env.Stderr, "tape: no run events on the server; 'tape sync' sends a workspace's, which 'tape import' records")
	}
	if c.Count {
		return printCount(env, len(all))
	}
	rows := all[min(c.Offset, len(all)):]
	if c.Limit > 0 {
		rows = rows[:min(c.Limit, len(rows))]
	}
	var summed []usage.Row
	for _, r := range rows {
		summed = append(summed, r.Row)
	}
	warnBadUsage(env, read.BadUsage(summed))
	warnUnpriced(env, unpriced)
	if c.JSON {
		out := newJSONLines(env.Stdout)
		for _, r := range rows {
			rec := records.NewUsageGroup(r.Row, c.By)
			switch c.By {
			case "workspace", "tape":
				rec.Workspace, rec.WorkspaceID = &r.Workspace, &r.WorkspaceID
			}
			if err := out.write(rec); err != nil {
				return err
			}
		}
	} else {
		t := table{columns: c.usageColumns()}
		for _, r := range rows {
			var group []cell
			switch c.By {
			case "workspace":
				group = []cell{text(r.Workspace)}
			case "tape":
				group = []cell{text(r.Workspace), text(r.Tape)}
			default:
				group = c.group(r.Row)
			}
			t.add(append(group, usageCells(r.Row)...)...)
		}
		if err := t.write(env.Stdout, terminalColumns(env.Stdout), env.color); err != nil {
			return err
		}
	}
	c.footer(env, len(rows), len(all), "groups")
	return nil
}

// cmpURL is the first URL given: --remote=URL, else the argument.
func cmpURL(flag, arg string) string {
	if flag != "" {
		return flag
	}
	return arg
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
