package usage

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tape-dev/tape/views"
)

// Usage by project, agent and session is usage by tape, each tape's sums
// (the kept totals, or its runs of f's times) grouped by what the sessions
// view says of it (views/sessions): its cwd, its source, and the agent's
// session id. A session is the tapes that one agent's session id names:
// Claude Code's subagents share their session's id (and so are summed
// with it, as ccusage session sums a transcript with its subagents'
// files), other agents give a subagent a session of its own; a tape not
// imported is a session of its own. Its tape is the one its subagents name
// as parent.
//
// The groups are ordered by cost, the highest first, then by tokens, as
// ccusage session orders sessions: what a person asks of them is which
// cost the most.

// The totals by project, source and session are kept by tape, not by run:
// a tape's runs belong to the groups its sessions row names, which comes
// at the end of a pass, after its runs. Each pass, at Settle (after the
// sessions view's: projector/views.go), moves the totals of each tape
// whose entries it added or removed, or whose runs it recounted: it takes
// away what it gave the groups the last time (usage_settled: the tape's
// totals then, with the keys of its groups then) and gives what its totals
// now are to the groups its row now names. A sessions row changes only
// with its tape's entries, so the totals are always what grouping the
// counted runs by their tapes' rows as they stand gives
// (TestTotalsAreTheSumOfTheRuns), a sum reads a row a group instead of
// every tape's (by project at 10,002 tapes, 55 ms), and a rebuild pays a
// few statements a tape, not an upsert a run (which made one of 300,000
// runs half as long again). Triggers on sessions did the moving before;
// their 21 KB of SQL were parsed by every open of the index.

// attrGroupings are, for each kept grouping of a tape's sessions row, its
// key given the row X (a row reference in SQL), and given none for tape T.
// A session's key is its source, id and, for a tape not imported, the
// tape, joined by the unit separator (char 31).
var attrGroupings = map[string][2]string{
	"project": {`coalesce(nullif(X.start_cwd, ''), X.cwd, '')`, `''`},
	"source":  {`X.source`, `''`},
	"session": {`X.source || char(31) || X.session_id || char(31) || CASE WHEN X.session_id = '' THEN X.tape ELSE '' END`, `char(31) || char(31) || T`},
}

// attrKeyOf is the SQL of a tape's key in grouping g, for the tape whose
// name the SQL tape gives: from its sessions row, else for none.
func attrKeyOf(g, tape string) string {
	k := attrGroupings[g]
	return `coalesce((SELECT ` + strings.ReplaceAll(k[0], "X.", "s.") + ` FROM sessions s WHERE s.tape = ` + tape + `), ` +
		strings.ReplaceAll(k[1], "T", tape) + `)`
}

// settleAttrs moves the totals of tapes from the groups they gave them to
// the last time to those their rows now name.
func settleAttrs(ctx context.Context, tx views.Tx, tapes map[string]bool) error {
	if len(tapes) == 0 {
		return nil
	}
	names, err := json.Marshal(slices.Sorted(maps.Keys(tapes)))
	if err != nil {
		return err
	}
	var cols, minus, updates strings.Builder
	for _, c := range tokenColumns {
		fmt.Fprintf(&cols, ", %s", c[0])
		fmt.Fprintf(&minus, ", -%s", c[0])
		fmt.Fprintf(&updates, ", %[1]s = %[1]s + excluded.%[1]s", c[0])
	}
	upsert := ` ON CONFLICT (grouping, key, model) DO UPDATE SET runs = runs + excluded.runs, with_usage = with_usage + excluded.with_usage,
		bad_usage = bad_usage + excluded.bad_usage` + updates.String()
	const these = `IN (SELECT value FROM json_each(?1))`
	groupings := slices.Sorted(maps.Keys(attrGroupings))
	var stmts []string
	for _, g := range groupings {
		stmts = append(stmts,
			`INSERT INTO usage_totals SELECT '`+g+`', `+g+`, model, -runs, -with_usage, -bad_usage`+minus.String()+`
				FROM usage_settled WHERE tape `+these+upsert,
			`INSERT INTO usage_totals SELECT '`+g+`', `+attrKeyOf(g, "t.key")+`, model, runs, with_usage, bad_usage`+cols.String()+`
				FROM usage_totals t WHERE grouping = 'tape' AND key `+these+upsert,
			`DELETE FROM usage_totals WHERE grouping = '`+g+`' AND runs = 0 AND key IN (
				SELECT `+g+` FROM usage_settled WHERE tape `+these+` UNION SELECT `+attrKeyOf(g, "d.value")+` FROM json_each(?1) d)`)
	}
	keys := ""
	for _, g := range groupings {
		keys += ", " + attrKeyOf(g, "key")
	}
	stmts = append(stmts, `DELETE FROM usage_settled WHERE tape `+these,
		`INSERT INTO usage_settled (tape, model, `+strings.Join(groupings, ", ")+`, runs, with_usage, bad_usage`+cols.String()+`)
			SELECT key, model`+keys+`, runs, with_usage, bad_usage`+cols.String()+`
			FROM usage_totals WHERE grouping = 'tape' AND key `+these)
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q, string(names)); err != nil {
			return err
		}
	}
	return nil
}

