package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tape-dev/tape/testkit/corpus"
)

// gen writes a corpus: with -entries, that many entries in anchor
// folders of 1,000 spread over -tapes tapes (the shape of the figures in
// BENCHMARKS.md); without, -tapes sessions of the users' shape, one tape
// each (corpus.GenerateSessions).
func gen(args []string) error {
	fs := flags("gen")
	entries := fs.Int("entries", 100000, "entries to generate, in the shape of one long session (without it: -tapes sessions)")
	perAnchor := fs.Int("per-anchor", 1000, "with -entries, entries per anchor folder")
	tapes := fs.Int("tapes", 1, "tapes to spread the -entries over; without -entries, how many sessions")
	out := fs.String("out", "", "the project folder to write .tape/ into")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("gen: -out is required")
	}
	dir := filepath.Join(*out, ".tape")
	start := time.Now()
	if !given(fs, "entries") && given(fs, "tapes") {
		st, err := corpus.GenerateSessions(dir, corpus.SessionOptions{Tapes: *tapes, Seed: *seed})
		if err != nil {
			return err
		}
		fmt.Printf("generated %d tapes, %d anchor folders, %d files, %d entries, %.1f MB of JSONL (%.0f bytes/entry) in %s\n",
			st.Tapes, st.Anchors, st.Files, st.Entries, float64(st.Bytes)/1e6, float64(st.Bytes)/float64(st.Entries), time.Since(start).Round(time.Millisecond))
		return nil
	}
	st, err := corpus.Generate(dir, corpus.Options{Entries: *entries, PerAnchor: *perAnchor, Tapes: *tapes, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Printf("generated %d entries in %d anchors, %.1f MB of JSONL (%.0f bytes/entry) in %s\n",
		st.Entries, st.Anchors, float64(st.Bytes)/1e6, float64(st.Bytes)/float64(st.Entries), time.Since(start).Round(time.Millisecond))
	return nil
}

// given reports whether the command line set the flag called name.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
