//go:build postgres

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/remote"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/testkit/pgtest"
	"github.com/tape-dev/tape/testkit/poll"
)

// tape sync and --remote as real processes, against a real PostgreSQL
// server that the tests start (go test -tags postgres ./cmd/tape -run
// Postgres; .ci/run does).

// sessionsDir writes a workspace of n generated sessions into a new
// folder and returns the folder.
func sessionsDir(t *testing.T, n int, seed uint64) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpus.GenerateSessions(filepath.Join(dir, tapelog.DirName), corpus.SessionOptions{Tapes: n, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runWithEnv runs tape as a child process with env added to its
// environment, and returns its stdout, stderr and exit code.
func runWithEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := tapeProcess(dir, args...)
	cmd.Env = append(cmd.Env, env...)
	return runCommand(t, cmd)
}

func mustProcess(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	stdout, stderr, code := runWithEnv(t, dir, env, args...)
	if code != 0 {
		t.Fatalf("tape %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// workspaceID reads the id the workspace in dir has in config.json.
func workspaceID(t *testing.T, dir string) string {
	t.Helper()
	ws, err := tapelog.Open(filepath.Join(dir, tapelog.DirName))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Config().Workspace == nil {
		t.Fatal("config.json names no workspace")
	}
	return ws.Config().Workspace.ID
}

// serverDump is every row the server at url holds of the workspace.
func serverDump(t *testing.T, url, wsID string) string {
	t.Helper()
	conn, err := remote.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	d, err := remote.Dump(context.Background(), conn, wsID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func countRows(t *testing.T, url, table, wsID string) int {
	t.Helper()
	conn, err := remote.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM tape.`+table+` WHERE workspace_id = $1`, wsID).Scan(&n); err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return 0 // killed before the schema was made
		}
		t.Fatal(err)
	}
	return n
}

// `tape sync` killed with SIGKILL at random points, again and again,
// with appends between, then run to its end, holds on the server row for
// row what one clean sync of the same files writes: no row twice, none
// lost. Transactions of 20 rows make every kill land mid-sync.
func TestPostgresSyncKilledAtRandomConverges(t *testing.T) {
	dir := sessionsDir(t, 120, 3)
	url := pgServer.DB(t)
	r := rand.New(rand.NewPCG(5, 8))
	mustProcess(t, dir, nil, "reindex") // the kills are of the sync, not of the first index build
	start := time.Now()
	mustProcess(t, dir, nil, "sync", pgServer.DB(t), "--batch-rows", "20") // how long a whole sync takes, into another database
	whole := time.Since(start)
	wsID := workspaceID(t, dir)
	var partial []int
	for round := range 8 {
		cmd := tapeProcess(dir, "sync", url, "--batch-rows", "20")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int64N(int64(whole)))) // a random point of the sync: the kill is the test's subject
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		partial = append(partial, countRows(t, url, "entries", wsID))
		if round%3 == 1 {
			mustProcess(t, dir, nil, "append", "-t", fmt.Sprintf("killed-%d", round), "--kind", "message", `{"role":"user","content":"between kills"}`)
		}
	}
	mustProcess(t, dir, nil, "sync", url)
	final := countRows(t, url, "entries", wsID)
	mid := 0
	for _, n := range partial {
		if n > 0 && n < final {
			mid++
		}
	}
	if mid == 0 {
		t.Errorf("no kill landed mid-sync (entries after each kill: %v of %d); the test tests nothing", partial, final)
	}
	clean := pgServer.DB(t)
	mustProcess(t, dir, nil, "sync", clean)
	if got, want := serverDump(t, url, wsID), serverDump(t, clean, wsID); got != want {
		t.Errorf("after kills at %v entries, the server holds\n%.3000s\none clean sync holds\n%.3000s", partial, got, want)
	}
}

// A server that goes away mid-sync: tape sync says so, names the server
// without its password, exits 4, and says that running it again goes on;
// once the server is back, the next sync ends where a clean one does.
func TestPostgresServerGoesAwayMidSync(t *testing.T) {
	ctx := context.Background()
	srv, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	db, err := srv.CreateDB(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	url := srv.URL(db)
	dir := sessionsDir(t, 150, 4)
	mustProcess(t, dir, nil, "reindex")
	cmd := tapeProcess(dir, "sync", url, "--batch-rows", "10")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wsID := waitForRows(t, dir, url)
	if err := srv.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitServer {
		t.Fatalf("tape sync against a server that went away: %v, want exit %d; stderr:\n%s", err, exitServer, stderr.String())
	}
	msg := stderr.String()
	if strings.Contains(msg, srv.Password) || !strings.Contains(msg, "xxxxx@127.0.0.1") || !strings.Contains(msg, "run 'tape sync' again") {
		t.Errorf("tape sync's error names the server by its URL without the password, and says to run it again; it said:\n%s", msg)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	mustProcess(t, dir, nil, "sync", url)
	clean := pgServer.DB(t)
	mustProcess(t, dir, nil, "sync", clean)
	if got, want := serverDump(t, url, wsID), serverDump(t, clean, wsID); got != want {
		t.Errorf("after the server came back, the server holds\n%.3000s\none clean sync holds\n%.3000s", got, want)
	}
	// A server that is not there at all.
	srv.Kill(ctx)
	_, stderr2, code := runWithEnv(t, dir, nil, "sync", url)
	if code != exitServer || strings.Contains(stderr2, srv.Password) || !strings.Contains(stderr2, "hint: ") {
		t.Errorf("tape sync to a stopped server: exit %d, stderr:\n%s", code, stderr2)
	}
}

// waitForRows polls until the server holds some of the workspace's
// entries, and returns the workspace's id.
func waitForRows(t *testing.T, dir, url string) string {
	t.Helper()
	var id string
	poll.Until(t, 30*time.Second, "the sync's first rows on the server", func() bool {
		ws, err := tapelog.Open(filepath.Join(dir, tapelog.DirName))
		if err != nil {
			return false
		}
		defer ws.Close()
		if ws.Config().Workspace == nil {
			return false
		}
		id = ws.Config().Workspace.ID
		return countRows(t, url, "entries", id) > 0
	})
	return id
}

// tape watch --sync keeps the server in step as entries are written; a
// server that goes away leaves the local index live, and what was
// written meanwhile reaches the server once it is back.
func TestPostgresWatchSync(t *testing.T) {
	ctx := context.Background()
	srv, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	db, _ := srv.CreateDB(ctx, "watch")
	url := srv.URL(db)
	dir := newCLIWorkspace(t)
	mustProcess(t, dir, nil, "append", "--kind", "message", `{"role":"user","content":"first"}`)
	watch := tapeProcess(dir, "watch", "--sync", url, "--reconcile", "200ms")
	var stderr syncBuffer
	watch.Stderr = &stderr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		watch.Process.Signal(syscall.SIGTERM)
		watch.Wait()
	}()
	wsID := waitForRows(t, dir, url)
	poll.Until(t, 30*time.Second, "the first entry on the server", func() bool { return remoteFinds(t, dir, url, "first") })
	mustProcess(t, dir, nil, "append", "--kind", "message", `{"role":"user","content":"second 第二"}`)
	poll.Until(t, 30*time.Second, "an appended entry on the server", func() bool { return remoteFinds(t, dir, url, "第二") })

	srv.Kill(ctx)
	mustProcess(t, dir, nil, "append", "--kind", "message", `{"role":"user","content":"while the server was away"}`)
	if out := mustProcess(t, dir, nil, "search", "away", "--json"); !strings.Contains(out, "while the server was away") {
		t.Errorf("with the server gone, the local index did not find the new entry: %s", out)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "the entry written while the server was away, on the server", func() bool { return remoteFinds(t, dir, url, "away") })
	if n := countRows(t, url, "entries", wsID); n != 4 {
		t.Errorf("the server holds %d entries, want 4 (the anchor and three messages)", n)
	}
	if !strings.Contains(stderr.String(), "sync to postgres://tape:xxxxx@") || strings.Contains(stderr.String(), srv.Password) {
		t.Errorf("the watcher says nothing of the failed syncs, or shows the password:\n%s", stderr.String())
	}
}

// remoteFinds reports whether tape search --remote finds query.
func remoteFinds(t *testing.T, dir, url, query string) bool {
	t.Helper()
	_, _, code := runWithEnv(t, dir, nil, "search", "--remote", url, query)
	return code == 0
}

// The roles of docs/TEAM.md, made by its SQL as written: tape_sync syncs
// (making the schema's tables), tape_read searches, lists, sums and
// restores, and may not write; the passwords come from a .pgpass file.
func TestPostgresLeastPrivilegeRoles(t *testing.T) {
	ctx := context.Background()
	srv := pgServer.Server(t)
	db, err := srv.CreateDB(ctx, "roles")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/TEAM.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/TEAM.md has no ```sql block")
	}
	if _, err := srv.Psql(ctx, db, string(m[1])); err != nil {
		t.Fatal(err)
	}
	pgpass := filepath.Join(t.TempDir(), "pgpass")
	port := strconv.Itoa(srv.Port)
	if err := os.WriteFile(pgpass, []byte("127.0.0.1:"+port+":"+db+":tape_sync:sync-secret\n127.0.0.1:"+port+":"+db+":tape_read:read-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PGPASSFILE=" + pgpass}
	syncURL := "postgres://tape_sync@127.0.0.1:" + port + "/" + db + "?sslmode=disable"
	readURL := "postgres://tape_read@127.0.0.1:" + port + "/" + db + "?sslmode=disable"
	dir := sessionsDir(t, 10, 6)
	mustProcess(t, dir, env, "append", "-t", "mine", "--kind", "message", `{"role":"user","content":"权限 quuxFrobnicate"}`)
	mustProcess(t, dir, env, "sync", syncURL)
	wsID := workspaceID(t, dir)

	if out := mustProcess(t, dir, env, "search", "--remote", readURL, "frobnicate", "--json"); !strings.Contains(out, `"workspace":`) {
		t.Errorf("search --remote as tape_read: %s", out)
	}
	if out := mustProcess(t, dir, env, "tapes", "--remote", readURL, "--count"); strings.TrimSpace(out) != "11" {
		t.Errorf("tapes --remote --count as tape_read = %q, want 11", out)
	}
	mustProcess(t, dir, env, "usage", "--remote", readURL, "--by", "workspace", "--json")
	mustProcess(t, dir, env, "restore", "--remote", readURL, "--workspace", wsID, "--tape", "mine", filepath.Join(t.TempDir(), "copy"))
	if _, stderr, code := runWithEnv(t, dir, env, "sync", readURL); code != exitServer || !strings.Contains(stderr, "permission denied") {
		t.Errorf("tape sync as tape_read: exit %d, %s; want exit %d, permission denied", code, stderr, exitServer)
	}
	// A workspace's first sync, refused: config.json gets no id, which
	// would be an id the server never took.
	fresh := newCLIWorkspace(t)
	_, stderr, code := runWithEnv(t, fresh, env, "sync", readURL)
	if code != exitServer || !strings.Contains(stderr, "permission denied") || !strings.Contains(stderr, "hint: the role lacks a right") {
		t.Errorf("a first tape sync as tape_read: exit %d, %s; want exit %d, permission denied and a hint of the role's rights", code, stderr, exitServer)
	}
	if config, err := os.ReadFile(filepath.Join(fresh, ".tape", "config.json")); err != nil || strings.Contains(string(config), `"workspace"`) {
		t.Errorf("after a refused first sync, config.json holds:\n%s (%v)", config, err)
	}
	// Nor does tape watch --sync, whose syncs are refused alike.
	watch := tapeProcess(fresh, "watch", "--sync", readURL)
	watch.Env = append(watch.Env, env...)
	var watchErr syncBuffer
	watch.Stderr = &watchErr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "tape watch --sync's refused sync", func() bool { return strings.Contains(watchErr.String(), "permission denied") })
	watch.Process.Signal(syscall.SIGTERM)
	watch.Wait()
	if config, err := os.ReadFile(filepath.Join(fresh, ".tape", "config.json")); err != nil || strings.Contains(string(config), `"workspace"`) {
		t.Errorf("after tape watch --sync's refused syncs, config.json holds:\n%s (%v)", config, err)
	}
	conn, err := pgx.Connect(ctx, srv.URLAs("tape_sync", "sync-secret", db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{`CREATE SCHEMA other`, `CREATE ROLE someone`, `CREATE DATABASE another`} {
		if _, err := conn.Exec(ctx, stmt); err == nil {
			t.Errorf("tape_sync may %s", stmt)
		}
	}
}

// Two workspaces, as two machines would, sync into one database; each
// one's sessions are found, listed and totalled from the other, with
// the workspace's name, and --workspace narrows to one.
func TestPostgresTwoMachines(t *testing.T) {
	url := pgServer.DB(t)
	a, b := sessionsDir(t, 15, 7), sessionsDir(t, 12, 8)
	mustProcess(t, a, nil, "append", "-t", "alpha", "--kind", "message", `{"role":"user","content":"只在甲 plughWibble"}`)
	mustProcess(t, b, nil, "append", "-t", "beta", "--kind", "message", `{"role":"user","content":"只在乙 xyzzyFrob"}`)
	mustProcess(t, a, nil, "sync", url)
	mustProcess(t, b, nil, "sync", url)
	nameA, nameB := workspaceName(t, a), workspaceName(t, b)
	if nameA == nameB {
		t.Fatalf("two folders got one name: %s", nameA)
	}
	recs := jsonRecords(t, mustProcess(t, a, nil, "search", "--remote", url, "xyzzy", "--json"))
	if len(recs) != 1 || recs[0]["workspace"] != nameB || recs[0]["tape"] != "beta" {
		t.Errorf("machine A searching for B's word: %v", recs)
	}
	recs = jsonRecords(t, mustProcess(t, b, nil, "search", "--remote", url, "只在甲", "--json"))
	if len(recs) != 1 || recs[0]["workspace"] != nameA {
		t.Errorf("machine B searching for A's Chinese: %v", recs)
	}
	if _, _, code := runWithEnv(t, a, nil, "search", "--remote", url, "xyzzy", "--workspace", nameA); code != exitNoMatch {
		t.Errorf("--workspace %s found B's word: exit %d", nameA, code)
	}
	usage := jsonRecords(t, mustProcess(t, a, nil, "usage", "--remote", url, "--by", "workspace", "--json"))
	if len(usage) != 2 || usage[0]["workspace"] == usage[1]["workspace"] {
		t.Errorf("usage --by workspace: %v", usage)
	}
	tapes := jsonRecords(t, mustProcess(t, a, nil, "tapes", "--remote", url, "-n", "0", "--json"))
	if len(tapes) != 29 {
		t.Errorf("tapes --remote lists %d tapes, want 29", len(tapes))
	}
}

func workspaceName(t *testing.T, dir string) string {
	t.Helper()
	ws, err := tapelog.Open(filepath.Join(dir, tapelog.DirName))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	return ws.Config().Workspace.Name
}
