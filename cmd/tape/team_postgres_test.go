//go:build postgres

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/tape-dev/tape/remote"
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
	waitFor(t, "tape sync to say it waits for the lock", func() bool {
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
