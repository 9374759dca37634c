package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildTape builds the real tape binary for the CLI benchmarks.
func buildTape(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "tape")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func benchWorkspace(b *testing.B, bin string) string {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command(bin, "init")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("tape init: %v: %s", err, out)
	}
	return dir
}

// BenchmarkCLIAppend measures `tape append` as agents call it: one process
// per entry, and one `tape append --jsonl` process for 10,000 entries:
//
//	go test ./cmd/tape -run '^$' -bench CLIAppend -count 6
func BenchmarkCLIAppend(b *testing.B) {
	bin := buildTape(b)
	payload := `{"role":"user","content":"` + strings.Repeat("x", 1000) + `"}`
	b.Run("process-per-entry/1KiB", func(b *testing.B) {
		dir := benchWorkspace(b, bin)
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			cmd := exec.Command(bin, "append", "--kind", "message", payload)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
	b.Run("jsonl-10000/1KiB", func(b *testing.B) {
		dir := benchWorkspace(b, bin)
		var in bytes.Buffer
		for range 10000 {
			fmt.Fprintf(&in, `{"kind":"message","payload":%s}`+"\n", payload)
		}
		b.SetBytes(int64(in.Len()))
		for b.Loop() {
			cmd := exec.Command(bin, "append", "--jsonl")
			cmd.Dir = dir
			cmd.Stdin = bytes.NewReader(in.Bytes())
			if out, err := cmd.Output(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
		b.ReportMetric(10000*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
	b.Run("raw-shell-append/1KiB", func(b *testing.B) {
		// The baseline for one process per entry: a shell's >> of the same
		// line, with no lock and no checks.
		dir := benchWorkspace(b, bin)
		file := filepath.Join(dir, ".tape/tapes/main/anchors/001_session-start/raw.jsonl")
		line := `{"kind":"message","payload":` + payload + `}`
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if out, err := exec.Command("sh", "-c", `printf '%s\n' "$1" >> "$2"`, "sh", line, file).CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
}
