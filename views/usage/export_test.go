package usage

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tape-dev/tape/views"
)

// SumRuns is sumRuns, merged into rows, for the tests that hold the kept
// totals to it.
func SumRuns(ctx context.Context, r views.Reader, f Filter, cols string) ([]Row, error) {
	parts, err := sumRuns(ctx, r, f, cols)
	return newPricer(f.Prices).merge(parts), err
}

// KeptAndSummed are, for each kept grouping, its totals rows and what a
// GROUP BY over the counted runs gives, each as lines of text.
func KeptAndSummed(ctx context.Context, r views.Reader) (map[string][2]string, error) {
	out := map[string][2]string{}
	groupings := maps.Clone(totalsGroupings)
	for g := range attrGroupings {
		groupings[g] = attrKeyOf(g, "R.tape")
	}
	for _, g := range slices.Sorted(maps.Keys(groupings)) {
		var cols []string
		for _, c := range tokenColumns {
			cols = append(cols, c[0])
		}
		kept, err := dump(ctx, r, `SELECT key, model, runs, with_usage, bad_usage, `+strings.Join(cols, ", ")+`
			FROM usage_totals WHERE grouping = ? ORDER BY key, model`, g)
		if err != nil {
			return nil, err
		}
		summed, err := dump(ctx, r, `SELECT `+strings.ReplaceAll(groupings[g], "R.", "r.")+`, r.model, count(*), sum(r.has_usage), sum(r.bad_usage)`+
			summedColumns(true)+` FROM runs r WHERE r.counted GROUP BY 1, 2 ORDER BY 1, 2`)
		if err != nil {
			return nil, err
		}
		out[g] = [2]string{kept, summed}
	}
	// After a pass, what each tape gave the groups is its totals, with the
	// keys its row names.
	var cols, keys []string
	for _, c := range tokenColumns {
		cols = append(cols, c[0])
	}
	for _, g := range slices.Sorted(maps.Keys(attrGroupings)) {
		keys = append(keys, attrKeyOf(g, "key"))
	}
	settled, err := dump(ctx, r, `SELECT tape, model, project, session, source, runs, with_usage, bad_usage, `+strings.Join(cols, ", ")+` FROM usage_settled ORDER BY tape, model`)
	if err != nil {
		return nil, err
	}
	tapes, err := dump(ctx, r, `SELECT key, model, `+strings.Join(keys, ", ")+`, runs, with_usage, bad_usage, `+strings.Join(cols, ", ")+`
		FROM usage_totals WHERE grouping = 'tape' ORDER BY key, model`)
	if err != nil {
		return nil, err
	}
	out["settled"] = [2]string{settled, tapes}
	// The kept starts of the blocks are those found from every hour.
	kept, err := dump(ctx, r, `SELECT start, after_at FROM usage_blocks ORDER BY start`)
	if err != nil {
		return nil, err
	}
	found, err := dump(ctx, r, blocksSQL, "", "Z")
	if err != nil {
		return nil, err
	}
	out["blocks"] = [2]string{kept, found}
	return out, nil
}

func dump(ctx context.Context, r views.Reader, query string, args ...any) (string, error) {
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		fmt.Fprintln(&b, vals...)
	}
	return b.String(), rows.Err()
}

// IsUTC is isUTC, for its test.
var IsUTC = isUTC
