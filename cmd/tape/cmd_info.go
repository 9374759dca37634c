package main

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/usage"
)

// InfoCmd is `tape info`.
type InfoCmd struct {
	AllTapes bool `name:"all-tapes" help:"Describe the whole workspace instead of one tape: its tapes, entries, files, index and newest tapes."`
	JSON     bool `help:"Print one JSON object: workspace, tape, entries, anchors, last_anchor, entries_since_anchor, bytes, index_bytes, index_lag_bytes, watcher, watcher_pid, last_usage (with --all-tapes: workspace, tape null, default_tape, tapes, entries, anchors, files, bytes, index_bytes, index_lag_bytes, bad_lines, watcher, watcher_pid, runs, total_tokens, newest)."`
}

func (c *InfoCmd) Help() string {
	return `Shows a tape at a glance: its entries and anchors (anchor entries not
counted as entries), the last anchor and the entries since, the bytes of its
files, the size of the index, the index lag (bytes of the tape's files the
index has not read yet, measured before tape info catches up, so a hand
append shows), whether a tape watch runs, and the token usage of the latest
"run" event.

With --all-tapes, or when no tape is named and the default tape does not
exist (a workspace of imported sessions), it shows the whole workspace: how
many tapes, entries, anchors and files, the index's size and lag, the lines
it could not read, the usage of every run event, and the newest tapes.

Examples:
  tape info
  tape info --all-tapes
  tape info --json | jq .index_lag_bytes`
}

// infoRecord is the JSON form of tape info; its field names are a contract.
type infoRecord struct {
	Workspace          string       `json:"workspace"`
	Tape               string       `json:"tape"`
	Entries            int          `json:"entries"`
	Anchors            int          `json:"anchors"`
	LastAnchor         *string      `json:"last_anchor"`
	EntriesSinceAnchor int          `json:"entries_since_anchor"`
	Bytes              int64        `json:"bytes"`
	IndexBytes         int64        `json:"index_bytes"`
	IndexLagBytes      int64        `json:"index_lag_bytes"`
	Watcher            bool         `json:"watcher"`
	WatcherPID         int          `json:"watcher_pid,omitempty"`
	LastUsage          *usageRecord `json:"last_usage"`
}

func (c *InfoCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, anyTapes, c.AllTapes)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer closeTape(t)
	ctx := env.Context()
	ix, err := projector.Open(ctx, ws)
	if err != nil {
		return err
	}
	defer ix.Close()
	if t == nil {
		return c.runWorkspace(env, g, ix)
	}
	// The lag is measured before catching up, which would make it 0.
	tb, err := fresh.Lag(ctx, ix, t)
	if err != nil {
		return err
	}
	if err := c.catchUp(env, g, ix); err != nil {
		return err
	}
	r := infoRecord{Workspace: ws.Dir(), Tape: t.Name(), Bytes: tb.Bytes, IndexLagBytes: tb.LagBytes}
	r.Watcher, r.WatcherPID = fresh.Watching(ix.Workspace())
	anchors, counts, err := ix.Anchors(ctx, t.Name())
	if err != nil {
		return err
	}
	for _, a := range anchors {
		if !a.Unanchored {
			r.Anchors++
		}
	}
	for _, n := range counts {
		r.Entries += n
	}
	if len(anchors) > 0 {
		last := anchors[len(anchors)-1]
		if !last.Unanchored { // else the tape's entries all come before its first anchor
			r.LastAnchor = &last.Name
		}
		r.EntriesSinceAnchor = counts[last.Folder]
	}
	if r.LastUsage, err = lastUsage(env, ix, t.Name()); err != nil {
		return err
	}
	r.IndexBytes = ix.IndexBytes()
	if c.JSON {
		return newJSONLines(env.Stdout).write(r)
	}
	return printInfo(env, r, otherTapes(ws, t.Name()))
}

// otherTapes counts the workspace's tapes besides tape: a person shown an
// empty main in a workspace of imported sessions learns where they are.
func otherTapes(ws *tapelog.Workspace, tape string) int {
	names, _ := ws.Tapes()
	n := len(names)
	if slices.Contains(names, tape) {
		n--
	}
	return n
}

