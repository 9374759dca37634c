package main

import (
	"fmt"
	"strings"
	"time"
)

// viewsBench times whole `tape calls` and `tape usage` processes on a corpus,
// with `tape version` as the baseline of a process that does nothing, in
// the same run, interleaved.
func viewsBench(args []string) error {
	fs := flags("views")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 30, "runs of each command")
	watch := fs.Bool("watch", false, "run tape watch beside them, which they then sync with instead of catching up")
	fs.Parse(args)
	absolute(bin)
	if _, err := timeCmd(*dir, *bin, "reindex"); err != nil {
		return err
	}
	if *watch {
		stop, err := startWatch(*dir, *bin)
		if err != nil {
			return err
		}
		defer stop()
	}
	commands := [][]string{
		{"calls", "--all-tapes", "--status", "pending"},
		{"calls", "--all-tapes", "--status", "pending", "--count"},
		{"calls", "--all-tapes", "--status", "failed", "--json"},
		{"usage", "--by", "model"},
		{"version"},
	}
	times := make([][]time.Duration, len(commands))
	for range *runs {
		for i, c := range commands {
			d, err := timeCmd(*dir, *bin, c...)
			if err != nil {
				return fmt.Errorf("tape %v: %w", c, err)
			}
			times[i] = append(times[i], d)
		}
	}
	for i, c := range commands {
		fmt.Printf("  tape %-48s p50 %6.1f ms  p95 %6.1f ms\n", strings.Join(c, " "), ms(pct(times[i], 50)), ms(pct(times[i], 95)))
	}
	return nil
}
