package usage

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"

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

// attrKeys are the SQL of the key each grouping groups a tape t by, with
// s its sessions row: the key, and for a session the id and the tape of a
// session not imported.
var attrKeys = map[string]string{
	"project": `coalesce(nullif(s.start_cwd, ''), s.cwd, '') AS k, '' AS id, '' AS own`,
	"source":  `coalesce(s.source, '') AS k, '' AS id, '' AS own`,
	"session": `coalesce(s.source, '') AS k, coalesce(s.session_id, '') AS id, CASE WHEN coalesce(s.session_id, '') = '' THEN t.tape ELSE '' END AS own`,
}

// sumAttrs sums f's runs by project, source or session.
func sumAttrs(ctx context.Context, r views.Reader, f Filter, pr *pricer) ([]Row, error) {
	tapes := `SELECT key AS tape, model, runs, with_usage, bad_usage` + keptColumns() + ` FROM usage_totals WHERE grouping = 'tape'`
	var args []any
	if f.Tape != "" || f.bounded() {
		var where string
		where, args = runsKept(f)
		tapes = `SELECT r.tape AS tape, r.model AS model, count(*) AS runs, sum(r.has_usage) AS with_usage, sum(r.bad_usage) AS bad_usage` + summedAs() +
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
	// The group's columns, as scanParts reads them: the key in Tape, the
	// session's id in Anchor, a tape not imported in Model, and the tape
	// that names the session in Day (its first tape that names no parent).
	parts, err := scanParts(r.QueryContext(ctx, `SELECT k, 0, id, own, coalesce(min(CASE WHEN parent = '' THEN tape END), min(tape)), model, `+sums+`
		FROM (SELECT `+attrKeys[f.By]+`, coalesce(s.parent_session, '') AS parent, t.*
			FROM (`+tapes+`) t LEFT JOIN sessions s ON s.tape = t.tape)
		GROUP BY k, id, own, model ORDER BY k, id, own, model`, args...))
	if err != nil {
		return nil, err
	}
	roots := gitRoots{}
	named := map[[2]string]string{} // a session's tape: the one its parts name first
	for i := range parts {
		p := &parts[i]
		key, id, own, tape := p.Tape, p.Anchor, p.Model, p.Day
		p.Tape, p.Anchor, p.Model, p.Day = "", "", "", ""
		switch f.By {
		case "project":
			p.Project = roots.of(key)
		case "source":
			p.Source = key
		case "session":
			p.Source, p.SessionID, p.Tape = key, id, own
			if k := [2]string{key, id}; own == "" && (named[k] == "" || tape < named[k]) {
				named[k] = tape
			}
		}
	}
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(a.Project, b.Project) })
	rows := pr.merge(parts)
	for i, u := range rows {
		if u.Tape == "" && f.By == "session" {
			rows[i].Tape = named[[2]string{u.Source, u.SessionID}]
		}
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(b.Total, a.Total))
	})
	return rows, nil
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
