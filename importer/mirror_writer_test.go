package importer

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"
	"github.com/tape-dev/tape/importer/opencode"
	"github.com/tape-dev/tape/internal/sqlitefile"
	tapelog "github.com/tape-dev/tape/log"
)

// writerEnv names the database a test binary run as an OpenCode writer
// writes (runAsWriter), in another process than the imports.
const writerEnv = "TAPE_TEST_OPENCODE_WRITER"

func TestMain(m *testing.M) {
	if db := os.Getenv(writerEnv); db != "" {
		os.Exit(runAsWriter(db))
	}
	os.Exit(m.Run())
}

// writerSessions and writerMessages are what the writer writes: each
// message a transaction of its row and its two parts, as OpenCode
// commits a finished reply.
const writerSessions, writerMessages = 12, 15

// runAsWriter writes sessions into the OpenCode database db as OpenCode
// does (WAL), with no busy timeout: a lock held by an import would fail
// a write at once instead of delaying it. It exits 1 on any failure.
func runAsWriter(db string) int {
	conn, err := sql.Open("sqlite", sqlitefile.URI(db)+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(0)")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	base := time.Now().Add(-time.Hour).UnixMilli() // finished rows, as far as the export's settle goes
	for s := range writerSessions {
		id := fmt.Sprintf("ses_w%02d", s)
		if _, err := conn.Exec(`INSERT INTO session VALUES (?, 'p', NULL, 's', '/w', ?, '1', NULL, NULL, NULL, ?, ?, NULL, NULL)`,
			id, "会话 "+strconv.Itoa(s), base, base); err != nil {
			fmt.Fprintf(os.Stderr, "session %s: %v\n", id, err)
			return 1
		}
		for m := range writerMessages {
			if err := writeMessage(conn, id, m, base+int64(s*1000+m)); err != nil {
				fmt.Fprintf(os.Stderr, "session %s, message %d: %v\n", id, m, err)
				return 1
			}
		}
	}
	return 0
}

func writeMessage(conn *sql.DB, session string, m int, at int64) error {
	tx, err := conn.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	msg := fmt.Sprintf("msg_%s_%03d", session, m)
	role := "user"
	if m%2 == 1 {
		role = "assistant"
	}
	data := fmt.Sprintf(`{"role":%q,"time":{"created":%d,"completed":%d}}`, role, at, at)
	if _, err := tx.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, msg, session, at, at, data); err != nil {
		return err
	}
	for p := range 2 {
		text := fmt.Sprintf(`{"type":"text","text":"word%d of %s, 第%d段"}`, p, msg, p)
		if _, err := tx.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, fmt.Sprintf("prt_%s_%d", msg, p), msg, session, at, at, text); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Imports of an OpenCode database while OpenCode, in another process,
// writes it: the writer, which waits for no lock, never fails, and the
// workspace the imports made holds what one import of the finished
// database makes, each entry once.
func TestImportBesideAWriterProcess(t *testing.T) {
	home := t.TempDir()
	db := filepath.Join(home, "opencode.db")
	mirrortest.NewDB(t, db, mirrortest.Schema(mirrortest.Read(t, filepath.Join("..", "testdata", "import", "opencode", "opencode.sql")))).Close()
	writer := osexec.Command(os.Args[0], "-test.run=^$")
	writer.Env = append(os.Environ(), writerEnv+"="+db)
	var out bytes.Buffer // written by one goroutine: Stdout and Stderr are the same
	writer.Stdout, writer.Stderr = &out, &out
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- writer.Wait() }()

	ctx := context.Background()
	ws := newWorkspace(t, t.TempDir())
	imports := 0
	importOnce := func(into *tapelog.Workspace) {
		t.Helper()
		imp := New(into, opencode.Source{})
		imp.Warn = func(err error) { t.Errorf("import beside the writer: %v", err) }
		if _, err := imp.Import(ctx, []string{home}); err != nil {
			t.Fatalf("import beside the writer: %v", err)
		}
	}
	var werr error
wait:
	for {
		select {
		case werr = <-exited:
			break wait
		default:
			importOnce(ws)
			imports++
		}
	}
	if werr != nil {
		t.Fatalf("the writer failed beside %d imports: %v\n%s", imports, werr, out.String())
	}
	t.Logf("%d imports ran while the writer wrote", imports)
	importOnce(ws)
	fresh := newWorkspace(t, t.TempDir())
	importOnce(fresh)
	got, want := entryCounts(t, ws), entryCounts(t, fresh)
	if len(want) != writerSessions {
		t.Fatalf("one import of the finished database made %d tapes, want %d", len(want), writerSessions)
	}
	for tape, ids := range want {
		for id := range ids {
			if got[tape][id] != 1 {
				t.Errorf("tape %s holds entry %s %d times after %d imports beside the writer; one import makes it once", tape, id, got[tape][id], imports)
			}
		}
	}
}

// entryCounts are the entries of every tape of ws: how many times each
// id is there.
func entryCounts(t *testing.T, ws *tapelog.Workspace) map[string]map[string]int {
	t.Helper()
	names, err := ws.Tapes()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]int{}
	for _, name := range names {
		tp, err := ws.Tape(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = map[string]int{}
		for e, err := range tp.All(context.Background()) {
			if err != nil {
				t.Fatalf("read tape %s: %v", name, err)
			}
			out[name][e.ID]++
		}
	}
	return out
}
