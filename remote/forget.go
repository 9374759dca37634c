package remote

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Forget removes a workspace from the server, by its id: its rows, and
// its row in tape.workspaces, in one transaction, under the workspace's
// lock (a sync of it running then is waited for, as a sync waits). It is
// for a workspace that is gone: made again in the same folder (a new id:
// SyncStats.SamePlace), or deleted. Its files, wherever they are, are
// not touched; a sync of it sends everything again.
func Forget(ctx context.Context, conn *pgx.Conn, id string) (Workspace, error) {
	if err := ready(ctx, conn); err != nil {
		return Workspace{}, err
	}
	rows, err := conn.Query(ctx, `SELECT id, name, host, path, synced_at, (SELECT count(*) FROM tape.tapes t WHERE t.workspace_id = w.id)
		FROM tape.workspaces w WHERE id = $1`, id)
	if err != nil {
		return Workspace{}, fmt.Errorf("forget workspace %s: %w", id, err)
	}
	found, err := collectWorkspaces(rows)
	if err != nil {
		return Workspace{}, err
	}
	if len(found) == 0 {
		return Workspace{}, fmt.Errorf("%w: no workspace has the id %s ('tape sync --list' lists them)", ErrNoWorkspace, id)
	}
	unlock, err := lockWorkspace(ctx, conn, id, DefaultLockWait, nil)
	if err != nil {
		return Workspace{}, err
	}
	defer unlock()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return Workspace{}, fmt.Errorf("forget workspace %s: %w", id, err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	for _, table := range append(workspaceTables[:len(workspaceTables):len(workspaceTables)], "workspaces") {
		col := "workspace_id"
		if table == "workspaces" {
			col = "id"
		}
		if _, err := tx.Exec(ctx, `DELETE FROM tape.`+table+` WHERE `+col+` = $1`, id); err != nil {
			return Workspace{}, fmt.Errorf("forget workspace %s: %w", id, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return Workspace{}, fmt.Errorf("forget workspace %s: %w", id, err)
	}
	return found[0], nil
}
