package remote

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
)

// What the server holds of a workspace, and the removal of what the local
// index no longer has.

// serverFiles reads the checkpoints the server holds of the workspace.
func (s *syncer) serverFiles(ctx context.Context) (map[fileKey]*checkpoint, error) {
	rows, err := s.conn.Query(ctx, `SELECT tape, folder, name, "offset", line, eff_time, fingerprint, stamp FROM tape.files WHERE workspace_id = $1`, s.wsID)
	if err != nil {
		return nil, fmt.Errorf("read the checkpoints on the server: %w", err)
	}
	have := map[fileKey]*checkpoint{}
	for rows.Next() {
		var k fileKey
		var f checkpoint
		var eff, fp int64
		if err := rows.Scan(&k.Tape, &k.Folder, &k.Name, &f.pos.Offset, &f.pos.Line, &eff, &fp, &f.stamp); err != nil {
			return nil, fmt.Errorf("read the checkpoints on the server: %w", err)
		}
		f.pos.Time, f.pos.Fingerprint = projector.TimeOfEff(eff), uint64(fp)
		have[k] = &f
	}
	return have, rows.Err()
}

// serverAnchors reads the stamps of the anchor folders the server holds.
func (s *syncer) serverAnchors(ctx context.Context) (map[folderKey]string, error) {
	rows, err := s.conn.Query(ctx, `SELECT tape, folder, stamp FROM tape.anchors WHERE workspace_id = $1`, s.wsID)
	if err != nil {
		return nil, fmt.Errorf("read the anchors on the server: %w", err)
	}
	have := map[folderKey]string{}
	for rows.Next() {
		var k folderKey
		var stamp string
		if err := rows.Scan(&k.tape, &k.folder, &stamp); err != nil {
			return nil, fmt.Errorf("read the anchors on the server: %w", err)
		}
		have[k] = stamp
	}
	return have, rows.Err()
}

// removeGone removes the rows of the tapes, anchor folders and files the
// local index no longer has: a reset tape's old anchors, a deleted file,
// a tape removed by hand.
func (s *syncer) removeGone(ctx context.Context, local localState, have map[fileKey]*checkpoint, haveAnchors map[folderKey]string) error {
	localTapes, localFolders := map[string]bool{}, map[folderKey]bool{}
	for _, a := range local.anchors {
		localTapes[a.Tape], localFolders[folderKey{a.Tape, a.Folder}] = true, true
	}
	localFiles := make(map[fileKey]bool, len(local.files))
	for _, f := range local.files {
		localFiles[f.key] = true
	}
	serverTapes, err := s.serverTapes(ctx)
	if err != nil {
		return err
	}
	for _, tape := range serverTapes {
		if !localTapes[tape] {
			if err := s.remove(ctx, tapeRemovals(tape)); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(haveAnchors), compareFolderKeys) {
		if localTapes[k.tape] && !localFolders[k] {
			s.batch.mark(k.tape, views.TapeStart)
			if err := s.remove(ctx, folderRemovals(k)); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(have), compareFileKeys) {
		if !localFiles[k] && localFolders[folderKey{k.Tape, k.Folder}] {
			s.batch.mark(k.Tape, views.TapeStart)
			if err := s.remove(ctx, fileRemovals(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// serverTapes lists the tapes the server has rows of.
func (s *syncer) serverTapes(ctx context.Context) ([]string, error) {
	rows, err := s.conn.Query(ctx, `SELECT tape FROM tape.anchors WHERE workspace_id = $1
		UNION SELECT tape FROM tape.files WHERE workspace_id = $1
		UNION SELECT tape FROM tape.tapes WHERE workspace_id = $1
		UNION SELECT tape FROM tape.pending WHERE workspace_id = $1 ORDER BY 1`, s.wsID)
	if err != nil {
		return nil, fmt.Errorf("list the tapes on the server: %w", err)
	}
	tapes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the tapes on the server: %w", err)
	}
	return tapes, nil
}

func (s *syncer) remove(ctx context.Context, rs []removal) error {
	s.batch.removals = append(s.batch.removals, rs...)
	s.stats.Removed++
	return s.commitIfFull(ctx)
}

// workspaceTables are the tables that hold a workspace's rows, but its own.
var workspaceTables = []string{"entries", "bad_lines", "runs", "calls", "files", "anchors", "tapes", "pending"}

// removeWorkspaceRows removes every row of the workspace but its own, in
// one transaction.
func removeWorkspaceRows(ctx context.Context, conn *pgx.Conn, wsID string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	for _, table := range workspaceTables {
		if _, err := tx.Exec(ctx, `DELETE FROM tape.`+table+` WHERE workspace_id = $1`, wsID); err != nil {
			return fmt.Errorf("remove the workspace's rows: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE tape.workspaces SET synced_state = NULL WHERE id = $1`, wsID); err != nil {
		return fmt.Errorf("remove the workspace's rows: %w", err)
	}
	return tx.Commit(ctx)
}

func tapeRemovals(tape string) []removal {
	var rs []removal
	for _, table := range workspaceTables {
		rs = append(rs, removal{table: table, tape: tape})
	}
	return rs
}

func folderRemovals(k folderKey) []removal {
	var rs []removal
	for _, table := range []string{"entries", "bad_lines", "runs", "files", "anchors"} {
		rs = append(rs, removal{table: table, tape: k.tape, folder: k.folder})
	}
	return rs
}

func fileRemovals(k fileKey) []removal {
	var rs []removal
	for _, table := range []string{"entries", "bad_lines", "runs", "files"} {
		rs = append(rs, removal{table: table, tape: k.Tape, folder: k.Folder, file: k.Name})
	}
	return rs
}
