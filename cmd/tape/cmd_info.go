package main

import (
	"fmt"
	"strconv"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/usage"
)

// InfoCmd is `tape info`.
type InfoCmd struct {
	JSON bool `help:"Print one JSON object: workspace, tape, entries, anchors, last_anchor, entries_since_anchor, bytes, index_bytes, index_lag_bytes, watcher, watcher_pid, last_usage."`
}

func (c *InfoCmd) Help() string {
	return `Shows a tape at a glance: its entries and anchors (anchor entries not
counted as entries), the last anchor and the entries since, the bytes of its
files, the size of the index, the index lag (bytes of the tape's files the
index has not read yet, measured before tape info catches up, so a hand
append shows), whether a tape watch runs, and the token usage of the latest
"run" event.

Examples:
  tape info
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
	ws, t, err := g.openTape(env, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer t.Close()
	ctx := env.Context()
	ix, err := projector.Open(ctx, ws)
	if err != nil {
		return err
	}
	defer ix.Close()
	// The lag is measured before catching up, which would make it 0.
	tb, err := ix.Lag(ctx, t)
	if err != nil {
		return err
	}
	if !g.NoCatchup || ix.Fresh {
		if err := catchUp(env, ix); err != nil {
			return err
		}
	}
	r := infoRecord{Workspace: ws.Dir(), Tape: t.Name(), Bytes: tb.Bytes, IndexLagBytes: tb.LagBytes}
	r.Watcher, r.WatcherPID = ix.Watching()
	anchors, counts, err := ix.Anchors(ctx, t.Name())
	if err != nil {
		return err
	}
	r.Anchors = len(anchors)
	for _, n := range counts {
		r.Entries += n
	}
	if len(anchors) > 0 {
		last := anchors[len(anchors)-1]
		r.LastAnchor, r.EntriesSinceAnchor = &last.Name, counts[last.Folder]
	}
	if r.LastUsage, err = lastUsage(env, ix, t.Name()); err != nil {
		return err
	}
	r.IndexBytes = ix.IndexBytes()
	if c.JSON {
		return newJSONLines(env.Stdout).write(r)
	}
	return printInfo(env, r)
}

func printInfo(env *Env, r infoRecord) error {
	last := "none"
	if r.LastAnchor != nil {
		last = oneLine(*r.LastAnchor, 60)
	}
	watcher := "not running"
	if r.Watcher {
		watcher = "running"
		if r.WatcherPID > 0 {
			watcher += fmt.Sprintf(" (pid %d)", r.WatcherPID)
		}
	}
	lines := [][2]string{
		{"workspace", printable(r.Workspace)},
		{"tape", printable(r.Tape)},
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
	for _, l := range lines {
		if _, err := fmt.Fprintf(env.Stdout, "%-14s %s\n", l[0]+":", l[1]); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
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
		s += ", model " + printable(u.Model)
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
