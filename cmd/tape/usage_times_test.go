package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tape usage --since and --until take dates of --timezone (--until's day
// included), and refuse what is not a time or a zone, with exit 2.
func TestUsageSinceUntilTimezone(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	folder := filepath.Join(dir, ".tape", "tapes", "s", "anchors", "001_start")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	runs := ""
	for i, date := range []string{"2026-03-05T10:00:00Z", "2026-03-05T20:00:00Z", "2026-03-06T10:00:00Z"} {
		runs += `{"id":"r` + string(rune('0'+i)) + `","kind":"event","payload":{"name":"run","data":{"model":"m","usage":{"input_tokens":1}}},"date":"` + date + "\"}\n"
	}
	if err := os.WriteFile(filepath.Join(folder, "runs.jsonl"), []byte(runs), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // the days, each with its runs
	}{
		{[]string{"--since", "2026-03-05", "--until", "20260305", "--timezone", "UTC"}, "2026-03-05:2"},
		{[]string{"--timezone", "UTC"}, "2026-03-05:2 2026-03-06:1"},
		{[]string{"--timezone", "Asia/Shanghai"}, "2026-03-05:1 2026-03-06:2"},
		{[]string{"--timezone", "Asia/Shanghai", "--until", "2026-03-05"}, "2026-03-05:1"},
		{[]string{"--since", "2026-03-05T15:00:00Z", "--timezone", "UTC"}, "2026-03-05:1 2026-03-06:1"},
	} {
		out := mustRun(t, dir, append([]string{"usage", "--all-tapes", "--by", "day", "--json"}, c.args...)...)
		var got []string
		for _, r := range jsonRecords(t, out) {
			got = append(got, fmt.Sprintf("%s:%v", r["day"], r["runs"]))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("tape usage --by day %v: %v, want %s", c.args, got, c.want)
		}
	}
	for _, args := range [][]string{{"--since", "yesterday"}, {"--until", "2026-13-45"}, {"--timezone", "Mars/Base"}, {"--timezone", "Local"},
		{"--since", "2026-03-06", "--until", "2026-03-05"}} {
		if _, stderr, code := runTape(t, dir, append([]string{"usage", "--all-tapes"}, args...)...); code != exitUsage || !strings.Contains(stderr, args[1]) {
			t.Errorf("tape usage %v: exit %d, %q; want exit 2 naming %q", args, code, stderr, args[1])
		}
	}
}
