package usage

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/views"
)

// Days, weeks and months in a time zone, and 5-hour blocks, are summed
// from buckets: the sums of each model's runs in a span of time, read
// from the widest kept totals whose spans each lie within one group, else
// from the runs in quarter hours (every time zone's offset is a whole
// number of them).
//
//   - a day's totals (UTC), for days, weeks and months of UTC;
//   - an hour's totals (UTC), for those of a zone a whole number of hours
//     off UTC at that time, and for blocks, which start on the hour
//     (hourBuckets);
//   - the runs by quarter hour, for one tape's runs, for times that do not
//     fall on the hour, and for the rest (runBuckets).

// bucket is the sums of the runs of one model in one span of time, from
// start for span; a zero span for the runs that have no time.
type bucket struct {
	start time.Time
	span  time.Duration
	part
}

const quarter = 15 * time.Minute

// hourBuckets reads the buckets of f's runs by hour, in time order, those
// with no time first: from the kept totals by hour for every tape and
// bounds on the hour, else from the runs by quarter hour.
func hourBuckets(ctx context.Context, r views.Reader, f Filter) ([]bucket, error) {
	if f.Tape == "" && aligned(f, time.Hour) {
		return keptBucketsIn(ctx, r, f, time.Hour, keyRange{})
	}
	return runBuckets(ctx, r, f)
}

// aligned says whether f's bounds fall on the starts of spans (UTC).
func aligned(f Filter, span time.Duration) bool {
	on := func(t time.Time) bool { return t.IsZero() || t.UnixNano()%int64(span) == 0 }
	return on(f.Since) && on(f.Until)
}

// keyRange is the keys of the kept totals from first to last, included;
// all for none (last "").
type keyRange struct{ first, last string }

// keptWhere is the condition on the kept totals of span that f's bounds
// make, and its arguments, the grouping first; and the keys' layout.
func keptWhere(f Filter, span time.Duration) (where string, args []any, layout string) {
	grouping, layout := "day", "2006-01-02"
	if span == time.Hour {
		grouping, layout = "hour", "2006-01-02T15"
	}
	args = []any{grouping}
	if !f.Since.IsZero() {
		where, args = where+` AND key >= ?`, append(args, f.Since.UTC().Format(layout))
	}
	if !f.Until.IsZero() {
		where, args = where+` AND key < ?`, append(args, f.Until.UTC().Format(layout))
	}
	if f.bounded() {
		where += ` AND key <> ''`
	}
	return where, args, layout
}

// keptBucketsIn reads the kept totals of the day or hour of keys in kr.
func keptBucketsIn(ctx context.Context, r views.Reader, f Filter, span time.Duration, kr keyRange) ([]bucket, error) {
	where, args, layout := keptWhere(f, span)
	grouping := args[0]
	if kr.last != "" {
		where, args = where+` AND key >= ? AND key <= ?`, append(args, kr.first, kr.last)
	}
	parts, err := scanParts(r.QueryContext(ctx, `SELECT '', 0, '', '', key, model, runs, with_usage, bad_usage`+keptColumns()+`
		FROM usage_totals WHERE grouping = ?`+where+` ORDER BY key, model`, args...))
	if err != nil {
		return nil, err
	}
	return toBuckets(parts, span, func(key string) (time.Time, error) {
		t, err := time.Parse(layout, key)
		if err != nil {
			return t, fmt.Errorf("usage totals by %s: key %q: %w", grouping, key, err)
		}
		return t, nil
	})
}

// toBuckets makes parts, whose Day holds a key of their span, buckets
// of that span, parse reading a key's start; "" is the runs with no time.
func toBuckets(parts []part, span time.Duration, parse func(string) (time.Time, error)) ([]bucket, error) {
	buckets := make([]bucket, len(parts))
	for i, p := range parts {
		b := bucket{part: p}
		if p.Day != "" {
			t, err := parse(p.Day)
			if err != nil {
				return nil, err
			}
			b.start, b.span = t, span
		}
		b.Day = ""
		buckets[i] = b
	}
	return buckets, nil
}

// keptColumns are the summed columns of a totals row, as they are.
func keptColumns() string {
	s := ""
	for _, c := range tokenColumns {
		s += ", CAST(" + c[0] + " AS INTEGER) AS " + c[0] // a sum past an int64 is a REAL (table.go)
	}
	return s
}

