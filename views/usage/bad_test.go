package usage_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// Run events whose counts are not counts (negative, a fraction, 2^63-1,
// which a float64 rounds past an int64, 1e30, a string) sum as if they
// gave none, and are counted as runs with bad usage; the good counts
// beside them still sum. Two runs of 2^63-1 made every usage read of the
// workspace fail.
func TestBadCountsAreNotSummed(t *testing.T) {
	t.Parallel()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tp, err := ws.Tape("main")
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	var batch []tapelog.Entry
	for _, usage := range []string{
		`{"input_tokens":-1000,"output_tokens":7}`,
		`{"input_tokens":1.5,"output_tokens":7}`,
		`{"input_tokens":9223372036854775807,"output_tokens":7}`,
		`{"input_tokens":9223372036854775807,"output_tokens":7}`,
		`{"input_tokens":1e30,"output_tokens":7}`,
		`{"input_tokens":"100","output_tokens":7}`,
		`{"input_tokens":10,"output_tokens":7}`,
	} {
		payload := `{"name":"run","data":{"model":"m","usage":` + usage + `}}`
		batch = append(batch, tapelog.Entry{Kind: "event", Payload: []byte(payload), Date: "2026-03-01T10:00:00Z"})
	}
	if _, err := tp.Append(context.Background(), batch...); err != nil {
		t.Fatal(err)
	}
	p, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := usage.Row{Runs: 7, WithUsage: 7, BadUsage: 6, Input: 10, Output: 49, Total: 59}
	for _, by := range []string{"tape", "anchor", "model", "day"} {
		rows, _, err := usage.Sum(context.Background(), p, usage.Filter{By: by})
		if err != nil || len(rows) != 1 {
			t.Fatalf("usage by %s: %+v, %v", by, rows, err)
		}
		got := rows[0]
		got.Tape, got.Anchor, got.AnchorSeq, got.Model, got.Day = "", "", 0, "", ""
		if got != want {
			t.Errorf("usage by %s: %+v, want %+v", by, got, want)
		}
	}
	if got, err := usage.Total(context.Background(), p, nil); err != nil || got != want {
		t.Errorf("Total = %+v, %v; want %+v", got, err, want)
	}
}

// Sums of token counts never overflow: past the largest int64 they stay
// at it, in the kept totals (by day, by model), in the sums of the runs
// (by tape) and in Total across models. A run's counts are at most
// views.MaxRunTokens, and a sum overflows only past 2^21 runs at that
// bound, which take half a minute to insert here: runs of 2^61 tokens
// stand for them, summed by the same SQL.
func TestSumsSaturate(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/index.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(sessions.Table{}.Schema() + usage.Table{}.Schema()); err != nil {
		t.Fatal(err)
	}
	const big = int64(1) << 61
	for i := range 20 { // 20 * 2^61 tokens: past 2^63 in each model
		_, err := db.Exec(`INSERT INTO runs (entry, tape, anchor_seq, folder, time_ns, status, model, has_usage, input_tokens, output_tokens,
			cache_creation_tokens, cache_read_tokens, total_tokens) VALUES (?, 't', 1, 'f', ?, 'ok', ?, 1, ?, ?, ?, ?, ?)`,
			i, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixNano(), fmt.Sprint("m", i%2), big, big, big, big, big)
		if err != nil {
			t.Fatal(err)
		}
	}
	ix := sqlIndex{db}
	for _, by := range usage.Groupings {
		if by == "anchor" {
			continue // summed from the runs and the anchors, which this database lacks
		}
		rows, _, err := usage.Sum(context.Background(), ix, usage.Filter{By: by})
		if err != nil {
			t.Fatalf("usage by %s: %v", by, err)
		}
		for _, r := range rows {
			if r.Input != math.MaxInt64 || r.Total != math.MaxInt64 || r.CacheRead != math.MaxInt64 {
				t.Errorf("usage by %s: %+v; want each sum at the largest int64", by, r)
			}
		}
	}
	if got, err := usage.Total(context.Background(), ix, nil); err != nil || got.Total != math.MaxInt64 || got.Runs != 20 {
		t.Errorf("Total = %+v, %v; want 20 runs, the largest int64", got, err)
	}
}

// sqlIndex is a views.Index over a database that holds the usage view's
// tables alone.
type sqlIndex struct{ db *sql.DB }

func (ix sqlIndex) Read(ctx context.Context, fn func(views.Reader) error) error {
	return fn(sqlReader{ix.db})
}

type sqlReader struct{ *sql.DB }

func (sqlReader) Entry(context.Context, int64) (tapelog.Entry, error) {
	return tapelog.Entry{}, fmt.Errorf("no entries here")
}

func (sqlReader) ReadEntry(want tapelog.Entry) (tapelog.Entry, error) {
	return want, fmt.Errorf("no entries here")
}
