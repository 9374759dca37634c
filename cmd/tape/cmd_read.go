package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
)

// LogCmd is `tape log`.
type LogCmd struct {
	All    bool     `short:"a" help:"The whole tape, the anchor entries included at their place."`
	From   string   `placeholder:"ANCHOR" help:"Start at this anchor (folder, seq, name or slug) instead of the current one."`
	To     string   `placeholder:"ANCHOR" help:"End with this anchor, included (default: the last)."`
	Kind   []string `short:"k" placeholder:"KIND" help:"Only entries of these kinds (repeat, or separate with commas)."`
	Limit  int      `short:"n" placeholder:"N" help:"Only the last N entries."`
	JSON   bool     `help:"One JSON object per entry and line: id, tape, anchor, anchor_seq, kind, date, payload, meta, file, line."`
	Follow bool     `short:"f" help:"Then print entries as they are written, new anchors included, until interrupted (as tail -f)."`
}

func (c *LogCmd) Help() string {
	return `Prints the entries of the tape's current (last) anchor, starting with the
anchor itself, in tape order. Lines that cannot be read are reported on stderr
and skipped.

Examples:
  tape log
  tape log --all --kind tool_call -n 20
  tape log --from review --to 5
  tape log --all --json | jq -r 'select(.kind=="message") | .payload.content'
  tape log -f -n 20         # the last 20, then what agents write, as tail -f

With -f, entries are printed in the order they arrive: a line written late
with an early date (or none) comes last here, where 'tape log' sorts it
among the others.`
}

func (c *LogCmd) Run(env *Env, g *Globals) error {
	if c.Follow {
		return c.follow(env, g)
	}
	_, err := c.read(env, g)
	return err
}

// read prints what the flags select and returns the entries it printed.
func (c *LogCmd) read(env *Env, g *Globals) ([]tapelog.Entry, error) {
	pick := read.Pick{All: c.All, From: c.From, To: c.To}
	return readEntries(env, g, entryFilter{kinds: splitKinds(c.Kind), last: c.Limit, json: c.JSON}, pick)
}

// ShowCmd is `tape show`.
type ShowCmd struct {
	Anchor string   `arg:"" help:"The anchor: its folder (002_plan), seq (2), name or slug; a repeated name means the last."`
	Kind   []string `short:"k" placeholder:"KIND" help:"Only entries of these kinds (repeat, or separate with commas)."`
	Limit  int      `short:"n" placeholder:"N" help:"Only the last N entries."`
	JSON   bool     `help:"One JSON object per entry and line, as tape log --json."`
}

func (c *ShowCmd) Help() string {
	return `Prints the entries of one anchor, starting with the anchor itself.

Examples:
  tape show session/start
  tape show 2 --json`
}

func (c *ShowCmd) Run(env *Env, g *Globals) error {
	_, err := readEntries(env, g, entryFilter{kinds: splitKinds(c.Kind), last: c.Limit, json: c.JSON}, read.Pick{One: c.Anchor})
	return err
}

func (c *LogCmd) Validate() error {
	if c.All && (c.From != "" || c.To != "") {
		return usagef("--all reads the whole tape; give it or --from/--to, not both")
	}
	if c.Follow && c.To != "" {
		return usagef("-f follows the tape past its last anchor; --to would end it, give one or the other")
	}
	return validateLimit(c.Limit)
}
func (c *ShowCmd) Validate() error { return validateLimit(c.Limit) }

func validateLimit(n int) error {
	if n < 0 {
		return usagef("-n must be a positive number of entries")
	}
	return nil
}

// entryFilter is what the read commands keep of the entries they read.
type entryFilter struct {
	kinds []string // empty: all
	last  int      // 0: all
	json  bool
}

func splitKinds(flags []string) []string {
	var kinds []string
	for _, f := range flags {
		for k := range strings.SplitSeq(f, ",") {
			if k = strings.TrimSpace(k); k != "" {
				kinds = append(kinds, k)
			}
		}
	}
	return kinds
}

