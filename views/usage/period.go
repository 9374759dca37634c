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
//     off UTC at that time, and for blocks, which start on the hour;
//   - the runs by quarter hour, for one tape's runs, for times that do not
//     fall on the hour, and for the rest.

// bucket is the sums of the runs of one model in one span of time, from
// start for span; a zero span for the runs that have no time.
type bucket struct {
	start time.Time
	span  time.Duration
	part
}

const quarter = 15 * time.Minute

// readBuckets reads the buckets of f's runs, in time order, those with no
// time first, from the widest of spans (time.Hour*24, time.Hour, quarter)
// that f's tape and bounds allow; fits says whether a bucket lies within
// one group, which a narrower span is tried for when one does not.
func readBuckets(ctx context.Context, r views.Reader, f Filter, spans []time.Duration, fits func(bucket) bool) ([]bucket, error) {
	for _, span := range spans {
		if span == quarter || f.Tape != "" || !aligned(f, span) {
			continue
		}
		got, err := keptBuckets(ctx, r, f, span)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(got, func(b bucket) bool { return !fits(b) }) {
			return got, nil
		}
	}
	return runBuckets(ctx, r, f)
}

// aligned says whether f's bounds fall on the starts of spans (UTC).
func aligned(f Filter, span time.Duration) bool {
	on := func(t time.Time) bool { return t.IsZero() || t.UnixNano()%int64(span) == 0 }
	return on(f.Since) && on(f.Until)
}

// keptBuckets reads the kept totals of the day (UTC) or of the hour.
func keptBuckets(ctx context.Context, r views.Reader, f Filter, span time.Duration) ([]bucket, error) {
	grouping, layout := "day", "2006-01-02"
	if span == time.Hour {
		grouping, layout = "hour", "2006-01-02T15"
	}
	where, args := "", []any{grouping}
	if !f.Since.IsZero() {
		where, args = where+` AND key >= ?`, append(args, f.Since.UTC().Format(layout))
	}
	if !f.Until.IsZero() {
		where, args = where+` AND key < ?`, append(args, f.Until.UTC().Format(layout))
	}
	if f.bounded() {
		where += ` AND key <> ''`
	}
	parts, err := scanParts(r.QueryContext(ctx, `SELECT '', 0, '', '', key, model, runs, with_usage, bad_usage`+keptColumns()+`
		FROM usage_totals WHERE grouping = ?`+where+` ORDER BY key, model`, args...))
	if err != nil {
		return nil, err
	}
	buckets := make([]bucket, len(parts))
	for i, p := range parts {
		b := bucket{part: p}
		if p.Day != "" {
			t, err := time.Parse(layout, p.Day)
			if err != nil {
				return nil, fmt.Errorf("usage totals by %s: key %q: %w", grouping, p.Day, err)
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
		FROM (SELECT `+num+` AS b, r.model AS model, count(*) AS runs, sum(r.has_usage) AS with_usage, sum(r.bad_usage) AS bad_usage`+summedAs()+`
			FROM runs r WHERE `+where+` GROUP BY b, r.model)
		ORDER BY b, model`, args...))
	if err != nil {
		return nil, err
	}
	buckets := make([]bucket, len(parts))
	for i, p := range parts {
		b := bucket{part: p}
		if p.Day != "" {
			n, err := strconv.ParseInt(p.Day, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("usage by quarter hour: %q: %w", p.Day, err)
			}
			b.start, b.span = time.Unix(0, n*int64(quarter)).UTC(), quarter
		}
		b.Day = ""
		buckets[i] = b
	}
	return buckets, nil
}

// summedAs is summedColumns(true), each sum named as its totals column.
func summedAs() string {
	s := ""
	for _, c := range tokenColumns {
		s += ", " + saturated(strings.ReplaceAll(c[1], "R.", "r.")) + " AS " + c[0]
	}
	return s
}

// sumPeriods sums f's runs by day, week or month of f's zone, in time
// order, runs with no time first (the group "").
func sumPeriods(ctx context.Context, r views.Reader, f Filter, pr *pricer) ([]Row, error) {
	zone := f.Zone
	if zone == nil {
		zone = time.UTC
	}
	label := periodLabel(f, zone)
	fits := func(b bucket) bool { return b.span == 0 || label(b.start) == label(b.start.Add(b.span-1)) }
	spans := []time.Duration{time.Hour}
	if isUTC(zone) {
		spans = []time.Duration{24 * time.Hour, time.Hour}
	}
	buckets, err := readBuckets(ctx, r, f, spans, fits)
	if err != nil {
		return nil, err
	}
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
	return pr.merge(parts), nil
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
