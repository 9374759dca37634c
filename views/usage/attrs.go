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
// view says of it (views/sessions): its cwd, its source, and the session
// it belongs to. A session is a tape and the tapes of its subagents, whose
// parent names it (one level, as Claude Code's and Codex's subagents do):
// as ccusage session counts a transcript with its subagents' files.
//
// The groups are ordered by cost, the highest first, then by tokens, as
// ccusage session orders sessions: what a person asks of them is which
// cost the most.

// attrKeys are the SQL of the key each grouping groups a tape t by, with
// s its sessions row and p, for a tape of a subagent, its parent's.
var attrKeys = map[string]string{
	"project": `coalesce(nullif(s.start_cwd, ''), s.cwd, '')`,
	"source":  `coalesce(s.source, '')`,
	"session": `coalesce(p.tape, t.tape)`,
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
	sums := `sum(runs), sum(with_usage), sum(bad_usage)`
	for _, c := range tokenColumns {
		sums += ", " + saturated(c[0])
	}
	// The group's columns, as scanParts reads them: the key in Tape, the
	// session's source in Anchor, its id in Model.
	parts, err := scanParts(r.QueryContext(ctx, `SELECT `+attrKeys[f.By]+` AS k, 0, coalesce(p.source, s.source, ''), coalesce(p.session_id, s.session_id, ''), '', t.model, `+sums+`
		FROM (`+tapes+`) t
		LEFT JOIN sessions s ON s.tape = t.tape
		LEFT JOIN sessions p ON p.source = s.source AND p.session_id = s.parent_session AND s.parent_session <> '' AND p.parent_session = '' AND p.session_id <> ''
		GROUP BY k, t.model ORDER BY k, t.model`, args...))
	if err != nil {
		return nil, err
	}
	roots := gitRoots{}
	for i := range parts {
		p := &parts[i]
		key, source, id := p.Tape, p.Anchor, p.Model
		p.Tape, p.Anchor, p.Model, p.AnchorSeq = "", "", "", 0
		switch f.By {
		case "project":
			p.Project = roots.of(key)
		case "source":
			p.Source = key
		case "session":
			p.Tape, p.Source, p.SessionID = key, source, id
		}
	}
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(a.Project, b.Project) })
	rows := pr.merge(parts)
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
