package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// The tools that list a view: tapes, calls, usage. Each returns one page
// (limit, offset) and how many there are in all, as the CLI's view
// commands do.

// page checks the paging arguments of a view.
func page(limit, offset int) (views.Page, error) {
	limit, err := checkLimit(limit, defaultPage, maxPage)
	if err != nil {
		return views.Page{}, err
	}
	if offset < 0 {
		return views.Page{}, fmt.Errorf("offset %d: want 0 or more", offset)
	}
	return views.Page{Limit: limit, Offset: offset}, nil
}

// titleRunes bounds a title in the tapes tool's text: a title the index
// cut is the whole first prompt read back, and the text is what a model
// reads. The structured content keeps it whole.
const titleRunes = 200

// more says, in a text form, that a page does not hold the whole list.
func more(text *strings.Builder, pg views.Page, shown, total int, what string) {
	if pg.Offset+shown < total {
		fmt.Fprintf(text, "(%d–%d of %d %s; offset %d for more)\n", min(pg.Offset+1, total), pg.Offset+shown, total, what, pg.Offset+shown)
	}
}

type tapesArgs struct {
	Since  string `json:"since,omitempty" jsonschema:"Only tapes written to since then: RFC 3339 or a duration ago (90m, 2h, 3d, 1w)."`
	Limit  int    `json:"limit,omitempty" jsonschema:"At most this many tapes, 1 to 1000 (default 50)."`
	Offset int    `json:"offset,omitempty" jsonschema:"Skip the first this many (the next page)."`
}

type tapesResult struct {
	Tapes    []records.Tape `json:"tapes" jsonschema:"the most recently written first"`
	Total    int            `json:"total"`
	Warnings []string       `json:"warnings,omitempty" jsonschema:"names in the tapes folder that may hold a tape and that no listing shows, each with its fix"`
}

func (s *server) addTapes(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "tapes", Title: "List the sessions", Annotations: readOnly,
		Description: `The tapes (sessions) of the workspace, the most recently written first: each one's name (what the other tools' "tape" argument takes), title, working directory, git branch, model, dates and counts.`},
		s.tapes)
}

func (s *server) tapes(ctx context.Context, a tapesArgs) (tapesResult, string, error) {
	since, err := tapelog.ParseWhen(a.Since, time.Now())
	if err != nil {
		return tapesResult{}, "", fmt.Errorf("since: %w", err)
	}
	pg, err := page(a.Limit, a.Offset)
	if err != nil {
		return tapesResult{}, "", err
	}
	res, err := served(ctx, s, func(ix *projector.Projector) (tapesResult, error) {
		got, err := read.ListTapes(ctx, ix, sessions.Filter{Since: since, Page: pg})
		res := tapesResult{Tapes: make([]records.Tape, 0, len(got.Page)), Total: got.Total}
		for _, p := range got.Unlisted {
			res.Warnings = append(res.Warnings, p.Path+": "+p.Problem)
		}
		for _, t := range got.Page {
			// Without its count of forks, which reads the files of every
			// tape listed.
			res.Tapes = append(res.Tapes, records.NewTape(t))
		}
		return res, err
	})
	if err != nil {
		return tapesResult{}, "", err
	}
	var text strings.Builder // a title in the text is cut; the structured title is whole
	for _, t := range res.Tapes {
		last := "-"
		if t.Last != nil {
			last = *t.Last
		}
		fmt.Fprintf(&text, "%s  %s  %s  %s\n", t.Name, last, wording.Plural(t.Entries, "entry", "entries"), wording.OneLine(t.Title, titleRunes))
	}
	more(&text, pg, len(res.Tapes), res.Total, "tapes")
	warn(&text, res.Warnings)
	return res, text.String(), nil
}