// readEntries prints the entries of the anchors pick selects, read
// through the index, and returns them.
func readEntries(env *Env, g *Globals, f entryFilter, pick read.Pick) ([]tapelog.Entry, error) {
	t, ix, closeAll, err := g.openIndexed(env, oneTape, false)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	got, err := read.ReadEntries(env.Context(), ix, read.EntryQuery{Tape: t.Name(), Pick: pick, Kinds: f.kinds, Last: f.last})
	if err != nil {
		return nil, anchorHint(err)
	}
	unreadable, err := warnLines(env, got.Unread())
	if err != nil {
		return nil, err
	}
	if err := printEntries(env, got.Entries, f.json); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(got.Entries, func(e tapelog.Entry) bool { return e.Kind != tapelog.KindAnchor }) {
		hintEmptyDefault(env, g, t)
	}
	return got.Entries, unreadable
}

// anchorHint says what to do of an anchor a read named that is not
// there; any other error it returns as it is.
func anchorHint(err error) error {
	if errors.Is(err, tapelog.ErrNoAnchor) {
		return fmt.Errorf("%w; 'tape anchors' lists them", err)
	}
	return err
}

// warnLines reports lines that could not be read on stderr, and returns
// errUnreadable if a whole file could not be read.
func warnLines(env *Env, lines []error) (unreadable, err error) {
	for _, le := range lines {
		if err := warnLine(env.Stderr, le); errors.Is(err, errUnreadable) {
			unreadable = err
		} else if err != nil {
			return nil, err
		}
	}
	return unreadable, nil
}

func printEntries(env *Env, entries []tapelog.Entry, asJSON bool) error {
	if asJSON {
		out := newJSONLines(env.Stdout)
		for _, e := range entries {
			if err := out.writeRecord(records.NewEntry(e)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, e := range entries {
		if _, err := fmt.Fprintln(env.Stdout, humanEntry(e, env.color)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

// AnchorsCmd is `tape anchors`.
type AnchorsCmd struct {
	JSON bool `help:"One JSON object per anchor and line: name, seq, state, date, entries, folder, tape."`
}

func (c *AnchorsCmd) Help() string {
	return `Lists the anchors (phases) of the tape in order, with the number of entries
each holds besides its anchor entry.

Example:
  tape anchors --json | jq -r '.name'`
}

func (c *AnchorsCmd) Run(env *Env, g *Globals) error {
	t, ix, closeAll, err := g.openIndexed(env, oneTape, false)
	if err != nil {
		return err
	}
	defer closeAll()
	anchors, err := read.ListAnchors(env.Context(), ix, t.Name())
	if err != nil {
		return err
	}
	if c.JSON {
		out := newJSONLines(env.Stdout)
		for _, a := range anchors {
			if err := out.write(a); err != nil {
				return err
			}
		}
		return nil
	}
	return printAnchors(env, anchors)
}

// printAnchors prints anchors as a table with a header, names in full, as
// --anchor and tape show take them; a state, a payload that can hold a
// whole summary, is cut at summaryWidth, and gives way to fit a terminal.
func printAnchors(env *Env, anchors []records.Anchor) error {
	tab := table{header: true, columns: []column{{title: "SEQ"}, {title: "NAME", give: 1, min: 16}, {title: "ENTRIES", right: true},
		{title: "DATE", drop: 1}, {title: "STATE", give: 2, min: 16}}}
	for _, r := range anchors {
		date := ""
		if r.Date != nil {
			date = shortDate(*r.Date)
		}
		state := read.CompactJSON(r.State)
		if state == "{}" {
			state = ""
		}
		name := r.Name
		if r.Unanchored {
			name = "(before the first anchor)"
		}
		tab.add(text(fmt.Sprintf("%03d", r.Seq)), text(name), text(fmt.Sprint(r.Entries)), text(date), text(oneLine(state, summaryWidth)))
	}
	return tab.write(env.Stdout, terminalColumns(env.Stdout), env.color)
}
