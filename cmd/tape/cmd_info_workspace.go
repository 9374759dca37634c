package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// tape info on a whole workspace: what a person meeting a workspace of
// imported sessions wants to know first (docs/decisions/0058).

// newestShown is how many of the newest tapes tape info names.
const newestShown = 3

// workspaceInfoRecord is the JSON form of tape info on a whole workspace;
// its field names are a contract. Tape is always null: no one tape.
type workspaceInfoRecord struct {
	Workspace     string             `json:"workspace"`
	Tape          *string            `json:"tape"`
	DefaultTape   string             `json:"default_tape"`
	Tapes         int                `json:"tapes"`
	Entries       int                `json:"entries"`
	Anchors       int                `json:"anchors"`
	Files         int                `json:"files"`
	Bytes         int64              `json:"bytes"`
	IndexBytes    int64              `json:"index_bytes"`
	IndexLagBytes int64              `json:"index_lag_bytes"`
	BadLines      int                `json:"bad_lines"`
	Watcher       bool               `json:"watcher"`
	WatcherPID    int                `json:"watcher_pid,omitempty"`
	Runs          int                `json:"runs"`
	TotalTokens   int64              `json:"total_tokens"`
	CostUSD       *float64           `json:"cost_usd"` // null when no run's model has a price
	Newest        []newestTapeRecord `json:"newest"`
}

// newestTapeRecord is one of the newest tapes in tape info's JSON.
type newestTapeRecord struct {
	Name    string  `json:"name"`
	Title   string  `json:"title"`
	Last    *string `json:"last"`
	Entries int     `json:"entries"`
}

// runWorkspace is tape info on the whole workspace: the lag measured
// first, as for one tape, then the rest from the caught-up index.
func (c *InfoCmd) runWorkspace(env *Env, g *Globals, ix *projector.Projector) error {
	ctx := env.Context()
	ws := ix.Workspace()
	tb, err := fresh.WorkspaceLag(ctx, ix)
	if err != nil {
		return err
	}
	if err := c.catchUp(env, g, ix); err != nil {
		return err
	}
	r := workspaceInfoRecord{Workspace: ws.Dir(), DefaultTape: ws.Config().DefaultTape, Files: tb.Files, Bytes: tb.Bytes,
		IndexLagBytes: tb.LagBytes, IndexBytes: ix.IndexBytes(), Newest: []newestTapeRecord{}}
	r.Watcher, r.WatcherPID = fresh.Watching(ix.Workspace())
	sum, err := sessions.Summarize(ctx, ix, newestShown)
	if err != nil {
		return err
	}
	r.Tapes, r.Entries, r.Anchors = sum.Tapes, sum.Entries, sum.Anchors
	for _, s := range sum.Newest {
		r.Newest = append(r.Newest, newestTapeRecord{Name: s.Name, Title: s.Title, Last: records.Time(s.Last), Entries: s.Entries})
	}
	if r.BadLines, err = ix.BadLineCount(ctx); err != nil {
		return err
	}
	spent, err := usage.Total(ctx, ix, loadPrices(env))
	if err != nil {
		return err
	}
	r.Runs, r.TotalTokens, r.CostUSD = spent.Runs, spent.Total, records.Cost(spent)
	if c.JSON {
		return newJSONLines(env.Stdout).write(r)
	}
	return c.printWorkspace(env, r, whyEveryTape(ws))
}

// printWorkspace prints r; why is why no tape was read (whyEveryTape),
// when --all-tapes was not given.
func (c *InfoCmd) printWorkspace(env *Env, r workspaceInfoRecord, why string) error {
	tape := "every tape (--all-tapes)"
	if !c.AllTapes {
		tape = "none named, and " + why + "; --tape NAME shows one"
	}
	bad := strconv.Itoa(r.BadLines)
	if r.BadLines > 0 {
		bad += " (tape doctor lists them)"
	}
	spent := "none recorded (no \"run\" event)"
	if r.Runs > 0 {
		spent = fmt.Sprintf("%s, %s", wording.Plural(r.Runs, "run", "runs"), wording.Plural(int(r.TotalTokens), "token", "tokens"))
		if r.CostUSD != nil {
			spent += ", " + dollars(*r.CostUSD, true)
		}
		spent += " (tape usage)"
	}
	return printFields(env, [][2]string{
		{"workspace", wording.Printable(r.Workspace)},
		{"tape", wording.Printable(tape)},
		{"tapes", strconv.Itoa(r.Tapes)},
		{"entries", strconv.Itoa(r.Entries)},
		{"anchors", strconv.Itoa(r.Anchors)},
		{"files", fmt.Sprintf("%d (*.jsonl)", r.Files)},
		{"bytes", strconv.FormatInt(r.Bytes, 10)},
		{"index bytes", strconv.FormatInt(r.IndexBytes, 10)},
		{"index lag", fmt.Sprintf("%d bytes not yet indexed", r.IndexLagBytes)},
		{"bad lines", bad},
		{"watcher", watcherText(r.Watcher, r.WatcherPID)},
		{"usage", spent},
		{"newest", newestText(r)},
	})
}

// newestText lists the newest tapes, one a line, aligned under the first,
// and says how many more there are.
func newestText(r workspaceInfoRecord) string {
	if len(r.Newest) == 0 {
		return "none yet"
	}
	width, counts, countWidth := 0, make([]string, len(r.Newest)), 0
	for i, n := range r.Newest {
		width = max(width, utf8.RuneCountInString(wording.Printable(n.Name)))
		counts[i] = wording.Plural(n.Entries, "entry", "entries")
		countWidth = max(countWidth, len(counts[i]))
	}
	indent := "\n" + strings.Repeat(" ", 15)
	lines := make([]string, 0, len(r.Newest)+1)
	for i, n := range r.Newest {
		name := wording.Printable(n.Name)
		last := "-"
		if n.Last != nil {
			if t, err := time.Parse(time.RFC3339Nano, *n.Last); err == nil {
				last = t.UTC().Format("2006-01-02 15:04")
			}
		}
		line := fmt.Sprintf("%s%s  %s  %-*s  %s", name, strings.Repeat(" ", width-utf8.RuneCountInString(name)), last, countWidth, counts[i], oneLine(n.Title, 60))
		lines = append(lines, strings.TrimRight(line, " "))
	}
	if more := r.Tapes - len(r.Newest); more > 0 {
		lines = append(lines, fmt.Sprintf("(and %d more; tape tapes lists them)", more))
	}
	return strings.Join(lines, indent)
}