// runBuckets sums f's runs by quarter hour (UTC) and model, in time
// order, those with no time first.
func runBuckets(ctx context.Context, r views.Reader, f Filter) ([]bucket, error) {
	where, args := runsKept(f)
	// The quarter's number, floored (SQLite's / truncates toward zero).
	num := fmt.Sprintf(`(r.time_ns - ((r.time_ns %% %[1]d) + %[1]d) %% %[1]d) / %[1]d`, int64(quarter))
	parts, err := scanParts(r.QueryContext(ctx, `SELECT '', 0, '', '', coalesce(b, ''), model, runs, with_usage, bad_usage`+keptColumns()+`
		FROM (SELECT `+num+` AS b, r.model AS model, count(*) AS runs, sum(r.has_usage) AS with_usage, sum(r.bad_usage) AS bad_usage`+summedColumns(true)+`
			FROM runs r WHERE `+where+` GROUP BY b, r.model)
		ORDER BY b, model`, args...))
	if err != nil {
		return nil, err
	}
	return toBuckets(parts, quarter, func(key string) (time.Time, error) {
		n, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("usage by quarter hour: %q: %w", key, err)
		}
		return time.Unix(0, n*int64(quarter)).UTC(), nil
	})
}

// sumPeriods sums f's runs by day, week or month of f's zone, in time
// order, runs with no time first (the group ""): the page of them, and
// how many there are. From kept totals, the groups are named from their
// keys alone and only the page's rows are read (a year of hours by model
// is 30,000 rows: 400 ms to read whole).
func sumPeriods(ctx context.Context, r views.Reader, f Filter, pr *pricer) ([]Row, int, error) {
	zone := f.Zone
	if zone == nil {
		zone = time.UTC
	}
	label := periodLabel(f, zone)
	fits := func(start time.Time, span time.Duration) bool { return label(start) == label(start.Add(span-1)) }
	spans := []time.Duration{time.Hour}
	if isUTC(zone) {
		spans = []time.Duration{24 * time.Hour, time.Hour}
	}
	if f.Tape == "" {
		for _, span := range spans {
			if !aligned(f, span) {
				continue
			}
			rows, total, ok, err := keptPeriods(ctx, r, f, span, label, fits, pr)
			if err != nil || ok {
				return rows, total, err
			}
		}
	}
	buckets, err := runBuckets(ctx, r, f)
	if err != nil {
		return nil, 0, err
	}
	all := labelled(f, buckets, label, pr)
	return newestPage(all, f.Page), len(all), nil
}

// keptPeriods sums f's runs by period from the kept totals of span, if
// each of their spans lies within one period (ok).
func keptPeriods(ctx context.Context, r views.Reader, f Filter, span time.Duration, label func(time.Time) string,
	fits func(time.Time, time.Duration) bool, pr *pricer) (page []Row, total int, ok bool, err error) {
	where, args, layout := keptWhere(f, span)
	rows, err := r.QueryContext(ctx, `SELECT DISTINCT key FROM usage_totals WHERE grouping = ?`+where+` ORDER BY key`, args...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("query the periods of usage: %w", err)
	}
	// The periods in time order, each with its first and last key; the
	// runs with no time ("") first.
	type period struct{ label, first, last string }
	var periods []period
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			rows.Close()
			return nil, 0, false, err
		}
		l := ""
		if key != "" {
			t, err := time.Parse(layout, key)
			if err != nil {
				rows.Close()
				return nil, 0, false, fmt.Errorf("usage totals: key %q: %w", key, err)
			}
			if !fits(t, span) {
				rows.Close()
				return nil, 0, false, nil
			}
			l = label(t)
		}
		if n := len(periods); n > 0 && periods[n-1].label == l {
			periods[n-1].last = key
			continue
		}
		periods = append(periods, period{l, key, key})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, false, err
	}
	if !slices.IsSortedFunc(periods, func(a, b period) int { return strings.Compare(a.label, b.label) }) {
		return nil, 0, false, nil // a zone's clock went back across a period: summed from the runs
	}
	// The models of every period's runs, priced or not, as a sum of them
	// all would find them.
	if _, err := unpricedIn(ctx, r, f, pr); err != nil {
		return nil, 0, false, err
	}
	shown := newestPage(periods, f.Page)
	if len(shown) == 0 {
		return nil, len(periods), true, nil
	}
	buckets, err := keptBucketsIn(ctx, r, f, span, keyRange{shown[0].first, shown[len(shown)-1].last})
	if err != nil {
		return nil, 0, false, err
	}
	if shown[0].first == "" && shown[len(shown)-1].last == "" { // the page is the runs with no time alone
		buckets = slices.DeleteFunc(buckets, func(b bucket) bool { return b.span != 0 })
	}
	return labelled(f, buckets, label, pr), len(periods), true, nil
}

