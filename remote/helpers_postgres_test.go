//go:build postgres

package remote

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// connect opens a connection to url for the test.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func newWorkspace(t *testing.T) *tapelog.Workspace { return tapetest.NewWorkspace(t) }

// openIndex opens the workspace's local index, caught up.
func openIndex(t testing.TB, ws *tapelog.Workspace) *projector.Projector {
	t.Helper()
	ix, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	catchUp(t, ix)
	return ix
}

func catchUp(t testing.TB, ix *projector.Projector) {
	t.Helper()
	if _, err := ix.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// syncNow catches the index up and syncs it into conn.
func syncNow(t *testing.T, ix *projector.Projector, conn *pgx.Conn) SyncStats {
	t.Helper()
	catchUp(t, ix)
	st, err := Sync(context.Background(), ix, conn, SyncOptions{})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return st
}

func appendEntry(t *testing.T, ws *tapelog.Workspace, tape, kind string, payload any) tapelog.Entry {
	t.Helper()
	tp, err := ws.Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	p, _ := json.Marshal(payload)
	out, err := tp.Append(context.Background(), tapelog.Entry{Kind: kind, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// dump is every row the server holds of a workspace (Dump).
func dump(t *testing.T, conn *pgx.Conn, wsID string) string {
	t.Helper()
	d, err := Dump(context.Background(), conn, wsID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// count is the number of the workspace's rows in a table.
func count(t *testing.T, conn *pgx.Conn, table, wsID string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM tape.`+table+` WHERE workspace_id = $1`, wsID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func identity(t *testing.T, ws *tapelog.Workspace) string {
	t.Helper()
	id, err := ws.Identity()
	if err != nil {
		t.Fatal(err)
	}
	return id.ID
}

func tapelogEntry(kind, payload string) tapelog.Entry {
	return tapelog.Entry{Kind: kind, Payload: []byte(payload)}
}

func tapelogMergeOptions() tapelog.MergeOptions { return tapelog.MergeOptions{} }

// tapelogAppend appends a line by hand to the first folder of main.
func tapelogAppend(t *testing.T, ws *tapelog.Workspace, line string) {
	t.Helper()
	tapetest.AppendRaw(t, filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start/hand.jsonl"), line)
}

// tapetestWorkspace is a workspace without a tape, to restore into.
func tapetestWorkspace(t *testing.T) *tapelog.Workspace {
	t.Helper()
	ws, _, err := tapelog.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// assertLikeClean syncs ix into conn, then into an empty database, and
// fails the test unless the two hold the same rows of the workspace.
func assertLikeClean(t *testing.T, ix *projector.Projector, conn *pgx.Conn, wsID, after string) {
	t.Helper()
	syncNow(t, ix, conn)
	clean := connect(t, server.DB(t))
	syncNow(t, ix, clean)
	if got, want := dump(t, conn, wsID), dump(t, clean, wsID); got != want {
		t.Fatalf("after %s, the server holds\n%s\na clean sync holds\n%s", after, got, want)
	}
}
