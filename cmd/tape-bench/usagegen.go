package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// usageGen writes a workspace of imported-looking sessions for the usage
// benchmarks: each tape a Claude Code session of one of 50 projects, with
// -runs run events of four models over a few hours, the sessions spread
// over the year before 2026-11-01, as a person's sessions are.
func usageGen(args []string) error {
	fs := flags("usage-gen")
	out := fs.String("out", "", "the project folder to write .tape/ into")
	sessions := fs.Int("sessions", 10000, "sessions (tapes)")
	runs := fs.Int("runs", 30, "run events a session")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("usage-gen: -out is required")
	}
	r := rand.New(rand.NewPCG(*seed, 3))
	models := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001", "gpt-5-codex"}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range *sessions {
		tape := fmt.Sprintf("claude-%08x", i)
		dir := filepath.Join(*out, ".tape", "tapes", tape, "anchors", "001_session-start")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		start := end.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		state := fmt.Sprintf(`{"kind":"anchor","payload":{"name":"session/start","state":{"source":"claude","session_id":"%08x-0000-4000-8000-000000000000","cwd":"/home/u/project-%02d"}},"date":%q}`,
			i, r.IntN(50), start.Format(time.RFC3339Nano))
		if err := os.WriteFile(filepath.Join(dir, "anchor.json"), []byte(state+"\n"), 0o600); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, "runs.jsonl"))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		at := start
		for j := range *runs {
			at = at.Add(time.Duration(r.Int64N(int64(10 * time.Minute))))
			fmt.Fprintf(w, `{"id":"%s-%d","kind":"event","payload":{"name":"run","data":{"model":%q,"usage_id":"%s-%d","usage":{"input_tokens":%d,"output_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d}}},"date":%q}`+"\n",
				tape, j, models[r.IntN(len(models))], tape, j, r.IntN(5000), r.IntN(2000), r.IntN(20000), r.IntN(150000), at.Format(time.RFC3339Nano))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
