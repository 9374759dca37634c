package read

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/pricing"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// The pages of the views (tapes, calls, usage), each with the warnings
// that go with it. A view's query answers the page; what this file adds
// is the rule that every front end warns of the same things beside it
// (decision 0076): the names in the tapes folder no listing shows, the
// call records whose lines changed since they were read and the results
// that answer no call, the runs whose token counts were not summed.

// Tapes is a page of tapes.
type Tapes struct {
	Page  []sessions.Session
	Total int // the tapes the filter selects, in all pages
	// Unlisted are the names in the tapes folder that may hold a tape and
	// that no listing shows (tapelog.Workspace.UnreadTapeFolders), each
	// with its fix.
	Unlisted []tapelog.Problem
}

// ListTapes reads a page of the sessions view.
func ListTapes(ctx context.Context, ix *projector.Projector, f sessions.Filter) (Tapes, error) {
	var page []sessions.Session
	got, err := EachTape(ctx, ix, f, func(s sessions.Session) error {
		page = append(page, s)
		return nil
	})
	if err != nil {
		return Tapes{}, err
	}
	got.Page = page
	return got, nil
}

// EachTape is ListTapes that hands each tape of the page to fn as it is
// read (sessions.Each), and returns the rest without the page: a listing
// of every tape writes its rows as they come. The tapes folder is listed
// first, so that a folder that cannot be listed fails the listing before
// fn sees a row, as it fails ListTapes.
func EachTape(ctx context.Context, ix *projector.Projector, f sessions.Filter, fn func(sessions.Session) error) (Tapes, error) {
	unlisted, err := ix.Workspace().UnreadTapeFolders()
	if err != nil {
		return Tapes{}, fmt.Errorf("list the tapes folder: %w", err)
	}
	total, err := sessions.Each(ctx, ix, f, fn)
	if err != nil {
		return Tapes{}, err
	}
	return Tapes{Total: total, Unlisted: unlisted}, nil
}

// orphansShown is how many of the results that answer no call a page of
// calls names; Calls.OrphansTotal says how many there are.
const orphansShown = 3

// Calls is a page of tool calls.
type Calls struct {
	Page  []calls.Listed
	Total int // the calls the filter selects, in all pages
	// Stale are the lines of calls or results that changed since the index
	// read them; each call is listed without them.
	Stale []error
	// Orphans are the first results of the filter's tape (or of every
	// tape) that answer no call, OrphansTotal how many there are.
	Orphans      []calls.Orphan
	OrphansTotal int
}

// ListCalls reads a page of the tool-call view.
func ListCalls(ctx context.Context, ix *projector.Projector, f calls.Filter) (Calls, error) {
	page, total, stale, err := calls.List(ctx, ix, f)
	if err != nil {
		return Calls{}, err
	}
	orphans, n, err := calls.Orphans(ctx, ix, f.Tape, orphansShown)
	if err != nil {
		return Calls{}, err
	}
	return Calls{Page: page, Total: total, Stale: stale, Orphans: orphans, OrphansTotal: n}, nil
}

// Usage is a page of token sums.
type Usage struct {
	Rows  []usage.Row
	Total int // the groups the filter selects, in all pages
	// BadUsage is how many runs of the page's groups gave a token count
	// that is not a whole number from 0 to 2^40, and were not summed.
	BadUsage int
	// Unpriced are the models of runs with usage that the filter's price
	// table does not price: their runs have no cost.
	Unpriced []string
}

// SumUsage reads a page of the usage view, priced by f.Prices.
func SumUsage(ctx context.Context, ix *projector.Projector, f usage.Filter) (Usage, error) {
	s, err := usage.SumAll(ctx, ix, f)
	if err != nil {
		return Usage{}, err
	}
	return Usage{Rows: s.Rows, Total: s.Total, BadUsage: BadUsage(s.Rows), Unpriced: s.Unpriced}, nil
}

// UnpricedWarning is what to say of runs whose models have no price, or
// "" when there are none.
func UnpricedWarning(models []string) string {
	if len(models) == 0 {
		return ""
	}
	quoted := make([]string, len(models))
	for i, m := range models {
		quoted[i] = strconv.Quote(m)
		if m == "" {
			quoted[i] = "(none named)" // runs that name no model
		}
	}
	return "no price for " + wording.Plural(len(models), "model", "models") + " " + strings.Join(quoted, ", ") +
		": their runs have no cost (tape prices lists the prices; add your own in " + pricing.OverrideFile + ", tape prices --help)"
}

// BadUsage is how many of the runs summed in rows were not summed for a
// bad token count: the local index's rows and the team index's alike.
func BadUsage(rows []usage.Row) int {
	bad := 0
	for _, u := range rows {
		bad += u.BadUsage
	}
	return bad
}

// ListAnchors reads a tape's anchors in tape order, each as its record
// with the entries it holds besides its anchor entry: tape anchors and
// MCP's anchors tool. A tape of no anchors (none indexed) has none.
func ListAnchors(ctx context.Context, ix *projector.Projector, tape string) ([]records.Anchor, error) {
	anchors, counts, err := ix.Anchors(ctx, tape)
	if err != nil {
		return nil, err
	}
	out := make([]records.Anchor, 0, len(anchors))
	for _, a := range anchors {
		out = append(out, records.NewAnchor(tape, a, counts[a.Folder], ""))
	}
	return out, nil
}

// maxCallID is how many runes of a call id a warning shows: the id is
// the transcript's, of any length.
const maxCallID = 64

// OrphansWarning says which results answer no call, as every front end
// warns of them (escaping it as it prints), each call id on one line and
// cut to maxCallID runes; "" when none does.
func (c Calls) OrphansWarning() string {
	if c.OrphansTotal == 0 {
		return ""
	}
	where := make([]string, len(c.Orphans))
	for i, o := range c.Orphans {
		where[i] = fmt.Sprintf("%s:%d (%s)", o.Path, o.Line, wording.OneLine(o.CallID, maxCallID))
	}
	w := fmt.Sprintf("%d tool results answer no call of their tape: %s", c.OrphansTotal, strings.Join(where, ", "))
	if more := c.OrphansTotal - len(c.Orphans); more > 0 {
		w += fmt.Sprintf(" and %d more", more)
	}
	return w
}

// BadUsageWarning says how many runs were not summed for a bad token
// count, as every front end warns of them; "" for none.
func BadUsageWarning(bad int) string {
	if bad == 0 {
		return ""
	}
	return wording.Plural(bad, "run", "runs") + " gave token counts that are not whole numbers from 0 to 2^40; those counts are not summed"
}
