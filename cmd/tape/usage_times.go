package main

import (
	"fmt"
	"regexp"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views/usage"
)

// weekdays are --start-of-week's values.
var weekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// dateOnly is a date as ccusage's --since takes it too: 2026-11-01 or
// 20261101.
var dateOnly = regexp.MustCompile(`^(\d{4})-?(\d{2})-?(\d{2})$`)

// readTimes reads --timezone, --since and --until: a date is a day of the
// zone, --until's included.
func (c *UsageCmd) readTimes(now time.Time) error {
	zone, err := loadZone(c.Timezone)
	if err != nil {
		return err
	}
	c.zone = zone
	if c.since, err = readBound(c.Since, zone, now, false); err != nil {
		return usagef("--since %q: %s", c.Since, boundWanted)
	}
	if c.until, err = readBound(c.Until, zone, now, true); err != nil {
		return usagef("--until %q: %s", c.Until, boundWanted)
	}
	if !c.since.IsZero() && !c.until.IsZero() && !c.since.Before(c.until) {
		return usagef("--since %s is not before --until %s: no run is both", c.Since, c.Until)
	}
	if c.Remote.on && (c.Since != "" || c.Until != "" || c.Timezone != "") {
		return usagef("--since, --until and --timezone are for this workspace's usage: the team's server sums every run by day (UTC)")
	}
	return nil
}

// loadZone is the zone --timezone names: the local zone for none.
func loadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.Local, nil
	}
	zone, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, usagef("--timezone %q: want an IANA time zone name (UTC, Asia/Shanghai, America/New_York)", name)
	}
	return zone, nil
}

// boundWanted says what --since and --until take.
const boundWanted = "want a date (2026-11-01 or 20261101), RFC 3339 (2026-11-22T10:00:00Z) or a duration ago (12h, 7d)"

// readBound is a time --since or --until gives: a date's start (or, for
// the end, the next day's start) in zone, else as tape log reads a time.
func readBound(s string, zone *time.Location, now time.Time, end bool) (time.Time, error) {
	if m := dateOnly.FindStringSubmatch(s); m != nil {
		day, err := time.ParseInLocation("2006-01-02", m[1]+"-"+m[2]+"-"+m[3], zone)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a date: %v", s, err)
		}
		if end {
			day = day.AddDate(0, 0, 1)
		}
		return day, nil
	}
	return tapelog.ParseWhen(s, now)
}

// blockCells are a block's start, in zone, and whether it is active: how
// long it has left, its burn rate and what it will have cost at its end.
func blockCells(b *usage.Block, zone *time.Location) []cell {
	return []cell{text(b.Start.In(zone).Format("2006-01-02 15:04")), text(read.BlockState(b, time.Now()))}
}

// orNone is s, or what to show for a group of runs that have none.
func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
