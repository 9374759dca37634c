package main

import (
	"encoding/json"
	"fmt"
	"time"

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

// The view commands: lists from the view tables, paged as a ledger query
// is. Each prints one page (--limit, default 20; --offset), says on stderr
// how many there are when the page does not hold them all, and prints only
// that number with --count. An empty list is not an error (exit 0), as
// with ls.

// pageFlags are the paging flags of the view commands.
type pageFlags struct {
	Limit  int  `short:"n" default:"20" placeholder:"N" help:"Show at most N (0: all)."`
	Offset int  `placeholder:"N" help:"Skip the first N."`
	Count  bool `help:"Print only how many there are, as a number."`
}

func (f pageFlags) page() views.Page { return views.Page{Limit: f.Limit, Offset: f.Offset} }

func (f pageFlags) validate() error {
	if f.Limit < 0 || f.Offset < 0 {
		return usagef("--limit and --offset must not be negative")
	}
	return nil
}

// footer tells a person, on stderr, that the page is not the whole list.
func (f pageFlags) footer(env *Env, shown, total int, what string) {
	if shown == total || (shown == 0 && f.Offset == 0) {
		return
	}
	from := min(f.Offset+1, total)
	fmt.Fprintf(env.Stderr, "tape: %d–%d of %d %s", from, f.Offset+shown, total, what)
	if f.Offset+shown < total {
		fmt.Fprintf(env.Stderr, "; --offset %d for more", f.Offset+shown)
	}
	fmt.Fprintln(env.Stderr)
}

func printCount(env *Env, n int) error {
	if _, err := fmt.Fprintln(env.Stdout, n); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// TapesCmd is `tape tapes`.
type TapesCmd struct {
	Active bool   `help:"Only tapes written to in the last hour."`
	Since  string `placeholder:"WHEN" help:"Only tapes written to since WHEN: RFC 3339 or a duration ago (90m, 2h, 3d)."`
	JSON   bool   `help:"One JSON object per tape and line: name, title, cwd, branch, model, first, last, entries, anchors, forks, source, session_id, parent, cost_usd (for a tape with runs of a priced model; with --remote: workspace, and no forks or cost)."`
	URL    string `arg:"" optional:"" placeholder:"postgres://..." help:"With --remote: the server (default: TAPE_PG_URL, else pg_url in .tape/config.json)."`
	pageFlags
	remoteFlags
}

func (c *TapesCmd) Help() string {
	return `Lists the tapes (sessions) of the workspace, the most recently written first:
when each was last written, its entries and anchors, and its title (the first
user message) and working directory (the first that an entry's meta names, as
cwd, workdir, working_directory or workspace).

Examples:
  tape tapes
  tape tapes --active
  tape tapes --since 3d --json | jq -r .name`
}

func (c *TapesCmd) Validate() error {
	if err := c.remoteFlags.validateURL(c.URL); err != nil {
		return err
	}
	return c.pageFlags.validate()
}

// activeWindow is how recently a tape was written for --active.
const activeWindow = time.Hour

func (c *TapesCmd) Run(env *Env, g *Globals) error {
	now := time.Now()
	since, err := tapelog.ParseWhen(c.Since, now)
	if err != nil {
		return usagef("--since: %v", err)
	}
	if c.Active && (since.IsZero() || since.Before(now.Add(-activeWindow))) {
		since = now.Add(-activeWindow)
	}
	if c.Remote.on {
		return c.runRemote(env, g, since)
	}
	ix, closeAll, err := g.openWorkspaceIndex(env)
	if err != nil {
		return err
	}
	defer closeAll()
	if c.Count {
		n, err := sessions.Count(env.Context(), ix, since)
		if err != nil {
			return err
		}
		return printCount(env, n)
	}
	f := sessions.Filter{Since: since, Page: c.page()}
	if c.JSON {
		return c.streamJSON(env, ix, f)
	}
	got, err := read.ListTapes(env.Context(), ix, f)
	if err != nil {
		return err
	}
	if err := printSessions(env, got.Page); err != nil {
		return err
	}
	c.footer(env, len(got.Page), got.Total, "tapes")
	warnUnlistedTapes(env, got.Unlisted)
	return nil
}

// warnUnlistedTapes says on stderr which names in the tapes folder no
// listing shows although they may hold a tape: symlinks, and folders
// whose names are no tape's. Issue 29 found a symlinked tape left out
// without a word; doctor reports them too.
func warnUnlistedTapes(env *Env, unlisted []tapelog.Problem) {
	for _, p := range unlisted {
		fmt.Fprintf(env.Stderr, "tape: warning: %s: %s; see 'tape doctor'\n", wording.Printable(p.Path), wording.Printable(p.Problem))
	}
}

// printSessions prints a page of tapes as a table with a header: names in
// full, so that one can be pasted into --tape.
func printSessions(env *Env, page []sessions.Session) error { return printSessionsOf(env, page, nil) }

// printSessionsOf is printSessions with a WORKSPACE column first, the
// workspace of each tape, when workspaces is not nil (--remote).
func printSessionsOf(env *Env, page []sessions.Session, workspaces []string) error {
	cols := []column{{title: "NAME"}, {title: "FIRST", drop: 2}, {title: "LAST"}, {title: "ENTRIES", right: true},
		{title: "MODEL", give: 2, min: 12, drop: 3}, {title: "BRANCH", give: 1, min: 8, drop: 4}, {title: "CWD", give: 3, min: 16, head: true, drop: 1},
		{title: "TITLE", give: 4, min: 30}}
	if workspaces != nil {
		cols = append([]column{{title: "WORKSPACE"}}, cols...)
	}
	t := table{header: true, columns: cols}
	minute := func(t time.Time) cell {
		if t.IsZero() {
			return text("-")
		}
		return text(t.UTC().Format("2006-01-02 15:04"))
	}
	for i, s := range page {
		row := []cell{text(s.Name), minute(s.First), minute(s.Last), text(fmt.Sprint(s.Entries)), text(s.Model), text(s.Branch), text(s.CWD), text(s.Title)}
		if workspaces != nil {
			row = append([]cell{text(workspaces[i])}, row...)
		}
		t.add(row...)
	}
	return t.write(env.Stdout, terminalColumns(env.Stdout), env.color)
}

// CallsCmd is `tape calls`.
type CallsCmd struct {
	Status   string `placeholder:"STATUS" values:"pending,completed,failed" help:"Only calls with this status: pending, completed or failed."`
	Name     string `placeholder:"TOOL" help:"Only calls of this tool."`
	AllTapes bool   `name:"all-tapes" help:"Calls of every tape, not only the selected one (see 'tape --help': which tape)."`
	JSON     bool   `help:"One JSON object per call and line: id, tape, anchor, name, arguments, status, called_at, answered_at, duration_ms, result."`
	pageFlags
}

func (c *CallsCmd) Help() string {
	return `Lists tool calls, the newest first, with what became of them: pending (no
result yet), completed, or failed (an error entry answered it, or its result
says it failed: "is_error": true, an "error", a "status" of error or failed, or
text that starts with "Error:"). A result is paired with the call whose id it
carries (tool_call_id, tool_use_id, call_id), else by position, as Bub pairs
them; a result whose id no waiting call has is named on stderr.

Examples:
  tape calls --status pending
  tape calls --name bash --all-tapes -n 50
  tape calls --status failed --json | jq -r '.name + " " + (.result|tostring)'`
}

func (c *CallsCmd) Validate() error {
	switch c.Status {
	case "", "pending", "completed", "failed":
	default:
		return usagef("--status %q: want pending, completed or failed", c.Status)
	}
	return c.validate()
}

func (c *CallsCmd) Run(env *Env, g *Globals) error {
	t, ix, closeAll, err := g.openIndexed(env, anyTapes, c.AllTapes)
	if err != nil {
		return err
	}
	defer closeAll()
	f := calls.Filter{Tape: nameOf(t), Status: c.Status, Name: c.Name, Page: c.page()}
	if c.Count {
		f.Page = views.Page{Limit: 1}
	}
	got, err := read.ListCalls(env.Context(), ix, f)
	if err != nil {
		return err
	}
	listed, total := got.Page, got.Total
	if total == 0 {
		hintDefaultOnly(env, g, ix.Workspace(), t, "was read", "lists the calls of")
	}
	if c.Count {
		return printCount(env, total)
	}
	for _, le := range got.Stale {
		warnLine(env.Stderr, le) //nolint:errcheck // a warning; the call is printed without it
	}
	warnOrphans(env, got)
	if !c.JSON {
		if err := printCalls(env, listed, f.Tape == ""); err != nil {
			return err
		}
		c.footer(env, len(listed), total, "calls")
		return nil
	}
	out := newJSONLines(env.Stdout)
	for _, call := range listed {
		if err := out.write(records.NewCall(call)); err != nil {
			return err
		}
	}
	c.footer(env, len(listed), total, "calls")
	return nil
}

// printCalls prints calls as a table with a header: where each is (its
// tape when the list holds more than one tape's, its anchor and id, in
// full, as --tape, --anchor and jq take them), when it was called, what
// became of it, and the call itself, which gives way first to fit a
// terminal. Its arguments are a payload, not a name: they are cut at
// summaryWidth, piped or not, as tape log cuts an entry (a Write's
// arguments hold a whole file).
func printCalls(env *Env, listed []calls.Listed, manyTapes bool) error {
	cols := []column{{title: "CALLED", drop: 2}, {title: "STATUS"}, {title: "TOOK", right: true, drop: 3}, {title: "ANCHOR", give: 1, min: 8, drop: 1},
		{title: "ID"}, {title: "CALL", give: 2, min: 24}}
	if manyTapes {
		cols = append([]column{{title: "TAPE"}}, cols...)
	}
	t := table{header: true, columns: cols}
	for _, call := range listed {
		when, took := "-", ""
		if call.CalledAt != "" {
			when = shortDate(call.CalledAt)
		}
		if call.DurationMS != nil {
			took = (time.Duration(*call.DurationMS) * time.Millisecond).String()
		}
		args := read.CompactJSON(call.Arguments)
		var s string
		if json.Unmarshal(call.Arguments, &s) == nil {
			args = s
		}
		row := []cell{text(when), painted(statusColors[call.Status], call.Status), text(took), text(call.Anchor), text(call.ID), text(call.Name + "(" + oneLine(args, summaryWidth) + ")")}
		if manyTapes {
			row = append([]cell{text(call.Tape)}, row...)
		}
		t.add(row...)
	}
	return t.write(env.Stdout, terminalColumns(env.Stdout), env.color)
}

var statusColors = map[string]string{"pending": "\x1b[33m", "completed": "\x1b[32m", "failed": "\x1b[31m"}

// UsageCmd is `tape usage`.
type UsageCmd struct {
	By          string `default:"tape" enum:"tape,anchor,model,day,week,month,project,source,session,block,workspace" help:"Sum by tape, anchor, model, day, week, month, project (the git root of the session's cwd), source (the agent), session (an agent's session, with the subagents that share its id, as Claude Code's do), or block (5-hour billing windows, as Claude's plans count them); with --remote, by workspace, tape, model or day (UTC)."`
	AllTapes    bool   `name:"all-tapes" help:"Sum every tape, not only the selected one (see 'tape --help': which tape)."`
	Since       string `placeholder:"WHEN" help:"Only runs from WHEN on: a date (2026-11-01 or 20261101: the start of that day in --timezone), RFC 3339, or a duration ago (12h, 7d)."`
	Until       string `placeholder:"WHEN" help:"Only runs before WHEN: a date (that day included), RFC 3339, or a duration ago."`
	Timezone    string `placeholder:"ZONE" help:"The time zone of days, weeks, months and dates: an IANA name (Asia/Shanghai, America/New_York) or UTC (default: the local zone, as TZ sets it)."`
	StartOfWeek string `name:"start-of-week" default:"monday" enum:"monday,tuesday,wednesday,thursday,friday,saturday,sunday" help:"The first day of a week, for --by week."`
	JSON        bool   `help:"One JSON object per group and line: the group (tape; tape, anchor_seq and anchor; model; day; week; month; project; source; tape, source and session_id; block: start, end, first_run, last_run, active, models, burn_rate and projection; with --remote, workspace, or workspace and tape), runs, runs_with_usage, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, total_tokens, cost_usd (null when no run's model has a price; tape prices)."`
	URL         string `arg:"" optional:"" placeholder:"postgres://..." help:"With --remote: the server (default: TAPE_PG_URL, else pg_url in .tape/config.json)."`
	pageFlags
	remoteFlags

	zone         *time.Location
	since, until time.Time
}

func (c *UsageCmd) Help() string {
	return `Sums the token usage that run events report ({"name": "run", "data":
{"status", "model", "usage": {...}}}, as Bub writes them; prompt_tokens and
completion_tokens, or input_tokens, output_tokens, cache_creation_input_tokens
and cache_read_input_tokens, as Anthropic and imported sessions write them).
The selected tape, as every read command (--tape, --session; --all-tapes
for every tape, which is also what it sums when no tape is named and the
default tape does not exist). Runs that reported no usage are counted as
runs. Runs that share a usage_id (a request an agent reported more than
once) count once: the one with the largest total. 'tape import' records the
usage of the sessions it imports, of every agent 'tape sources' lists.

Each group's cost is priced from its runs' tokens by model when read (tape
prices). Days, weeks and months are of the local time zone (--timezone);
their pages, and blocks', count from the newest, printed in time order. A
block starts at the hour of the first run after the last block and lasts 5
hours (as ccusage blocks): the active one shows its burn rate and what it
will have cost at its end.

Examples:
  tape usage --all-tapes --by model
  tape usage --all-tapes --by day --since 7d
  tape usage --all-tapes --by block -n 3
  tape usage --all-tapes --by project --since 2026-11-01 --until 2026-11-30
  tape usage -t main --by anchor --json | jq .total_tokens`
}

func (c *UsageCmd) Validate() error {
	if c.By == "workspace" && !c.Remote.on {
		return usagef("--by workspace is for --remote: a workspace here has one workspace")
	}
	if err := c.readTimes(time.Now()); err != nil {
		return err
	}
	if err := c.remoteFlags.validateURL(c.URL); err != nil {
		return err
	}
	return c.pageFlags.validate()
}

func (c *UsageCmd) Run(env *Env, g *Globals) error {
	if c.Remote.on {
		return c.runRemote(env, g)
	}
	t, ix, closeAll, err := g.openIndexed(env, anyTapes, c.AllTapes)
	if err != nil {
		return err
	}
	defer closeAll()
	weekStart := weekdays[c.StartOfWeek]
	f := usage.Filter{Tape: nameOf(t), By: c.By, Page: c.page(), Prices: loadPrices(env),
		Since: c.since, Until: c.until, Zone: c.zone, WeekStart: &weekStart}
	got, err := read.SumUsage(env.Context(), ix, f)
	if err != nil {
		return err
	}
	rows, total := got.Rows, got.Total
	if total == 0 {
		if err := c.sayNoneRecorded(env, g, ix, t); err != nil {
			return err
		}
	}
	if c.Count {
		return printCount(env, total)
	}
	warnBadUsage(env, got.BadUsage)
	warnUnpriced(env, got.Unpriced)
	if !c.JSON {
		if err := c.print(env, rows); err != nil {
			return err
		}
		c.footer(env, len(rows), total, "groups")
		return nil
	}
	out := newJSONLines(env.Stdout)
	for _, u := range rows {
		if err := out.write(records.NewUsageGroup(u, c.By)); err != nil {
			return err
		}
	}
	c.footer(env, len(rows), total, "groups")
	return nil
}

// sayNoneRecorded tells a person, on stderr, that the tapes read hold no
// run event, and what would: the other tapes, when only the default tape
// was read and they hold some, else the importers and an agent's own run
// events (docs/FORMAT.md). stdout stays empty, valid JSON lines.
func (c *UsageCmd) sayNoneRecorded(env *Env, g *Globals, ix *projector.Projector, t *tapelog.Tape) error {
	where := "this workspace"
	if t != nil {
		where = "tape " + wording.Printable(t.Name())
	}
	fmt.Fprintf(env.Stderr, "tape: no token usage recorded in %s: it holds no \"run\" event\n", where)
	if g.defaultScope(t) {
		elsewhere, err := usage.Total(env.Context(), ix, nil)
		if err != nil {
			return err
		}
		if runs := elsewhere.Runs; runs > 0 {
			fmt.Fprintf(env.Stderr, "hint: --all-tapes sums every tape (%s)\n", wording.Plural(runs, "run", "runs"))
			return nil
		}
	}
	fmt.Fprintln(env.Stderr, `hint: tape import records what the sessions of the agents it finds spent (tape sources lists them); an agent records its own as a "run" event (docs/FORMAT.md, section 3, "Events the views read")`)
	return nil
}

// warnBadUsage says on stderr how many of the runs summed gave a token
// count that is not one, which the sums leave out (views.MaxRunTokens).
func warnBadUsage(env *Env, bad int) {
	if w := read.BadUsageWarning(bad); w != "" {
		fmt.Fprintf(env.Stderr, "tape: warning: %s (runs_bad_usage in --json)\n", w)
	}
}

// print prints the sums as a table, each number with its unit: the group
// first, in full (a tape's name is never cut; an anchor's and a model's
// give way to fit a terminal).
func (c *UsageCmd) print(env *Env, rows []usage.Row) error {
	t := table{columns: c.usageColumns()}
	for _, u := range rows {
		t.add(append(c.group(u), usageCells(u)...)...)
	}
	return t.write(env.Stdout, terminalColumns(env.Stdout), env.color)
}

// usageColumns are the table's columns: the group's, then the sums'.
func (c *UsageCmd) usageColumns() []column {
	var cols []column
	switch {
	case c.By == "anchor":
		cols = []column{{}, {tight: true}, {tight: true, give: 1, min: 12}}
	case c.By == "model" || c.By == "project":
		cols = []column{{give: 1, min: 12}}
	case c.By == "session":
		cols = []column{{give: 1, min: 12}, {}}
	case c.By == "block":
		cols = []column{{}, {give: 1, min: 8}}
	case c.By == "tape" && c.Remote.on:
		cols = []column{{}, {}}
	default:
		cols = []column{{}}
	}
	for range 7 {
		cols = append(cols, column{right: true})
	}
	return cols
}

// usageCells are the sums of a group, as the table shows them.
func usageCells(u usage.Row) []cell {
	return []cell{counted(u.Runs, "run", "runs"), text(fmt.Sprintf("%d in", u.Input)), text(fmt.Sprintf("%d out", u.Output)),
		text(fmt.Sprintf("%d cache write", u.CacheCreation)), text(fmt.Sprintf("%d cache read", u.CacheRead)), text(fmt.Sprintf("%d total", u.Total)),
		text(dollars(u.CostUSD, u.PricedRuns > 0))}
}

// group is the cells that name a row's group: its tape, anchor (tape,
// seq and name), model or day.
func (c *UsageCmd) group(u usage.Row) []cell {
	switch c.By {
	case "anchor":
		return []cell{text(u.Tape), text(fmt.Sprintf("%03d", u.AnchorSeq)), text(u.Anchor)}
	case "model":
		return []cell{text(u.Model)}
	case "day":
		return []cell{text(orNone(u.Day, "(no date)"))}
	case "week":
		return []cell{text(orNone(u.Week, "(no date)"))}
	case "month":
		return []cell{text(orNone(u.Month, "(no date)"))}
	case "project":
		return []cell{text(orNone(u.Project, "(no cwd)"))}
	case "source":
		return []cell{text(orNone(u.Source, "(not imported)"))}
	case "session":
		return []cell{text(u.Tape), text(orNone(u.Source, "(not imported)"))}
	case "block":
		if u.Block != nil {
			return blockCells(u.Block, c.zone)
		}
	}
	return []cell{text(u.Tape)}
}

// warnOrphans says on stderr which tool results answer no call: each
// carries a call id that no waiting call has, so it is paired with none
// (views/pairing.go). A few are named, with the count of all.
func warnOrphans(env *Env, got read.Calls) {
	if w := got.OrphansWarning(); w != "" {
		fmt.Fprintf(env.Stderr, "tape: warning: %s; their call ids match no call waiting for a result\n", wording.Printable(w))
	}
}

// MessagesCmd is `tape messages`.
type MessagesCmd struct {
	JSON bool `help:"One JSON object per message and line, as tape log --json prints entries."`
	pageFlags
}

func (c *MessagesCmd) Help() string {
	return `Lists the chat messages of a tape in order, a page at a time: who said
what, across every anchor.

Examples:
  tape messages
  tape messages --offset 20 -n 20
  tape messages -n 0 --json | jq -r '.payload.role + ": " + (.payload.content|tostring)'`
}

func (c *MessagesCmd) Validate() error { return c.validate() }

func (c *MessagesCmd) Run(env *Env, g *Globals) error {
	t, ix, closeAll, err := g.openIndexed(env, oneTape, false)
	if err != nil {
		return err
	}
	defer closeAll()
	pg := c.page()
	if c.Count {
		pg = views.Page{Limit: 1}
	}
	msgs, total, errs, err := ix.Messages(env.Context(), t.Name(), pg)
	if err != nil {
		return err
	}
	if c.Count {
		return printCount(env, total)
	}
	for _, le := range errs {
		warnLine(env.Stderr, le) //nolint:errcheck // a warning; the others are printed
	}
	out := newJSONLines(env.Stdout)
	for _, m := range msgs {
		if m.Payload == nil {
			continue
		}
		if c.JSON {
			if err := out.writeRecord(records.NewEntry(m)); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(env.Stdout, "%s  %s\n", env.color.paint(sgrDim, fmt.Sprintf("%-8s", clock(m))), oneLine(read.Summary(m), 200)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	c.footer(env, len(msgs), total, "messages")
	if total == 0 {
		hintEmptyDefault(env, g, t)
	}
	return nil
}
