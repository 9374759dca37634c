//go:build postgres

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tape-dev/tape/remote"
	"github.com/tape-dev/tape/testkit/poll"
)

// Run events with token counts that are not counts (2^63-1 twice, which
// summed to an overflow, and a negative) no longer break a usage read:
// tape usage, tape info --all-tapes and, after tape sync, tape usage
// --remote answer, leave those counts out, and say how many runs gave
// them.
func TestPostgresBadTokenCounts(t *testing.T) {
	dir := newCLIWorkspace(t)
	for _, usage := range []string{`{"input_tokens":9223372036854775807,"output_tokens":1}`, `{"input_tokens":9223372036854775807,"output_tokens":1}`,
		`{"input_tokens":-5,"output_tokens":1}`, `{"input_tokens":10,"output_tokens":1}`} {
		mustProcess(t, dir, nil, "append", "--kind", "event", `{"name":"run","data":{"model":"m","usage":`+usage+`}}`)
	}
	check := func(what string, args ...string) {
		t.Helper()
		stdout, stderr, code := runWithEnv(t, dir, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", what, code, stderr)
		}
		recs := jsonRecords(t, stdout)
		if len(recs) != 1 || recs[0]["runs_bad_usage"] != 3.0 || recs[0]["input_tokens"] != 10.0 || recs[0]["total_tokens"] != 14.0 {
			t.Errorf("%s: %v; want 3 runs with bad usage, 10 tokens in, 14 in all", what, recs)
		}
		if !strings.Contains(stderr, "warning: 3 runs gave token counts that are not whole numbers") {
			t.Errorf("%s: stderr says nothing of the bad counts:\n%s", what, stderr)
		}
	}
	check("tape usage", "usage", "--json")
	if _, stderr, code := runWithEnv(t, dir, nil, "info", "--all-tapes", "--json"); code != 0 {
		t.Errorf("tape info --all-tapes: exit %d\n%s", code, stderr)
	}
	url := pgServer.DB(t)
	mustProcess(t, dir, nil, "sync", url)
	check("tape usage --remote", "usage", "--remote", url, "--by", "workspace", "--json")
}

// tape sync run while another session holds the server's lock of the
// workspace (as a sync killed a moment ago does, until the server ends
// its session) says it waits, and syncs once the lock is released,
// instead of being refused at once with exit 4.
func TestPostgresSyncWaitsForALock(t *testing.T) {
	ctx := context.Background()
	dir := newCLIWorkspace(t)
	url := pgServer.DB(t)
	mustProcess(t, dir, nil, "sync", url)
	wsID := workspaceID(t, dir)
	holder, err := remote.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	const key = `hashtextextended('tape.sync/' || $1, 0)`
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`, wsID); err != nil {
		t.Fatal(err)
	}
	mustProcess(t, dir, nil, "append", "--kind", "message", `{"role":"user","content":"after the lock"}`)
	cmd := tapeProcess(dir, "sync", url)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	poll.Until(t, 30*time.Second, "tape sync to say it waits for the lock", func() bool {
		select {
		case err := <-done:
			t.Fatalf("tape sync ended while the lock was held: %v\n%s", err, stderr.String())
		default:
		}
		return strings.Contains(stderr.String(), "waiting up to 10s for the server's lock")
	})
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock(`+key+`)`, wsID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("tape sync after the lock was released: %v\n%s", err, stderr.String())
	}
	if !remoteFinds(t, dir, url, "after the lock") {
		t.Error("the entry appended before the sync is not on the server")
	}
}