type callsArgs struct {
	Status   string `json:"status,omitempty" jsonschema:"Only calls with this status: pending (no result yet), completed or failed."`
	Name     string `json:"name,omitempty" jsonschema:"Only calls of this tool."`
	Tape     string `json:"tape,omitempty" jsonschema:"Only the calls of this tape. Left out: the workspace's default tape, or every tape when there is no default tape."`
	AllTapes bool   `json:"all_tapes,omitempty" jsonschema:"The calls of every tape; not with \"tape\"."`
	Limit    int    `json:"limit,omitempty" jsonschema:"At most this many calls, 1 to 1000 (default 50)."`
	Offset   int    `json:"offset,omitempty" jsonschema:"Skip the first this many (the next page)."`
}

type callsResult struct {
	Calls    []records.Call `json:"calls" jsonschema:"the newest first"`
	Total    int            `json:"total"`
	Warnings []string       `json:"warnings,omitempty" jsonschema:"lines of calls that changed since they were read (the call is listed without them), and results that answer no call"`
}

func (s *server) addCalls(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "calls", Title: "List tool calls", Annotations: readOnly,
		Description: `The tool calls agents made, the newest first, with what became of each: pending (no result yet), completed, or failed; its arguments, result, and how long it took. Use it to find what failed, or what is still waiting.`},
		s.calls)
}

func (s *server) calls(ctx context.Context, a callsArgs) (callsResult, string, error) {
	switch a.Status {
	case "", "pending", "completed", "failed":
	default:
		return callsResult{}, "", fmt.Errorf("status %q: want pending, completed or failed", a.Status)
	}
	pg, err := page(a.Limit, a.Offset)
	if err != nil {
		return callsResult{}, "", err
	}
	tape, err := s.scope(a.Tape, tapelog.AnyTapes, a.AllTapes)
	if err != nil {
		return callsResult{}, "", err
	}
	res, err := served(ctx, s, func(ix *projector.Projector) (callsResult, error) {
		got, err := read.ListCalls(ctx, ix, calls.Filter{Tape: tape, Status: a.Status, Name: a.Name, Page: pg})
		res := callsResult{Calls: make([]records.Call, 0, len(got.Page)), Total: got.Total, Warnings: warnings(got.Stale)}
		if w := got.OrphansWarning(); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
		for _, c := range got.Page {
			res.Calls = append(res.Calls, records.NewCall(c))
		}
		return res, err
	})
	if err != nil {
		return callsResult{}, "", err
	}
	var text strings.Builder
	for _, c := range res.Calls {
		fmt.Fprintf(&text, "%s  %s  %s  %s  %s(%s)\n", c.Tape, c.ID, c.Status, deref(c.CalledAt), c.Name, wording.OneLine(string(c.Arguments), 200))
	}
	more(&text, pg, len(res.Calls), res.Total, "calls")
	if res.Total == 0 {
		text.WriteString("no calls\n")
	}
	warn(&text, res.Warnings)
	return res, text.String(), nil
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

type usageArgs struct {
	By       string `json:"by,omitempty" jsonschema:"Sum by tape (the default), anchor, model, day, week or month (UTC), project (the git root of a session's cwd), source (the agent), session (an agent's session id, its subagents with it when they share it) or block (Claude's 5-hour billing windows)."`
	Since    string `json:"since,omitempty" jsonschema:"Only runs from this time on: RFC 3339, a date (UTC), or a duration ago (12h, 7d)."`
	Until    string `json:"until,omitempty" jsonschema:"Only runs before this time: RFC 3339, a date (UTC), or a duration ago."`
	Tape     string `json:"tape,omitempty" jsonschema:"Only this tape. Left out: the workspace's default tape, or every tape when there is no default tape."`
	AllTapes bool   `json:"all_tapes,omitempty" jsonschema:"Sum every tape; not with \"tape\"."`
	Limit    int    `json:"limit,omitempty" jsonschema:"At most this many groups, 1 to 1000 (default 50)."`
	Offset   int    `json:"offset,omitempty" jsonschema:"Skip the first this many (the next page)."`
}

type usageResult struct {
	By       string               `json:"by"`
	Groups   []records.UsageGroup `json:"groups"`
	Total    int                  `json:"total" jsonschema:"how many groups there are"`
	Warnings []string             `json:"warnings,omitempty" jsonschema:"runs whose token counts were not summed"`
}

func (s *server) addUsage(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "usage", Title: "Sum token usage", Annotations: readOnly,
		Description: `The tokens agents spent, from the run events they recorded (and that tape import records for Claude Code and Codex sessions), summed by tape, anchor, model, day, week, month, project, source, session or 5-hour block: runs, input, output, cache and total tokens, and what they cost in USD.`},
		s.usage)
}

