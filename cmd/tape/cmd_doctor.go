package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// DoctorCmd is `tape doctor`.
type DoctorCmd struct {
	JSON bool `help:"One JSON object per problem and line: check, path, line, problem, fix."`
}

func (c *DoctorCmd) Help() string {
	return `Checks every tape of the workspace (--tape does not narrow it) and the
index, and prints each problem as "path:line: problem; fix: what to run",
grouped by check, then a summary.
Paths are relative to the .tape folder; line is 0 for a problem that is not
about one line.

Checks: bad_line (a line that is not an entry), torn_tail (a last line
without its newline: a writer mid-write, or a crashed one), folder_name (a
name under anchors/ or tapes/ that tape ignores), duplicate_seq (two anchor
folders with one seq), temp_file (a .tmp- name older than a minute, left by
a crashed writer), unreadable (a tape file that is not a regular readable
file), anchor_file (an unreadable anchor.json), index_drift (the index holds
other entries than the files it has read, or files and folders that are
gone), index_lag (a running tape watch answered that the index was caught
up, and it has not read everything: reads that trust it miss entries),
fork_merge (a merge or removal of a fork that did not finish),
ack_file (a line of .tape/acknowledged that is not an acknowledgement).

A bad line stays in its file: tape never edits one. If its content
matters, append a fixed copy; then acknowledge the line with the command
doctor prints, which adds it to .tape/acknowledged. An acknowledged line is
counted in the summary, not reported, and reads stop warning of it.

tape doctor only reads: it never changes a tape file, .tape/acknowledged or
the index, and it does not catch the index up itself (bytes not yet indexed
are lag, see tape info, not drift: the summary says how many). It asks a
running tape watch to catch up, as any read does; what that leaves unread
is an index_lag problem. Exit status 0 when it found nothing, 3 when
it found a problem.

Examples:
  tape doctor
  tape doctor --json | jq -r 'select(.check=="bad_line") | .path'`
}

// doctorRecord is the JSON form of a problem; its field names are a contract.
type doctorRecord struct {
	Check   string `json:"check"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// checkOrder is the order of the groups of tape doctor's output.
var checkOrder = []string{tapelog.CheckUnreadable, tapelog.CheckFolderName, tapelog.CheckDuplicateSeq, tapelog.CheckAnchorFile,
	tapelog.CheckBadLine, tapelog.CheckTornTail, tapelog.CheckTempFile, tapelog.CheckIndexDrift, fresh.CheckIndexLag, tapelog.CheckAckFile}

// errProblems ends a tape doctor that found problems (exit status 3).
var errProblems = errors.New("doctor found")

func (c *DoctorCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	res, err := diagnose(env, ws)
	if err != nil {
		return err
	}
	problems := res.Problems
	slices.SortStableFunc(problems, func(a, b tapelog.Problem) int {
		return slices.Index(checkOrder, a.Check) - slices.Index(checkOrder, b.Check)
	})
	if c.JSON {
		out := newJSONLines(env.Stdout)
		for _, p := range problems {
			if err := out.write(doctorRecord(p)); err != nil {
				return err
			}
		}
	} else if err := printProblems(env, ws, problems, res); err != nil {
		return err
	}
	if err := noteSecrets(env, ws); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s in %s; fix them as each line says, then run 'tape doctor' again", errProblems, wording.Plural(len(problems), "problem", "problems"), ws.Dir())
	}
	return nil
}

// diagnose checks the files, and the index when there is one: a missing
// index is no problem (the next read builds it), and doctor does not
// build it.
func diagnose(env *Env, ws *tapelog.Workspace) (*fresh.Diagnosis, error) {
	if _, err := os.Stat(ws.Abs(projector.IndexFile)); errors.Is(err, fs.ErrNotExist) {
		return checkFiles(env, ws)
	}
	ix, err := projector.Open(env.Context(), ws)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if ix.Fresh { // an index of another schema, made anew and empty: nothing to compare
		return checkFiles(env, ws)
	}
	return fresh.Doctor(env.Context(), ix)
}

func checkFiles(env *Env, ws *tapelog.Workspace) (*fresh.Diagnosis, error) {
	res, err := ws.CheckFiles(env.Context(), nil)
	if err != nil {
		return nil, err
	}
	return &fresh.Diagnosis{CheckResult: res}, nil
}

func printProblems(env *Env, ws *tapelog.Workspace, problems []tapelog.Problem, d *fresh.Diagnosis) error {
	var b strings.Builder
	var counts []string
	for i, p := range problems {
		if i == 0 || problems[i-1].Check != p.Check {
			n := 0
			for _, q := range problems[i:] {
				if q.Check == p.Check {
					n++
				}
			}
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "# %s (%d)\n", p.Check, n)
			counts = append(counts, strconv.Itoa(n)+" "+p.Check)
		}
		where := p.Path
		if p.Line > 0 {
			where += ":" + strconv.Itoa(p.Line)
		}
		fmt.Fprintf(&b, "%s: %s; fix: %s\n", wording.Printable(where), wording.Printable(p.Problem), wording.Printable(p.Fix))
	}
	acks := ""
	if d.Acknowledged > 0 {
		acks = fmt.Sprintf("%s acknowledged in %s", wording.Plural(d.Acknowledged, "bad line", "bad lines"), wording.Printable(ws.Abs(tapelog.AckFile)))
	}
	switch {
	case len(problems) == 0 && acks == "":
		fmt.Fprintf(&b, "no problems found in %s\n", wording.Printable(ws.Dir()))
	case len(problems) == 0:
		fmt.Fprintf(&b, "no problems found in %s (%s)\n", wording.Printable(ws.Dir()), acks)
	default:
		fmt.Fprintf(&b, "\n%s (%s) in %s", wording.Plural(len(problems), "problem", "problems"), strings.Join(counts, ", "), wording.Printable(ws.Dir()))
		if acks != "" {
			b.WriteString("; " + acks)
		}
		b.WriteString("\n")
	}
	if lag := d.Lag.LagBytes; lag > 0 && len(problems) == 0 {
		fmt.Fprintf(&b, "index lag: %d bytes of %s not yet indexed; the next read catches up\n", lag, wording.Plural(d.Lag.Files, "file", "files"))
	}
	if _, err := fmt.Fprint(env.Stdout, b.String()); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
