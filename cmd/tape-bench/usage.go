package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// usageBench times whole `tape usage` processes by day, block and project
// and `tape statusline` on a workspace of imported sessions, beside `tape
// version` (a process that does nothing), `tape tapes -n 1` (the least a
// read of the index costs) and, with -ccusage, ccusage's
// report of the same agent's files (-home), interleaved in one run. The
// index is as the import left it; with -watch a tape watch runs beside
// them, which the reads sync with instead of catching up.
func usageBench(args []string) error {
	fs := flags("usage")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 30, "runs of each command")
	watch := fs.Bool("watch", false, "run tape watch beside them")
	ccusage := fs.String("ccusage", "", "the ccusage binary, to time its daily report beside")
	home := fs.String("home", "", "with -ccusage: the home folder of the agent's files")
	agent := fs.String("agent", "opencode", "with -ccusage: the agent whose report to time")
	fs.Parse(args)
	absolute(bin)
	if *ccusage != "" {
		absolute(ccusage)
	}
	if *watch {
		stop, err := startWatch(*dir, *bin)
		if err != nil {
			return err
		}
		defer stop()
	}
	type command struct {
		name  string
		args  []string
		stdin string
		env   []string
	}
	commands := []command{
		{name: "tape usage --all-tapes --by day", args: []string{*bin, "usage", "--all-tapes", "--by", "day"}},
		{name: "tape usage --all-tapes --by block", args: []string{*bin, "usage", "--all-tapes", "--by", "block"}},
		{name: "tape usage --all-tapes --by project", args: []string{*bin, "usage", "--all-tapes", "--by", "project"}},
		{name: "tape statusline", args: []string{*bin, "statusline"}, stdin: `{"session_id": "none", "model": {"display_name": "Sonnet 4.5"}}`},
		{name: "tape tapes -n 1 (a read of the index)", args: []string{*bin, "tapes", "-n", "1"}},
		{name: "tape version", args: []string{*bin, "version"}},
	}
	if *ccusage != "" {
		commands = append(commands, command{name: "ccusage " + *agent + " daily --offline --json", args: []string{*ccusage, *agent, "daily", "--offline", "--json"},
			env: []string{"HOME=" + *home, "TZ=UTC", "PATH=" + os.Getenv("PATH")}})
	}
	times := make([][]time.Duration, len(commands))
	for range *runs {
		for i, c := range commands {
			cmd := exec.Command(c.args[0], c.args[1:]...)
			cmd.Dir, cmd.Stdin = *dir, strings.NewReader(c.stdin)
			if c.env != nil {
				cmd.Env = c.env
			}
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %w: %.500s", c.name, err, out)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	for i, c := range commands {
		fmt.Printf("  %-46s p50 %7.1f ms  p95 %7.1f ms\n", c.name, ms(pct(times[i], 50)), ms(pct(times[i], 95)))
	}
	return nil
}
