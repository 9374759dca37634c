package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// rebuild times `tape reindex --full` as a child process: entries/s, MB/s,
// peak RSS, and the index's size against the JSONL's.
func rebuild(args []string) error {
	fs := flags("rebuild")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 1, "how many rebuilds")
	fs.Parse(args)
	absolute(bin)
	jsonl, err := jsonlBytes(filepath.Join(*dir, ".tape", "tapes"))
	if err != nil {
		return err
	}
	for range *runs {
		start := time.Now()
		cmd := exec.Command(*bin, "reindex", "--full", "--json")
		cmd.Dir = *dir
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("tape reindex --full: %v", err)
		}
		wall := time.Since(start)
		var st struct {
			Entries int   `json:"entries"`
			Bytes   int64 `json:"bytes"`
		}
		json.Unmarshal(out, &st)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		index := fileSize(filepath.Join(*dir, ".tape", "index.db")) + fileSize(filepath.Join(*dir, ".tape", "index.db-wal"))
		fmt.Printf("rebuild: %d entries, %.1f MB JSONL in %.2fs: %.0f entries/s, %.1f MB/s, peak RSS %.0f MB, index %.1f MB = %.2fx JSONL\n",
			st.Entries, float64(jsonl)/1e6, wall.Seconds(), float64(st.Entries)/wall.Seconds(), float64(jsonl)/1e6/wall.Seconds(),
			float64(rss)/1024, float64(index)/1e6, float64(index)/float64(jsonl))
	}
	return nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func jsonlBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			n += fileSize(path)
		}
		return err
	})
	return n, err
}
