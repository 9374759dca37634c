package importer

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/tape-dev/tape/importer/opencode"
)

// writeKiloDB writes the golden Kilo CLI database into dir and returns a
// connection that writes it.
func writeKiloDB(t *testing.T, dir string) *sql.DB {
	return writeGoldenDB(t, filepath.Join(dir, "kilo.db"), "kilo/kilo.sql")
}

// oneMoreKiloReply is a completed reply of the golden Kilo database's
// subagent session: two entries, its run and its text.
const oneMoreKiloReply = `INSERT INTO message VALUES ('msg_6b2e41c50099kKlLmMnNoOpP99', 'ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 1777712470000, 1777712471000,
	'{"role":"assistant","time":{"created":1777712470000,"completed":1777712471000},"modelID":"anthropic/claude-haiku-4.5","providerID":"kilo","tokens":{"input":5,"output":7,"reasoning":0,"cache":{"read":0,"write":0}}}');
	INSERT INTO part VALUES ('prt_6b2e41c50098kKlLmMnNoOpP98', 'msg_6b2e41c50099kKlLmMnNoOpP99', 'ses_6b2e41c33ffeWx4Yz7Ab1Cd9Ef', 1777712470500, 1777712470500,
	'{"type":"text","text":"one more reply, 再来一个"}')`

// A followed Kilo CLI database: a write to it (its WAL) is imported
// through the mirror as it happens, to Kilo's tapes.
func TestFollowerFollowsAKiloDatabase(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	db := writeKiloDB(t, home)
	followDatabase(t, opencode.Kilo(), home, "kilo-Ab1Cd9Ef", "prt_6b2e41c40004kKlLmMnNoOpP24",
		func() { exec(t, db, oneMoreKiloReply) }, "prt_6b2e41c50098kKlLmMnNoOpP98")
}

// A Kilo CLI database is imported through its mirror, under
// .tape/import/kilo: a folder holding kilo.db becomes the mirror's files;
// a reply added later is imported alone. Kilo's current_state changed on
// a session adds the session's row again (an event) and nothing else.
func TestImportThroughAKiloMirror(t *testing.T) {
	home := t.TempDir()
	db := writeKiloDB(t, home)
	mirrorImport{src: opencode.Kilo(), dir: home, sessions: 3,
		change: func() {
			exec(t, db, oneMoreKiloReply)
			exec(t, db, `UPDATE session SET current_state = '又改了一次', time_updated = 1777712472000 WHERE id = 'ses_6b2e41a07ffeKq3Lm8Np2Rs5Tv'`)
		}, want: 3, what: "one reply was added (its run and its text) and a session's current_state changed (its row again)"}.check(t)
}