func (s *server) usage(ctx context.Context, a usageArgs) (usageResult, string, error) {
	if a.By == "" {
		a.By = "tape"
	}
	if !slices.Contains(usage.Groupings, a.By) {
		return usageResult{}, "", fmt.Errorf("by %q: want one of %s", a.By, strings.Join(usage.Groupings, ", "))
	}
	now := time.Now()
	since, err := tapelog.ParseWhen(a.Since, now)
	if err != nil {
		return usageResult{}, "", fmt.Errorf("since: %w", err)
	}
	until, err := tapelog.ParseWhen(a.Until, now)
	if err != nil {
		return usageResult{}, "", fmt.Errorf("until: %w", err)
	}
	pg, err := page(a.Limit, a.Offset)
	if err != nil {
		return usageResult{}, "", err
	}
	tape, err := s.scope(a.Tape, tapelog.AnyTapes, a.AllTapes)
	if err != nil {
		return usageResult{}, "", err
	}
	got, err := served(ctx, s, func(ix *projector.Projector) (read.Usage, error) {
		return read.SumUsage(ctx, ix, usage.Filter{Tape: tape, By: a.By, Page: pg, Prices: s.opts.Prices, Since: since, Until: until})
	})
	if err != nil {
		return usageResult{}, "", err
	}
	res := usageResult{By: a.By, Groups: make([]records.UsageGroup, 0, len(got.Rows)), Total: got.Total}
	var text strings.Builder
	for _, u := range got.Rows {
		group := u.Tape
		switch a.By {
		case "anchor":
			group = fmt.Sprintf("%s %03d %s", u.Tape, u.AnchorSeq, u.Anchor)
		case "model":
			group = u.Model
		case "day", "week", "month":
			group = u.Day + u.Week + u.Month
		case "project":
			group = u.Project
		case "source":
			group = u.Source
		case "session":
			group = u.Tape + " " + u.Source + " " + u.SessionID
		case "block":
			if b := u.Block; b != nil {
				group = b.Start.Format(time.RFC3339)
				if b.Active {
					group += " (active)"
				}
			}
		}
		res.Groups = append(res.Groups, records.NewUsageGroup(u, a.By))
		fmt.Fprintf(&text, "%s  %s  %d in  %d out  %d cache write  %d cache read  %d total", group, wording.Plural(u.Runs, "run", "runs"),
			u.Input, u.Output, u.CacheCreation, u.CacheRead, u.Total)
		if u.PricedRuns > 0 {
			text.WriteString("  " + wording.Dollars(u.CostUSD))
		}
		text.WriteString("\n")
	}
	more(&text, pg, len(res.Groups), res.Total, "groups")
	if res.Total == 0 {
		text.WriteString(`no token usage recorded: no "run" event`)
		text.WriteString("\n")
	}
	if w := read.BadUsageWarning(got.BadUsage); w != "" {
		res.Warnings = []string{w + " (runs_bad_usage)"}
	}
	if w := read.UnpricedWarning(got.Unpriced); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	warn(&text, res.Warnings)
	return res, text.String(), nil
}

// warn writes each warning on a line of the text a client reads, on one
// line whatever it holds: a folder's name or a call's id could otherwise
// start a line that reads as the server's.
func warn(text *strings.Builder, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(text, "warning: %s\n", wording.OneLine(w, 0))
	}
}