// settledSchema is the table of what each tape gave the groups by
// project, source and session, at the last pass that touched it.
func settledSchema() string {
	var cols strings.Builder
	for _, c := range tokenColumns {
		cols.WriteString("\t" + c[0] + " INTEGER NOT NULL,\n")
	}
	return `
CREATE TABLE usage_settled (
	tape       TEXT NOT NULL,
	model      TEXT NOT NULL,
	project    TEXT NOT NULL, -- the keys of its groups (attrGroupings)
	source     TEXT NOT NULL,
	session    TEXT NOT NULL,
	runs       INTEGER NOT NULL,
	with_usage INTEGER NOT NULL,
	bad_usage  INTEGER NOT NULL,
` + cols.String() + `	PRIMARY KEY (tape, model)
) WITHOUT ROWID;
`
}

// sumAttrs sums f's runs by project, source or session.
func sumAttrs(ctx context.Context, r views.Reader, f Filter, pr *pricer) ([]Row, error) {
	var parts []part
	var err error
	if f.Tape == "" && !f.bounded() && f.SessionID == "" {
		parts, err = scanParts(r.QueryContext(ctx, `SELECT key, 0, '', '', '', model, runs, with_usage, bad_usage`+keptColumns()+`
			FROM usage_totals WHERE grouping = ? ORDER BY key, model`, f.By))
	} else {
		parts, err = summedAttrs(ctx, r, f)
	}
	if err != nil {
		return nil, err
	}
	// The group's key is in Tape (scanParts' first column). A session's
	// tape is named for a page (nameSessions), but a tape not imported,
	// which its key names.
	roots := gitRoots{}
	for i := range parts {
		p := &parts[i]
		key := p.Tape
		p.Tape = ""
		switch f.By {
		case "project":
			p.Project = roots.of(key)
		case "source":
			p.Source = key
		case "session":
			k := strings.SplitN(key, "\x1f", 3)
			if len(k) != 3 {
				return nil, fmt.Errorf("usage by session: key %q is not a source, an id and a tape", key)
			}
			p.Source, p.SessionID, p.Tape = k[0], k[1], k[2]
		}
	}
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(a.Project, b.Project) })
	rows := pr.merge(parts)
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(b.Total, a.Total))
	})
	return rows, nil
}

// summedAttrs sums the runs f keeps by the key of its grouping
// (attrKeyOf), as the kept totals hold them: from the totals by tape or,
// for a tape, a session id or times, from the runs.
func summedAttrs(ctx context.Context, r views.Reader, f Filter) ([]part, error) {
	tapes := `SELECT key AS tape, model, runs, with_usage, bad_usage` + keptColumns() + ` FROM usage_totals WHERE grouping = 'tape'`
	var args []any
	if f.Tape != "" || f.bounded() {
		var where string
		where, args = runsKept(f)
		tapes = `SELECT r.tape AS tape, r.model AS model, count(*) AS runs, sum(r.has_usage) AS with_usage, sum(r.bad_usage) AS bad_usage` + summedColumns(true) +
			` FROM runs r WHERE ` + where + ` GROUP BY r.tape, r.model`
	}
	if f.SessionID != "" {
		tapes = `SELECT * FROM (` + tapes + `) WHERE tape IN (SELECT tape FROM sessions WHERE session_id = ?)`
		args = append(args, f.SessionID)
	}
	sums := `sum(runs), sum(with_usage), sum(bad_usage)`
	for _, c := range tokenColumns {
		sums += ", " + saturated(c[0])
	}
	return scanParts(r.QueryContext(ctx, `SELECT `+attrKeyOf(f.By, "t.tape")+` AS k, 0, '', '', '', model, `+sums+`
		FROM (`+tapes+`) t GROUP BY k, model ORDER BY k, model`, args...))
}

// nameSessions names the tape of each session of rows that has none: its
// first tape that names no parent, else its first.
func nameSessions(ctx context.Context, r views.Reader, rows []Row) error {
	for i, u := range rows {
		if u.Tape != "" {
			continue
		}
		err := r.QueryRowContext(ctx, `SELECT coalesce(
				(SELECT min(tape) FROM sessions WHERE source = ?1 AND session_id = ?2 AND session_id <> '' AND parent_session = ''),
				(SELECT min(tape) FROM sessions WHERE source = ?1 AND session_id = ?2), '')`, u.Source, u.SessionID).Scan(&rows[i].Tape)
		if err != nil {
			return fmt.Errorf("query the tape of session %s: %w", u.SessionID, err)
		}
	}
	return nil
}

// gitRoots finds, once a folder, the git root of a working directory on
// this machine: the nearest folder at or above it that holds .git. A cwd
// that is not on this machine, or in no repository, is its own project.
type gitRoots map[string]string

func (g gitRoots) of(cwd string) string {
	if root, ok := g[cwd]; ok {
		return root
	}
	root := cwd
	if filepath.IsAbs(cwd) {
		for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				root = dir
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	g[cwd] = root
	return root
}
