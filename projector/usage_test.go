package projector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views/usage"
)

// Runs that share a usage id, on any tape, count once, the one with the
// largest total; when that one goes, the next counts.
func TestUsageCountsEachUsageIDOnce(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	ctx := context.Background()
	run := func(tape string, total int, usageID string) {
		tp, err := ws.Tape(tape)
		if err != nil {
			t.Fatal(err)
		}
		defer tp.Close()
		payload := fmt.Sprintf(`{"name":"run","data":{"model":"m","usage":{"input_tokens":%d},"usage_id":%q}}`, total, usageID)
		if _, err := tp.Append(ctx, tapelog.Entry{Kind: tapelog.KindEvent, Payload: []byte(payload)}); err != nil {
			t.Fatal(err)
		}
	}
	run("a", 10, "req1") // the stream's start, as Claude Code writes it
	run("b", 120, "req1")
	run("b", 7, "req2")
	p := openProjector(t, ws)
	total := func() (int64, int) {
		catchUp(t, p)
		rows, _, err := usage.Sum(ctx, p, usage.Filter{By: "model"})
		if err != nil || len(rows) != 1 {
			t.Fatalf("usage: %+v, %v", rows, err)
		}
		return rows[0].Input, rows[0].Runs
	}
	if in, runs := total(); in != 127 || runs != 2 {
		t.Fatalf("usage = %d tokens in %d runs; want 127 in 2 (req1 once, its larger report)", in, runs)
	}
	if err := os.RemoveAll(filepath.Join(ws.Dir(), "tapes", "b")); err != nil {
		t.Fatal(err)
	}
	if in, runs := total(); in != 10 || runs != 1 {
		t.Fatalf("without tape b, usage = %d tokens in %d runs; want 10 in 1", in, runs)
	}
}