// catchUp catches the index up after the lag was measured, unless
// --no-catchup (a new index is filled whatever the flag says).
func (c *InfoCmd) catchUp(env *Env, g *Globals, ix *projector.Projector) error {
	if g.NoCatchup && !ix.Fresh {
		return nil
	}
	return catchUp(env, ix)
}

func printInfo(env *Env, r infoRecord, others int) error {
	last := "none"
	if r.LastAnchor != nil {
		last = oneLine(*r.LastAnchor, 60)
	}
	watcher := watcherText(r.Watcher, r.WatcherPID)
	lines := [][2]string{
		{"workspace", wording.Printable(r.Workspace)},
		{"tape", wording.Printable(r.Tape)},
		{"entries", strconv.Itoa(r.Entries)},
		{"anchors", strconv.Itoa(r.Anchors)},
		{"last anchor", last},
		{"entries since", strconv.Itoa(r.EntriesSinceAnchor)},
		{"bytes", strconv.FormatInt(r.Bytes, 10)},
		{"index bytes", strconv.FormatInt(r.IndexBytes, 10)},
		{"index lag", fmt.Sprintf("%d bytes not yet indexed", r.IndexLagBytes)},
		{"watcher", watcher},
		{"last usage", r.LastUsage.String()},
	}
	if others > 0 {
		lines = append(lines, [2]string{"other tapes", fmt.Sprintf("%d (tape info --all-tapes describes them all)", others)})
	}
	return printFields(env, lines)
}

// printFields prints what tape info says, a field a line, the values
// aligned.
func printFields(env *Env, lines [][2]string) error {
	for _, l := range lines {
		if _, err := fmt.Fprintf(env.Stdout, "%-14s %s\n", l[0]+":", l[1]); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

// watcherText is how tape info shows the watcher.
func watcherText(running bool, pid int) string {
	if !running {
		return "not running"
	}
	if pid > 0 {
		return fmt.Sprintf("running (pid %d)", pid)
	}
	return "running"
}

// usageRecord is the token usage of a "run" event, in the JSON of tape
// info. A count the event did not give is null.
type usageRecord struct {
	InputTokens  *int64 `json:"input_tokens"`
	OutputTokens *int64 `json:"output_tokens"`
	TotalTokens  *int64 `json:"total_tokens"`
	Model        string `json:"model,omitempty"`
	Status       string `json:"status,omitempty"`
	Date         string `json:"date,omitempty"`
	ID           string `json:"id"`
}

func (u *usageRecord) String() string {
	if u == nil {
		return "none (no run event with usage)"
	}
	n := func(p *int64) string {
		if p == nil {
			return "?"
		}
		return strconv.FormatInt(*p, 10)
	}
	s := fmt.Sprintf("%s in, %s out, %s total", n(u.InputTokens), n(u.OutputTokens), n(u.TotalTokens))
	if u.Model != "" {
		s += ", model " + wording.Printable(u.Model)
	}
	if u.Date != "" {
		s += ", " + shortDate(u.Date)
	}
	return s
}

// lastUsage finds the usage of the tape's latest "run" event that has one,
// through the index's runs table (kept with the entries).
func lastUsage(env *Env, ix *projector.Projector, tape string) (*usageRecord, error) {
	e, ok, err := usage.Last(env.Context(), ix, tape)
	if err != nil || !ok {
		return nil, err
	}
	return runUsage(e), nil
}

// runUsage is the usage of a "run" event as tape usage counts it
// (views.ParseRun, the one reading of a run event): a count the event
// did not give is null, and the total, when the event gave none, is the
// sum tape usage sums. nil if e is not a run event or has no usage.
func runUsage(e tapelog.Entry) *usageRecord {
	run := views.ParseRun(e.Payload)
	if run == nil || !run.Usage {
		return nil
	}
	given := func(n int64, ok bool) *int64 {
		if !ok {
			return nil
		}
		return &n
	}
	total := run.Total
	return &usageRecord{InputTokens: given(run.In, run.GivenIn), OutputTokens: given(run.Out, run.GivenOut), TotalTokens: &total,
		Model: run.Model, Status: run.Status, Date: e.Date, ID: e.ID}
}