// A workspace deleted and made again in the same folder syncs under a
// new id, and the old one's sessions stay on the server: the sync names
// the old one and the command that removes it; tape sync --list shows
// both, the new one as here; tape sync --forget removes the old one, and
// --remote counts each session once.
func TestPostgresForgetAWorkspaceMadeAgain(t *testing.T) {
	dir := newCLIWorkspace(t)
	url := pgServer.DB(t)
	mustProcess(t, dir, nil, "append", "--kind", "message", `{"role":"user","content":"made twice"}`)
	mustProcess(t, dir, nil, "sync", url)
	old := workspaceID(t, dir)
	if err := os.RemoveAll(filepath.Join(dir, ".tape")); err != nil {
		t.Fatal(err)
	}
	mustProcess(t, dir, nil, "init")
	mustProcess(t, dir, nil, "append", "--kind", "message", `{"role":"user","content":"made twice"}`)
	_, stderr, code := runWithEnv(t, dir, nil, "sync", url)
	if code != 0 || !strings.Contains(stderr, "warning: the server also holds workspace") || !strings.Contains(stderr, "hint: 'tape sync --forget "+old+"'") {
		t.Fatalf("the sync of the workspace made again: exit %d, stderr:\n%s\nwant a warning naming %s and the command that removes it", code, stderr, old)
	}
	recs := jsonRecords(t, mustProcess(t, dir, nil, "sync", "--list", url, "--json"))
	if len(recs) != 2 || recs[0]["here"] == recs[1]["here"] {
		t.Fatalf("tape sync --list: %v; want two workspaces, one of them here", recs)
	}
	for _, r := range recs {
		if r["here"] == (r["workspace_id"] == old) || r["tapes"] != 1.0 || r["path"] != filepath.Join(dir, ".tape") {
			t.Errorf("tape sync --list: %v", r)
		}
	}
	if out := mustProcess(t, dir, nil, "sync", "--list", url); strings.Count(out, "\n") != 2 || !strings.Contains(out, " (here)") || !strings.Contains(out, old) {
		t.Errorf("tape sync --list:\n%s", out)
	}
	if out := mustProcess(t, dir, nil, "search", "--remote", url, "made twice", "--json"); len(jsonRecords(t, out)) != 2 {
		t.Errorf("before --forget, search --remote finds %d entries; want 2", len(jsonRecords(t, out)))
	}
	if out := mustProcess(t, dir, nil, "sync", "--forget", old, url); !strings.Contains(out, "removed workspace") || !strings.Contains(out, old) {
		t.Errorf("tape sync --forget: %s", out)
	}
	if out := mustProcess(t, dir, nil, "search", "--remote", url, "made twice", "--json"); len(jsonRecords(t, out)) != 1 {
		t.Errorf("after --forget, search --remote finds %d entries; want 1", len(jsonRecords(t, out)))
	}
	if _, stderr := mustSync(t, dir, url); strings.Contains(stderr, "warning") {
		t.Errorf("a sync after --forget still warns:\n%s", stderr)
	}
	if _, stderr, code := runWithEnv(t, dir, nil, "sync", "--forget", old, url); code != exitServer || !strings.Contains(stderr, "no workspace has the id") {
		t.Errorf("tape sync --forget of an id that is gone: exit %d, %s", code, stderr)
	}
}

func mustSync(t *testing.T, dir, url string) (string, string) {
	t.Helper()
	stdout, stderr, code := runWithEnv(t, dir, nil, "sync", url)
	if code != 0 {
		t.Fatalf("tape sync: exit %d\n%s", code, stderr)
	}
	return stdout, stderr
}

// rowsText is every value the server holds of a workspace, a line each,
// as PostgreSQL writes each column as text (JSON, text, search vectors).
func rowsText(t *testing.T, url, wsID string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := remote.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
		WHERE c.table_schema = 'tape' AND EXISTS (SELECT 1 FROM information_schema.columns w
			WHERE w.table_schema = 'tape' AND w.table_name = c.table_name AND w.column_name = 'workspace_id')`)
	if err != nil {
		t.Fatal(err)
	}
	type column struct{ Table, Name, Type string }
	cols, err := pgx.CollectRows(rows, pgx.RowToStructByPos[column])
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range cols {
		value := pgx.Identifier{c.Name}.Sanitize() + `::text`
		if c.Type == "bytea" { // a line as it was read: its text, not its hex
			value = `convert_from(` + pgx.Identifier{c.Name}.Sanitize() + `, 'UTF8')`
		}
		q := `SELECT coalesce(` + value + `, '') FROM tape.` + pgx.Identifier{c.Table}.Sanitize() + ` WHERE workspace_id = $1`
		rows, err := conn.Query(ctx, q, wsID)
		if err != nil {
			t.Fatal(err)
		}
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(strings.Join(texts, "\n") + "\n")
	}
	return b.String()
}

// tape sync sends no planted secret: no row of the server holds one, in
// a line, a text, a state or a search vector; "redact_sync": false in
// config.json sends them (the check sees them then).
func TestPostgresSyncRedactsEverySecret(t *testing.T) {
	t.Parallel()
	for _, redacted := range []bool{true, false} {
		dir := newCLIWorkspace(t)
		planted := writePlanted(t, dir, "leaky", 8)
		if !redacted {
			cfg := filepath.Join(dir, ".tape", "config.json")
			data, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.Replace(string(data), "{", `{"redact_sync": false,`, 1))
			if err := os.WriteFile(cfg, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		url := pgServer.DB(t)
		mustProcess(t, dir, nil, "sync", url)
		all := rowsText(t, url, workspaceID(t, dir))
		sent := 0
		for _, p := range planted {
			first, _, _ := strings.Cut(p.Secret, "\n")
			for _, form := range []string{p.Secret, jsonInner(p.Secret), jsonInner(jsonInner(p.Secret)), strings.ToLower(first)} {
				if i := strings.Index(all, form); i >= 0 {
					sent++
					if redacted {
						t.Errorf("%s on the server, after %q", p.Name, all[max(0, i-120):i])
					}
					break
				}
			}
		}
		if !redacted && sent != len(planted) {
			t.Errorf("redact_sync false: %d of %d secrets on the server; the check does not see what is sent", sent, len(planted))
		}
	}
}
