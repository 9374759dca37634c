package importer

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/tape-dev/tape/importer/cursor"
)

// writeCursorDB writes the golden database of Cursor's editor at
// <user>/globalStorage/state.vscdb and returns a connection that writes
// it.
func writeCursorDB(t *testing.T, user string) *sql.DB {
	return writeGoldenDB(t, filepath.Join(user, "globalStorage", "state.vscdb"), "cursor/cursor.sql")
}

// cursorReply is a reply added to the chat d1e2f3a4 of the golden
// database, as Cursor adds one: its bubble's row, and the chat's headers
// naming it. One entry: its text.
const cursorReply = `INSERT INTO cursorDiskKV VALUES ('bubbleId:d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6:22222222-0000-4000-8000-000000000003',
	'{"type":2,"bubbleId":"22222222-0000-4000-8000-000000000003","text":"one more reply, 再来一个","createdAt":"2026-03-02T10:03:00.000Z"}');
UPDATE cursorDiskKV SET value = json_set(value, '$.lastUpdatedAt', 1772445780000,
	'$.fullConversationHeadersOnly', json('[{"bubbleId":"22222222-0000-4000-8000-000000000001","type":1},{"bubbleId":"22222222-0000-4000-8000-000000000002","type":2},{"bubbleId":"22222222-0000-4000-8000-000000000003","type":2}]'))
	WHERE key = 'composerData:d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6'`

// Cursor's user folder is imported through the mirror of its global
// database; an import again with nothing new writes nothing; a reply
// added later is imported alone.
func TestImportThroughACursorMirror(t *testing.T) {
	user := filepath.Join(t.TempDir(), "User")
	db := writeCursorDB(t, user)
	mirrorImport{src: cursor.Source{}, dir: user, sessions: 5,
		change: func() { exec(t, db, cursorReply) }, want: 1, what: "one reply was added"}.check(t)
}

// A followed Cursor user folder: a write to the editor's state.vscdb
// (its WAL) is imported as it happens, not at the next reconcile.
func TestFollowerFollowsCursorsDatabase(t *testing.T) {
	t.Parallel()
	user := filepath.Join(t.TempDir(), "User")
	db := writeCursorDB(t, user)
	followDatabase(t, cursor.Source{}, user, "cursor-d1e2f3a4", "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6/22222222-0000-4000-8000-000000000002",
		func() { exec(t, db, cursorReply) }, "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6/22222222-0000-4000-8000-000000000003")
}