// unpricedIn are the models of the runs with usage of f's hours that pr
// has no price for: those of every group, when a page is summed alone.
func unpricedIn(ctx context.Context, r views.Reader, f Filter, pr *pricer) ([]string, error) {
	where, args := "", []any{}
	if !f.Since.IsZero() {
		where, args = where+` AND key >= ?`, append(args, f.Since.UTC().Format("2006-01-02T15"))
	}
	if !f.Until.IsZero() {
		where, args = where+` AND key < ?`, append(args, f.Until.UTC().Format("2006-01-02T15"))
	}
	grouping := "hour"
	if where == "" {
		grouping = "day" // the same models, in fewer rows
	}
	rows, err := r.QueryContext(ctx, `SELECT DISTINCT model FROM usage_totals WHERE grouping = ? AND key <> '' AND with_usage > 0`+where, append([]any{grouping}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("query the models of usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p part
		if err := rows.Scan(&p.model); err != nil {
			return nil, err
		}
		p.WithUsage = 1
		pr.price(&p)
	}
	return pr.unpriced(), rows.Err()
}

// labelled sums buckets by the period label names, in order of labels.
func labelled(f Filter, buckets []bucket, label func(time.Time) string, pr *pricer) []Row {
	parts := make([]part, len(buckets))
	for i, b := range buckets {
		p := b.part
		if b.span != 0 {
			l := label(b.start)
			switch f.By {
			case "day":
				p.Day = l
			case "week":
				p.Week = l
			case "month":
				p.Month = l
			}
		}
		parts[i] = p
	}
	// The labels of buckets in time order are in order but for a zone's
	// clock going back (a day's last hour read again): sort, keeping time
	// order within a group.
	slices.SortStableFunc(parts, func(a, b part) int { return cmpLabel(a.Row, b.Row) })
	return pr.merge(parts)
}

func cmpLabel(a, b Row) int {
	if c := compareStrings(a.Day, b.Day); c != 0 {
		return c
	}
	if c := compareStrings(a.Week, b.Week); c != 0 {
		return c
	}
	return compareStrings(a.Month, b.Month)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isUTC says whether zone is UTC at every time: UTC itself, or a zone
// (the local one, on a machine set to UTC) whose offset is 0 throughout
// the years runs come from, and which has no zone period that ends.
func isUTC(zone *time.Location) bool {
	if zone == time.UTC || zone.String() == "UTC" {
		return true
	}
	t := time.Date(2000, 1, 1, 0, 0, 0, 0, zone)
	name, offset := t.Zone()
	start, end := t.ZoneBounds()
	return offset == 0 && (name == "UTC" || name == "GMT") && end.IsZero() && (start.IsZero() || start.Before(time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)))
}

// periodLabel is the function that names the day (YYYY-MM-DD), week (the
// date of its first day) or month (YYYY-MM) of a time in zone.
func periodLabel(f Filter, zone *time.Location) func(time.Time) string {
	switch f.By {
	case "week":
		start := time.Monday
		if f.WeekStart != nil {
			start = *f.WeekStart
		}
		return func(t time.Time) string {
			t = t.In(zone)
			back := (int(t.Weekday()) - int(start) + 7) % 7
			return t.AddDate(0, 0, -back).Format(time.DateOnly)
		}
	case "month":
		return func(t time.Time) string { return t.In(zone).Format("2006-01") }
	}
	return func(t time.Time) string { return t.In(zone).Format(time.DateOnly) }
}
