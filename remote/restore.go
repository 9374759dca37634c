package remote

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"

	tapelog "github.com/tape-dev/tape/log"
)

// RestoreStats says what Restore wrote.
type RestoreStats struct {
	Workspace Workspace
	Tapes     int
	Folders   int
	Files     int
	Lines     int
	Bytes     int64
}

// Restore writes the tapes a workspace synced to the server (all of
// them, or those named) into a workspace, as the files they were read from: each
// anchor folder whole (log.Tape.WriteFolder), its anchor.json and its
// files byte for byte the lines synced, in their places. A line that
// was not synced, being blank, comes back as an empty line, so that the
// lines after it keep their numbers (and the ids derived from them); a
// line over the read limit, synced without its bytes, likewise.
//
// open opens (or makes) the workspace to write into once the server has
// said it has what is asked, so that a wrong name makes nothing; a tape
// that it has already is an error, before anything is written.
//
// It reads one snapshot of the server (a read-only, repeatable-read
// transaction), so a sync running meanwhile is not half seen.
func Restore(ctx context.Context, conn *pgx.Conn, workspace string, tapes []string, open func() (*tapelog.Workspace, error)) (RestoreStats, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return RestoreStats{}, fmt.Errorf("restore: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // it only read
	var st RestoreStats
	if st.Workspace, err = oneWorkspace(ctx, tx.Conn(), workspace); err != nil {
		return st, err
	}
	names, err := restoredTapes(ctx, tx, st.Workspace, tapes)
	if err != nil {
		return st, err
	}
	dst, err := open()
	if err != nil {
		return st, err
	}
	have, err := dst.Tapes()
	if err != nil {
		return st, err
	}
	for _, name := range names {
		if containsString(have, name) {
			return st, fmt.Errorf("restore: tape %s is already in %s; restore into a new folder, or name the other tapes with --tape", name, dst.Dir())
		}
	}
	r := restorer{tx: tx, wsID: st.Workspace.ID, dst: dst, st: &st}
	for _, name := range names {
		if err := r.tape(ctx, name); err != nil {
			return st, err
		}
		st.Tapes++
	}
	return st, nil
}

// oneWorkspace finds the one workspace of a name or id.
func oneWorkspace(ctx context.Context, conn *pgx.Conn, name string) (Workspace, error) {
	found, err := Workspaces(ctx, conn, []string{name})
	if err != nil {
		return Workspace{}, err
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		all, _ := Workspaces(ctx, conn, nil)
		var names []string
		for _, w := range all {
			names = append(names, w.Name)
		}
		return Workspace{}, fmt.Errorf("%w: %q (the server has: %s)", ErrNoWorkspace, name, strings.Join(names, ", "))
	}
	var ids []string
	for _, w := range found {
		ids = append(ids, w.ID+" ("+w.Host+":"+w.Path+")")
	}
	return Workspace{}, fmt.Errorf("remote: %d workspaces are named %q: %s; give the id of one", len(found), name, strings.Join(ids, ", "))
}

// restoredTapes lists the workspace's tapes on the server, or checks that
// it has those named.
func restoredTapes(ctx context.Context, tx pgx.Tx, ws Workspace, named []string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT tape FROM tape.anchors WHERE workspace_id = $1 ORDER BY 1`, ws.ID)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	all, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if named == nil {
		return all, nil
	}
	for _, n := range named {
		if !containsString(all, n) {
			return nil, fmt.Errorf("restore: workspace %s has no tape %s on the server", ws.Name, n)
		}
	}
	return named, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type restorer struct {
	tx   pgx.Tx
	wsID string
	dst  *tapelog.Workspace
	st   *RestoreStats
}

// tape writes one tape's anchor folders, in order.
func (r *restorer) tape(ctx context.Context, name string) error {
	t, err := r.dst.Tape(name) // validates the name: a server's names are not trusted
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer t.Close()
	rows, err := r.tx.Query(ctx, `SELECT a.folder, e.raw FROM tape.anchors a
		LEFT JOIN tape.entries e ON e.workspace_id = a.workspace_id AND e.tape = a.tape AND e.folder = a.folder AND e.file = 'anchor.json' AND e.line = 1
		WHERE a.workspace_id = $1 AND a.tape = $2 ORDER BY a.seq, a.folder`, r.wsID, name)
	if err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	type folder struct {
		name   string
		anchor []byte
	}
	folders, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (folder, error) {
		var f folder
		err := row.Scan(&f.name, &f.anchor)
		return f, err
	})
	if err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	for _, f := range folders {
		if err := r.folder(ctx, t, f.name, f.anchor); err != nil {
			return err
		}
	}
	return nil
}

// folder writes one anchor folder and its files.
func (r *restorer) folder(ctx context.Context, t *tapelog.Tape, folder string, anchor []byte) error {
	rows, err := r.tx.Query(ctx, `SELECT name, line FROM tape.files WHERE workspace_id = $1 AND tape = $2 AND folder = $3 ORDER BY name`, r.wsID, t.Name(), folder)
	if err != nil {
		return fmt.Errorf("restore %s/%s: %w", t.Name(), folder, err)
	}
	lines := map[string]int{}
	var files []string
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return fmt.Errorf("restore %s/%s: %w", t.Name(), folder, err)
		}
		files, lines[name] = append(files, name), n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("restore %s/%s: %w", t.Name(), folder, err)
	}
	err = t.WriteFolder(folder, anchor, files, func(name string, w io.Writer) error {
		return r.file(ctx, t.Name(), folder, name, lines[name], w)
	})
	if err != nil {
		return fmt.Errorf("restore %s/%s: %w", t.Name(), folder, err)
	}
	r.st.Folders++
	r.st.Files += len(files)
	r.st.Bytes += int64(len(anchor))
	return nil
}

// file writes one file's lines in order, an empty line for each line
// number the server has no bytes of, up to the checkpoint's count.
func (r *restorer) file(ctx context.Context, tape, folder, name string, count int, w io.Writer) error {
	rows, err := r.tx.Query(ctx, `SELECT line, raw FROM tape.entries WHERE workspace_id = $1 AND tape = $2 AND folder = $3 AND file = $4
		UNION ALL SELECT line, raw FROM tape.bad_lines WHERE workspace_id = $1 AND tape = $2 AND folder = $3 AND file = $4
		ORDER BY line`, r.wsID, tape, folder, name)
	if err != nil {
		return err
	}
	defer rows.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	next := 1 // the line to write next
	for rows.Next() {
		var line int
		var raw []byte
		if err := rows.Scan(&line, &raw); err != nil {
			return err
		}
		if line < next || line > count {
			return fmt.Errorf("the server holds line %d of %d out of place (twice, or past the file's checkpoint); run 'tape sync --full' from its workspace", line, count)
		}
		for ; next < line; next++ {
			bw.WriteByte('\n')
		}
		if raw == nil {
			raw = []byte{'\n'}
		}
		bw.Write(raw)
		next++
		r.st.Lines++
		r.st.Bytes += int64(len(raw))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for ; next <= count; next++ {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
