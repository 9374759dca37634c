//go:build postgres

package remote

import (
	"context"
	"math"
	"testing"

	"github.com/tape-dev/tape/views"
)

// Token counts that are not counts (negative, a fraction, 2^63-1, 1e30,
// a string) are summed on the server as in the local index: as not
// given, the run counted among those with bad usage. Two runs of 2^63-1
// made every usage read of the team fail.
func TestUsageBadCounts(t *testing.T) {
	ws := newWorkspace(t)
	for _, u := range []any{-1000, 1.5, int64(math.MaxInt64), int64(math.MaxInt64), 1e30, "100", 10} {
		appendEntry(t, ws, "main", "event", map[string]any{"name": "run", "data": map[string]any{"model": "m",
			"usage": map[string]any{"input_tokens": u, "output_tokens": 7}}})
	}
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	syncNow(t, ix, conn)
	compareUsage(t, conn, ix, identity(t, ws))
	rows, _, err := Usage(t.Context(), conn, "workspace", nil, nil)
	if err != nil || len(rows) != 1 {
		t.Fatalf("usage by workspace: %+v, %v", rows, err)
	}
	if r := rows[0]; r.Runs != 7 || r.BadUsage != 6 || r.Input != 10 || r.Output != 49 || r.Total != 59 {
		t.Errorf("usage by workspace: %+v; want 7 runs, 6 with bad usage, 10 in, 49 out, 59 in all", r)
	}
}

// The server's sums never overflow: past the largest bigint they are
// read as it. Runs of 2^61 tokens, written by hand, stand for the 2^21
// runs at views.MaxRunTokens a sum needs to get there.
func TestUsageSumsSaturate(t *testing.T) {
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "event", map[string]any{"name": "run", "data": map[string]any{"model": "m",
		"usage": map[string]any{"input_tokens": views.MaxRunTokens, "output_tokens": views.MaxRunTokens}}})
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	syncNow(t, ix, conn)
	_, err := conn.Exec(context.Background(), `INSERT INTO tape.runs SELECT workspace_id, tape, folder, file, line + i, anchor_seq, eff_time, time, status, model,
		has_usage, 2305843009213693952, 2305843009213693952, 2305843009213693952, 2305843009213693952, 2305843009213693952, usage_id, counted, bad_usage
		FROM tape.runs, generate_series(1, 20) i`)
	if err != nil {
		t.Fatal(err)
	}
	for _, by := range UsageBy {
		rows, _, err := Usage(t.Context(), conn, by, nil, nil)
		if err != nil || len(rows) != 1 {
			t.Fatalf("usage by %s: %+v, %v", by, rows, err)
		}
		if r := rows[0]; r.Runs != 21 || r.Input != math.MaxInt64 || r.Total != math.MaxInt64 || r.CacheRead != math.MaxInt64 {
			t.Errorf("usage by %s: %+v; want 21 runs, each sum the largest bigint", by, r)
		}
	}
}
