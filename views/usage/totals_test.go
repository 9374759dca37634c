package usage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tape-dev/tape/pricing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/usage"
)

// The kept totals (by day, hour, tape, project, source and session, each
// by model) are, after every pass, what summing the counted runs gives:
// runs come in, share usage ids across tapes (so which one counts moves),
// and go with a tape removed or a file cut short and rewritten; a tape's
// first anchor comes to name another agent, session or cwd.
func TestTotalsAreTheSumOfTheRuns(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			ws, p := newIndexed(t)
			priced := 0 // runs priced, over the steps
			for step := range 24 {
				change(t, r, ws, step)
				// Now and then the index is built anew: each tape's runs
				// come before its sessions row does.
				catchUp := p.CatchUp
				if r.IntN(4) == 0 {
					catchUp = p.Rebuild
				}
				if _, err := catchUp(context.Background()); err != nil {
					t.Fatal(err)
				}
				for _, by := range []string{"day", "model", "tape"} {
					kept, _, err := usage.Sum(context.Background(), p, usage.Filter{By: by})
					if err != nil {
						t.Fatal(err)
					}
					var summed []usage.Row
					err = p.Read(context.Background(), func(rd views.Reader) error {
						summed, err = usage.SumRuns(context.Background(), rd, usage.Filter{By: by}, byColumns(by))
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(kept, summed) {
						t.Fatalf("step %d, by %s: kept totals\n%+v\nsummed runs\n%+v", step, by, kept, summed)
					}
				}
				var kept map[string][2]string
				err := p.Read(context.Background(), func(rd views.Reader) error {
					var err error
					kept, err = usage.KeptAndSummed(context.Background(), rd)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for g, k := range kept {
					if k[0] != k[1] {
						t.Fatalf("step %d, kept by %s:\n%s\nsummed runs:\n%s", step, g, k[0], k[1])
					}
				}
				// The cost of each tape, from the totals by tape, is the
				// cost of its runs summed by tape.
				byTape, _, err := usage.Sum(context.Background(), p, usage.Filter{By: "tape", Prices: testPrices})
				if err != nil {
					t.Fatal(err)
				}
				costs, err := usage.CostByTape(context.Background(), p, testPrices, nil)
				if err != nil {
					t.Fatal(err)
				}
				// And of some tapes, named: theirs alone.
				var some []string
				for i, u := range byTape {
					if i%2 == 0 {
						some = append(some, u.Tape)
					}
				}
				someCosts, err := usage.CostByTape(context.Background(), p, testPrices, some)
				if err != nil {
					t.Fatal(err)
				}
				for name, c := range someCosts {
					if !slices.Contains(some, name) || c != costs[name] {
						t.Fatalf("step %d: CostByTape of %v: %s costs %v; of every tape, %v", step, some, name, c, costs[name])
					}
				}
				for _, name := range some {
					if hasKey(costs, name) != hasKey(someCosts, name) {
						t.Fatalf("step %d: CostByTape of %v left out %s", step, some, name)
					}
				}
				for _, u := range byTape {
					if c, ok := costs[u.Tape]; ok != (u.PricedRuns > 0) || math.Abs(c-u.CostUSD) > 1e-9 {
						t.Fatalf("step %d, tape %s: CostByTape %v (%v), summed %v of %d priced runs", step, u.Tape, c, ok, u.CostUSD, u.PricedRuns)
					}
					priced += u.PricedRuns
				}
				// Total is the workspace's sum, whichever way it is grouped.
				byDay, _, err := usage.Sum(context.Background(), p, usage.Filter{By: "day"})
				if err != nil {
					t.Fatal(err)
				}
				var want usage.Row
				for _, u := range byDay {
					want.Runs, want.WithUsage, want.Input, want.Output = want.Runs+u.Runs, want.WithUsage+u.WithUsage, want.Input+u.Input, want.Output+u.Output
					want.CacheCreation, want.CacheRead, want.Total = want.CacheCreation+u.CacheCreation, want.CacheRead+u.CacheRead, want.Total+u.Total
				}
				if got, err := usage.Total(context.Background(), p, nil); err != nil || got != want {
					t.Fatalf("step %d: Total = %+v, %v; the days sum to %+v", step, got, err, want)
				}
			}
			if priced == 0 {
				t.Fatal("no run was priced in any step: the check of the costs checked nothing")
			}
		})
	}
}

// newIndexed is a new workspace and its index, closed when t ends.
func newIndexed(t *testing.T) (*tapelog.Workspace, *projector.Projector) {
	t.Helper()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	p, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return ws, p
}

func hasKey(m map[string]float64, k string) bool {
	_, ok := m[k]
	return ok
}

// testPrices price two of the three models appendRuns writes, the one
// with a tier above 200k tokens.
var testPrices = func() *pricing.Table {
	t, err := pricing.Parse([]byte(`{"m-a": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "cache_read_input_token_cost": 1e-07,
		"input_cost_per_token_above_200k_tokens": 3e-06}, "m-b": {"input_cost_per_token": 5e-07, "output_cost_per_token": 4e-06}}`))
	if err != nil {
		panic(err)
	}
	return t
}()

// byColumns is the grouping columns Sum selects for by.
func byColumns(by string) string {
	return map[string]string{
		"day":   `'', 0, '', '', coalesce(strftime('%Y-%m-%d', r.time_ns / 1000000000, 'unixepoch'), '')`,
		"model": `'', 0, '', r.model, ''`,
		"tape":  `r.tape, 0, '', '', ''`,
	}[by]
}

// change makes one random change to the workspace's run events.
func change(t *testing.T, r *rand.Rand, ws *tapelog.Workspace, step int) {
	t.Helper()
	tape := fmt.Sprintf("t%d", r.IntN(4))
	switch k := r.IntN(12); {
	case k < 5 || step == 0:
		appendRuns(t, r, ws, tape, 1+r.IntN(8))
	case k < 7:
		os.RemoveAll(filepath.Join(ws.Dir(), "tapes", tape)) // a tape gone, its runs with it
	case k < 10:
		// The tape's first anchor says another agent, session or cwd: the
		// totals by project, source and session move with its sessions row.
		file := filepath.Join(ws.Dir(), "tapes", tape, "anchors", "001_session-start", "anchor.json")
		if _, err := os.Stat(file); err != nil {
			return
		}
		state := map[string]any{"source": []string{"", "claude", "codex"}[r.IntN(3)], "session_id": []string{"", "s1", "s2"}[r.IntN(3)],
			"cwd": []string{"", "/a", "/b"}[r.IntN(3)]}
		if r.IntN(2) == 0 {
			state["parent_session"] = "s1"
		}
		line, _ := json.Marshal(map[string]any{"kind": "anchor", "payload": map[string]any{"name": "session/start", "state": state},
			"date": "2026-03-01T00:00:00Z"})
		// Replaced as a whole (renamed over), as an anchor.json is.
		if err := os.WriteFile(file+".new", append(line, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(file+".new", file); err != nil {
			t.Fatal(err)
		}
	default:
		// A file cut short and written again: its runs are removed and
		// read anew.
		files, _ := filepath.Glob(filepath.Join(ws.Dir(), "tapes", tape, "anchors", "*", "*.jsonl"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			os.WriteFile(f, data[:len(data)/2], 0o600)
			os.WriteFile(f, data, 0o600)
		}
	}
}

func appendRuns(t *testing.T, r *rand.Rand, ws *tapelog.Workspace, tape string, n int) {
	t.Helper()
	tp, err := ws.Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	var batch []tapelog.Entry
	for range n {
		data := map[string]any{"status": "ok", "model": []string{"m-a", "m-b", "m-c", ""}[r.IntN(4)],
			"usage": map[string]any{"input_tokens": r.IntN(1000), "output_tokens": r.IntN(100), "cache_read_input_tokens": r.IntN(50)}}
		if r.IntN(4) == 0 { // above pricing's thresholds: the totals keep how far above
			data["usage"] = map[string]any{"input_tokens": 150_000 + r.IntN(200_000), "output_tokens": r.IntN(300_000), "cache_read_input_tokens": 190_000 + r.IntN(100_000)}
		}
		if r.IntN(2) == 0 {
			data["usage_id"] = fmt.Sprintf("req-%d", r.IntN(6)) // shared, across tapes too
		}
		if r.IntN(8) == 0 {
			delete(data, "usage")
		}
		payload, _ := json.Marshal(map[string]any{"name": "run", "data": data})
		// Days around New York's clock going forward (8 March 2026), on
		// the hour half of the time: a block's bounds fall on the hour.
		day := time.Date(2026, 3, 4+r.IntN(6), r.IntN(24), 0, 0, 0, time.UTC)
		if r.IntN(2) == 0 {
			day = day.Add(time.Duration(r.Int64N(int64(time.Hour))))
		}
		batch = append(batch, tapelog.Entry{Kind: "event", Payload: payload, Date: day.Format(time.RFC3339Nano)})
	}
	if _, err := tp.Append(context.Background(), batch...); err != nil {
		t.Fatal(err)
	}
}
