package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/tape-dev/tape/testkit/corpus"
)

// transcripts writes a corpus of Claude Code transcripts:
// <out>/projects/<project>/<session>.jsonl.
func transcripts(args []string) error {
	fs := flags("transcripts")
	out := fs.String("out", "", "the folder to write (it gets a projects/ folder, as ~/.claude has)")
	mb := fs.Int64("mb", 500, "about how many MB of transcripts")
	seed := fs.Uint64("seed", 1, "the generator's seed")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("transcripts: -out is required")
	}
	st, err := corpus.GenerateClaude(filepath.Join(*out, "projects"), corpus.TranscriptOptions{Bytes: *mb << 20, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Printf("transcripts: %d sessions, %d subagents, %d lines, %.1f MB in %s\n", st.Sessions, st.Subagents, st.Lines, float64(st.Bytes)/1e6, *out)
	return nil
}

// importBench times `tape import claude` of a transcript corpus into a new
// workspace (MB/s of transcript, entries/s, peak RSS), then imports with
// nothing new, and runs `ccusage daily --json --offline` on the same files
// beside it, and compares its totals with `tape usage --by day`.
func importBench(args []string) error {
	fs := flags("import")
	src := fs.String("src", "", "the corpus folder (holding projects/)")
	bin := fs.String("tape", "./bin/tape", "the tape binary")
	ccusage := fs.String("ccusage", "", "the ccusage binary; none: no baseline")
	again := fs.Int("again", 20, "how many imports with nothing new to time")
	fs.Parse(args)
	absolute(bin)
	absolute(src)
	ws, err := os.MkdirTemp("", "tape-import-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	if err := os.Mkdir(filepath.Join(ws, ".tape"), 0o700); err != nil {
		return err
	}
	size, err := jsonlBytes(*src)
	if err != nil {
		return err
	}
	run := func(name string, env []string, argv ...string) (time.Duration, int64, []byte, error) {
		cmd := exec.Command(name, argv...)
		cmd.Dir, cmd.Env = ws, append(os.Environ(), env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("%s %v: %v: %.500s", name, argv, err, errOut.String())
		}
		return wall, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, out.Bytes(), nil
	}
	projects := filepath.Join(*src, "projects")
	wall, rss, out, err := run(*bin, nil, "import", "claude", "--json", projects)
	if err != nil {
		return err
	}
	entries := 0
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var st struct{ Imported int }
		if err := dec.Decode(&st); err != nil {
			return err
		}
		entries += st.Imported
	}
	fmt.Printf("import: %.1f MB of transcripts, %d entries in %.2fs: %.1f MB/s, %.0f entries/s, peak RSS %.0f MB\n",
		float64(size)/1e6, entries, wall.Seconds(), float64(size)/1e6/wall.Seconds(), float64(entries)/wall.Seconds(), float64(rss)/1024)
	var times []time.Duration
	for range *again {
		d, _, _, err := run(*bin, nil, "import", "claude", projects)
		if err != nil {
			return err
		}
		times = append(times, d)
	}
	slices.Sort(times)
	fmt.Printf("import again, nothing new: p50 %.1f ms, p90 %.1f ms over %d runs\n", ms(pct(times, 50)), ms(pct(times, 90)), len(times))
	_, _, usage, err := run(*bin, nil, "usage", "--by", "day", "--json", "-n", "0")
	if err != nil {
		return err
	}
	tapeTotals, err := sumUsage(usage, "input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens")
	if err != nil {
		return err
	}
	fmt.Printf("tape usage: input %d, output %d, cache creation %d, cache read %d\n", tapeTotals[0], tapeTotals[1], tapeTotals[2], tapeTotals[3])
	if *ccusage == "" {
		return nil
	}
	wall, rss, out, err = run(*ccusage, []string{"CLAUDE_CONFIG_DIR=" + *src, "TZ=UTC"}, "daily", "--json", "--offline")
	if err != nil {
		return err
	}
	var cc struct {
		Totals struct {
			Input  int64 `json:"inputTokens"`
			Output int64 `json:"outputTokens"`
			CW     int64 `json:"cacheCreationTokens"`
			CR     int64 `json:"cacheReadTokens"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(out, &cc); err != nil {
		return fmt.Errorf("read ccusage's output: %w", err)
	}
	fmt.Printf("ccusage daily --json --offline: %.2fs, peak RSS %.0f MB; input %d, output %d, cache creation %d, cache read %d\n",
		wall.Seconds(), float64(rss)/1024, cc.Totals.Input, cc.Totals.Output, cc.Totals.CW, cc.Totals.CR)
	same := tapeTotals == [4]int64{cc.Totals.Input, cc.Totals.Output, cc.Totals.CW, cc.Totals.CR}
	fmt.Printf("totals equal: %v\n", same)
	return nil
}

// sumUsage adds up fields of `tape usage --json` lines.
func sumUsage(out []byte, fields ...string) ([4]int64, error) {
	var sums [4]int64
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return sums, err
		}
		for i, f := range fields {
			n, _ := row[f].(float64)
			sums[i] += int64(n)
		}
	}
	return sums, nil
}

// copies writes n copies of a folder of agent transcripts with their ids
// rewritten per copy (corpus.CopyTranscripts): real transcripts at any
// size, the shape issue 31 measures at (99 sessions copied 20x and 100x).
func copies(args []string) error {
	fs := flags("copies")
	src := fs.String("src", "", "the folder of transcripts to copy (~/.claude/projects, ~/.codex/sessions)")
	out := fs.String("out", "", "the folder to write the copies into")
	n := fs.Int("n", 20, "how many copies")
	fs.Parse(args)
	if *src == "" || *out == "" {
		return fmt.Errorf("copies: -src and -out are required")
	}
	start := time.Now()
	st, err := corpus.CopyTranscripts(*src, *out, *n)
	if err != nil {
		return err
	}
	fmt.Printf("copies: %d files, %.1f MB in %s, in %v\n", st.Files, float64(st.Bytes)/1e6, *out, time.Since(start).Round(time.Millisecond))
	return nil
}
