package records

import (
	"encoding/json"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// Anchor is an anchor, as `tape anchors --json` prints it.
type Anchor struct {
	Name    string          `json:"name"`
	Seq     int64           `json:"seq"`
	State   json.RawMessage `json:"state" jsonschema:"the state the phase started with, as its handoff gave it ({} for none)"`
	Date    *string         `json:"date"`
	Entries int             `json:"entries" jsonschema:"how many entries it holds besides its anchor entry"`
	Folder  string          `json:"folder" jsonschema:"its folder, NNN_slug: what the anchor arguments and tape://<tape>/<folder> take"`
	Tape    string          `json:"tape"`
	Path    string          `json:"path,omitempty"`
	// Unanchored marks a folder of seq 0 without anchor.json: entries
	// written before the tape's first anchor (log.Anchor.Unanchored).
	Unanchored bool `json:"unanchored,omitempty" jsonschema:"true for a folder of seq 0 without anchor.json: entries written before the tape's first anchor, with no anchor entry; its name is empty"`
}

// NewAnchor returns the JSON form of anchor a of the named tape, holding
// entries entries besides its own; path, the anchor's folder, is left
// out when "". A missing state is {}, a missing date null.
func NewAnchor(tape string, a tapelog.Anchor, entries int, path string) Anchor {
	r := Anchor{Name: a.Name, Seq: a.Seq, State: a.State, Date: Optional(a.Entry.Date), Entries: entries, Folder: a.Folder, Tape: tape, Path: path,
		Unanchored: a.Unanchored}
	if r.State == nil {
		r.State = json.RawMessage("{}")
	}
	return r
}

// Tape is a tape, as `tape tapes --json` prints it.
type Tape struct {
	// Workspace is set by --remote alone: the workspace a tape on the
	// team's server is of.
	Workspace *string `json:"workspace,omitempty" jsonschema:"the workspace of a tape on a team's server (tape tapes --remote); left out here"`
	Name      string  `json:"name"`
	Title     string  `json:"title" jsonschema:"the session's title: the last an agent gave it, else its first user message"`
	CWD       string  `json:"cwd"`
	Branch    string  `json:"branch"`
	Model     string  `json:"model"`
	First     *string `json:"first"`
	Last      *string `json:"last" jsonschema:"when it was last written"`
	Entries   int     `json:"entries"`
	Anchors   int     `json:"anchors"`
	// Forks is set by the CLI alone: counting them reads the files of
	// every tape listed, which the MCP server's tapes tool does not.
	Forks     *int    `json:"forks,omitempty" jsonschema:"how many of its forks are neither merged nor discarded; given by tape tapes --json, left out here"`
	Source    string  `json:"source" jsonschema:"the agent an imported session came from (claude, codex), \"\" for a tape written here"`
	SessionID string  `json:"session_id"` // its id in the agent it came from
	Parent    *string `json:"parent" jsonschema:"the tape of the session it is a subagent or fork of"`
	// CostUSD is set by the CLI alone, for a tape with runs of a priced
	// model: what they cost (tape usage).
	CostUSD *float64 `json:"cost_usd,omitempty" jsonschema:"what its runs cost in USD (tape tapes --json, for a tape with runs of a priced model); left out here"`
}

// NewTape returns the JSON form of a session, without its count of forks.
func NewTape(s sessions.Session) Tape {
	return Tape{Name: s.Name, Title: s.Title, CWD: s.CWD, Branch: s.Branch, Model: s.Model, First: Time(s.First), Last: Time(s.Last),
		Entries: s.Entries, Anchors: s.Anchors, Source: s.Source, SessionID: s.SessionID, Parent: Optional(s.Parent)}
}

// Call is a tool call, as `tape calls --json` prints it.
type Call struct {
	ID         string          `json:"id"`
	Tape       string          `json:"tape"`
	Anchor     string          `json:"anchor"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Status     string          `json:"status" jsonschema:"pending, completed or failed"`
	CalledAt   *string         `json:"called_at"`
	AnsweredAt *string         `json:"answered_at"`
	DurationMS *int64          `json:"duration_ms"`
	Result     json.RawMessage `json:"result" jsonschema:"the result, null while pending"`
}

// NewCall returns the JSON form of a call. Missing arguments, result and
// dates are null.
func NewCall(c calls.Listed) Call {
	return Call{ID: c.ID, Tape: c.Tape, Anchor: c.Anchor, Name: c.Name, Arguments: rawOrNull(c.Arguments), Status: c.Status,
		CalledAt: Optional(c.CalledAt), AnsweredAt: Optional(c.AnsweredAt), DurationMS: c.DurationMS, Result: rawOrNull(c.Result)}
}

// UsageGroup is a group of runs, as `tape usage --json` prints it: the
// fields of the group it is summed by, then the sums.
type UsageGroup struct {
	Workspace     *string     `json:"workspace,omitempty"`    // by workspace, or by tape on the team's server (--remote)
	WorkspaceID   *string     `json:"workspace_id,omitempty"` // likewise: two workspaces may share a name
	Tape          *string     `json:"tape,omitempty"`
	AnchorSeq     *int64      `json:"anchor_seq,omitempty"`
	Anchor        *string     `json:"anchor,omitempty"`
	Model         *string     `json:"model,omitempty"`
	Day           *string     `json:"day,omitempty"`
	Week          *string     `json:"week,omitempty" jsonschema:"by week: the date of its first day"`
	Month         *string     `json:"month,omitempty" jsonschema:"by month: YYYY-MM"`
	Project       *string     `json:"project,omitempty" jsonschema:"by project: the git root of the sessions' working directory, else the directory; empty for tapes that name none"`
	Source        *string     `json:"source,omitempty" jsonschema:"by source or session: the agent the sessions were imported from; empty for tapes not imported"`
	SessionID     *string     `json:"session_id,omitempty" jsonschema:"by session: the agent's id of the session; its tape is the session's first, its subagents' tapes summed with it"`
	Block         *UsageBlock `json:"block,omitempty" jsonschema:"by block: the 5-hour window"`
	Runs          int         `json:"runs"`
	RunsWithUsage int         `json:"runs_with_usage"`
	RunsBadUsage  int         `json:"runs_bad_usage,omitempty" jsonschema:"runs that gave a token count that is not a whole number from 0 to 2^40; such a count is not summed"`
	InputTokens   int64       `json:"input_tokens"`
	OutputTokens  int64       `json:"output_tokens"`
	CacheCreation int64       `json:"cache_creation_tokens"`
	CacheRead     int64       `json:"cache_read_tokens"`
	TotalTokens   int64       `json:"total_tokens"`
	CostUSD       *float64    `json:"cost_usd" jsonschema:"what the runs cost in USD, priced from their tokens by model (tape prices); null when no run's model has a price"`
	RunsUnpriced  int         `json:"runs_unpriced,omitempty" jsonschema:"runs with usage whose model has no price: not in cost_usd"`
}

// UsageBlock is a 5-hour block's fields (usage.Block), in a group by
// block; a block not active has no burn_rate nor projection (null).
type UsageBlock struct {
	Start      string          `json:"start" jsonschema:"the hour (UTC) of its first run"`
	End        string          `json:"end" jsonschema:"5 hours after its start"`
	FirstRun   string          `json:"first_run"`
	LastRun    string          `json:"last_run"`
	Active     bool            `json:"active" jsonschema:"whether it is now before its end"`
	Models     []string        `json:"models"`
	BurnRate   *BurnRate       `json:"burn_rate" jsonschema:"of the active block, from its first run to its last; null for none"`
	Projection *UsageProjected `json:"projection" jsonschema:"what the active block will have spent at its end at its burn rate; null for none"`
}

// BurnRate is how fast an active block spends.
type BurnRate struct {
	TokensPerMinute float64 `json:"tokens_per_minute"`
	CostPerHour     float64 `json:"cost_per_hour"`
}

// UsageProjected is what an active block comes to at its end.
type UsageProjected struct {
	RemainingMinutes int64   `json:"remaining_minutes"`
	TotalTokens      int64   `json:"total_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// NewUsageBlock is b's JSON form.
func NewUsageBlock(b *usage.Block) *UsageBlock {
	u := &UsageBlock{Start: tapelog.FormatTime(b.Start), End: tapelog.FormatTime(b.End), FirstRun: tapelog.FormatTime(b.FirstRun),
		LastRun: tapelog.FormatTime(b.LastRun), Active: b.Active, Models: append([]string{}, b.Models...)}
	if r := b.Rate; r != nil {
		u.BurnRate = &BurnRate{TokensPerMinute: r.TokensPerMinute, CostPerHour: r.CostPerHour}
		u.Projection = &UsageProjected{RemainingMinutes: r.RemainingMinutes, TotalTokens: r.ProjectedTokens, CostUSD: r.ProjectedCost}
	}
	return u
}

// Cost is a row's cost as JSON: null when no run of it was priced.
func Cost(u usage.Row) *float64 {
	if u.PricedRuns == 0 {
		return nil
	}
	c := u.CostUSD
	return &c
}

// NewUsageGroup returns the JSON form of the sums of a group of runs,
// summed by any of usage.Groupings.
func NewUsageGroup(u usage.Row, by string) UsageGroup {
	r := UsageGroup{Runs: u.Runs, RunsWithUsage: u.WithUsage, RunsBadUsage: u.BadUsage, InputTokens: u.Input, OutputTokens: u.Output,
		CacheCreation: u.CacheCreation, CacheRead: u.CacheRead, TotalTokens: u.Total, CostUSD: Cost(u), RunsUnpriced: u.UnpricedRuns}
	switch by {
	case "tape":
		r.Tape = &u.Tape
	case "anchor":
		r.Tape, r.AnchorSeq, r.Anchor = &u.Tape, &u.AnchorSeq, &u.Anchor
	case "model":
		r.Model = &u.Model
	case "day":
		r.Day = &u.Day
	case "week":
		r.Week = &u.Week
	case "month":
		r.Month = &u.Month
	case "project":
		r.Project = &u.Project
	case "source":
		r.Source = &u.Source
	case "session":
		r.Tape, r.Source, r.SessionID = &u.Tape, &u.Source, &u.SessionID
	case "block":
		if u.Block != nil {
			r.Block = NewUsageBlock(u.Block)
		}
	}
	return r
}

// Append is a new entry, as `tape append --json` prints it.
type Append struct {
	ID        string  `json:"id"`
	Tape      string  `json:"tape"`
	Anchor    string  `json:"anchor"`
	AnchorSeq int64   `json:"anchor_seq"`
	Kind      string  `json:"kind"`
	Date      *string `json:"date"`
	File      string  `json:"file"`
	Offset    int64   `json:"offset"`
}

// NewAppend returns the JSON form of an entry just written.
func NewAppend(e tapelog.Entry) Append {
	return Append{ID: e.ID, Tape: e.Pos.Tape, Anchor: e.Pos.Anchor, AnchorSeq: e.Pos.AnchorSeq, Kind: e.Kind, Date: Optional(e.Date),
		File: e.Pos.Path(), Offset: e.Pos.Offset}
}

// Optional is s, or null when it is "": a date or a name a record may
// not have.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Time is t in RFC 3339 in UTC, or null when it is zero.
func Time(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// Sync is what `tape sync --json` prints: the workspace, the server (its
// URL without its password), and what the sync wrote.
type Sync struct {
	Workspace   string  `json:"workspace"`
	WorkspaceID string  `json:"workspace_id"`
	Server      string  `json:"server"`
	Entries     int     `json:"entries"`
	BadLines    int     `json:"bad_lines"`
	Bytes       int64   `json:"bytes"`
	Files       int     `json:"files"`
	Removed     int     `json:"removed"`
	Tapes       int     `json:"tapes"`
	Seconds     float64 `json:"seconds"`
	Redacted    int     `json:"redacted"` // secrets sent as [REDACTED:<kind>]
}

// ServerWorkspace is a workspace on the team's server, as `tape sync
// --list --json` prints it.
type ServerWorkspace struct {
	Workspace   string  `json:"workspace"`
	WorkspaceID string  `json:"workspace_id"`
	Host        string  `json:"host"`      // the machine it last synced from
	Path        string  `json:"path"`      // its .tape folder there
	SyncedAt    *string `json:"synced_at"` // when its last sync ended; null before its first did
	Tapes       int     `json:"tapes"`
	Here        bool    `json:"here"` // it is the workspace the command ran in
}

// Forget is what `tape sync --forget ID --json` prints: the workspace
// removed from the server.
type Forget struct {
	Workspace   string `json:"workspace"`
	WorkspaceID string `json:"workspace_id"`
	Server      string `json:"server"`
	Tapes       int    `json:"tapes"` // its tapes that were on the server
}

// Restore is what `tape restore --json` prints.
type Restore struct {
	Workspace   string `json:"workspace"`
	WorkspaceID string `json:"workspace_id"`
	Dir         string `json:"dir"`
	Tapes       int    `json:"tapes"`
	Folders     int    `json:"folders"`
	Files       int    `json:"files"`
	Lines       int    `json:"lines"`
	Bytes       int64  `json:"bytes"`
}
