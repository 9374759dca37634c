package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	quarters := fs.Bool("quarters", false, "sample the RSS and print the peak of each quarter of the run")
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
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("tape reindex --full: %v", err)
		}
		var samples <-chan []int64
		stop := make(chan struct{})
		if *quarters {
			samples = sampleRSS(cmd.Process.Pid, stop)
		}
		err := cmd.Wait()
		wall := time.Since(start)
		close(stop) // before the pid can be another process's
		if err != nil {
			return fmt.Errorf("tape reindex --full: %v", err)
		}
		var st struct {
			Entries int   `json:"entries"`
			Bytes   int64 `json:"bytes"`
		}
		json.Unmarshal([]byte(out.String()), &st)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		index := fileSize(filepath.Join(*dir, ".tape", "index.db")) + fileSize(filepath.Join(*dir, ".tape", "index.db-wal"))
		fmt.Printf("rebuild: %d entries, %.1f MB JSONL in %.2fs: %.0f entries/s, %.1f MB/s, peak RSS %.0f MB, index %.1f MB = %.2fx JSONL\n",
			st.Entries, float64(jsonl)/1e6, wall.Seconds(), float64(st.Entries)/wall.Seconds(), float64(jsonl)/1e6/wall.Seconds(),
			float64(rss)/1024, float64(index)/1e6, float64(index)/float64(jsonl))
		if *quarters {
			fmt.Printf("rebuild: peak RSS in each quarter of the run: %s\n", quarterPeaks(<-samples))
		}
	}
	return nil
}

// sampleRSS reads the resident set of process pid every 200 ms until it
// ends or stop is closed, and then sends what it read: a peak says how
// much memory a run took, the samples whether it kept growing.
func sampleRSS(pid int, stop <-chan struct{}) <-chan []int64 {
	out := make(chan []int64, 1)
	go func() {
		var kb []int64
		path := fmt.Sprintf("/proc/%d/status", pid)
		for {
			data, err := os.ReadFile(path)
			if err != nil {
				break
			}
			_, rest, ok := strings.Cut(string(data), "VmRSS:")
			if !ok {
				break // a zombie has no VmRSS
			}
			var v int64
			fmt.Sscan(rest, &v)
			kb = append(kb, v)
			select {
			case <-stop:
			case <-time.After(200 * time.Millisecond):
				continue
			}
			break
		}
		out <- kb
	}()
	return out
}

// quarterPeaks is the largest sample in each quarter of samples, in MB.
func quarterPeaks(kb []int64) string {
	if len(kb) < 4 {
		return "too short to sample"
	}
	var parts []string
	for q := range 4 {
		peak := slices.Max(kb[q*len(kb)/4 : (q+1)*len(kb)/4])
		parts = append(parts, fmt.Sprintf("%.0f", float64(peak)/1024))
	}
	return strings.Join(parts, " / ") + " MB"
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
