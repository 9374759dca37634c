package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/tape-dev/tape/internal/corpus"
)

func gen(args []string) error {
	fs := flags("gen")
	entries := fs.Int("entries", 100000, "entries to generate")
	tapes := fs.Int("tapes", 1, "tapes to spread them over")
	out := fs.String("out", "", "the project folder to write .tape/ into")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("gen: -out is required")
	}
	start := time.Now()
	st, err := corpus.Generate(filepath.Join(*out, ".tape"), corpus.Options{Entries: *entries, Tapes: *tapes, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Printf("generated %d entries in %d anchors, %.1f MB of JSONL (%.0f bytes/entry) in %s\n",
		st.Entries, st.Anchors, float64(st.Bytes)/1e6, float64(st.Bytes)/float64(st.Entries), time.Since(start).Round(time.Millisecond))
	return nil
}
