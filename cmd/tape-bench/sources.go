package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tape-dev/tape/testkit/agenthome"
)

// home writes a home folder holding copies of every source's golden
// transcripts, each where its agent keeps them (testkit/agenthome): a
// machine with many sessions of every agent tape reads.
func home(args []string) error {
	fs := flags("home")
	out := fs.String("out", "", "the home folder to write")
	golden := fs.String("golden", "testdata/import", "the golden transcripts (testdata/import)")
	copies := fs.Int("copies", 100, "copies of each source's golden transcripts (of a database source, of its rows)")
	only := fs.String("source", "", "the sources to write, comma-separated (default: every source)")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("home: -out is required")
	}
	for _, f := range folders(*only) {
		_, st, err := agenthome.Build(*out, *golden, f.Source, *copies)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Source, err)
		}
		fmt.Printf("%-8s %6d files, %7.1f MB in %s\n", f.Source, st.Files, float64(st.Bytes)/1e6, filepath.Join(*out, f.Home))
	}
	return nil
}

// sourcesBench times, for each source, `tape import SOURCE` of its folder
// in a home written by `home` into a new workspace, beside `cat` of the
// same files; then `tape import` of every source, and again with nothing
// new. Medians of -runs, wall and CPU (user + system) time.
func sourcesBench(args []string) error {
	fs := flags("sources")
	dir := fs.String("home", "", "the home folder `home` wrote")
	bin := fs.String("tape", "./bin/tape", "the tape binary")
	runs := fs.Int("runs", 5, "runs of each")
	only := fs.String("source", "", "the sources to time alone, comma-separated (default: every source)")
	fs.Parse(args)
	absolute(bin)
	absolute(dir)
	env := append(append(os.Environ(), agenthome.Env...), "HOME="+*dir, "TAPE_WATCH=off")
	var scratch workspaces
	defer scratch.remove()
	for _, f := range folders(*only) {
		folder := filepath.Join(*dir, filepath.FromSlash(f.Home))
		files, size, err := filesUnder(folder)
		if err != nil {
			return err
		}
		cat, err := timed(*runs, func() (time.Duration, time.Duration, error) { return catFiles(files) })
		if err != nil {
			return err
		}
		imp, err := timed(*runs, func() (time.Duration, time.Duration, error) {
			ws, err := scratch.make()
			if err != nil {
				return 0, 0, err
			}
			return runIn(ws, env, *bin, "import", f.Source, folder)
		})
		if err != nil {
			return err
		}
		mb := float64(size) / 1e6
		fmt.Printf("%-8s %7.1f MB, %5d files: import %6.0f ms (CPU %6.0f ms), %5.1f MB/s; cat %4.0f ms; import/cat %.0fx\n",
			f.Source, mb, len(files), ms(imp.wall), ms(imp.cpu), mb/imp.wall.Seconds(), ms(cat.wall), imp.wall.Seconds()/cat.wall.Seconds())
	}
	ws, err := scratch.make()
	if err != nil {
		return err
	}
	first, cpu, err := runIn(ws, env, *bin, "import")
	if err != nil {
		return err
	}
	fmt.Printf("tape import, every source: %.0f ms (CPU %.0f ms)\n", ms(first), ms(cpu))
	again, err := timed(*runs, func() (time.Duration, time.Duration, error) { return runIn(ws, env, *bin, "import") })
	if err != nil {
		return err
	}
	fmt.Printf("tape import again, nothing new: median %.0f ms (CPU %.0f ms) over %d runs\n", ms(again.wall), ms(again.cpu), *runs)
	return nil
}

// workspaces are the bench's workspaces, all removed at its end rather
// than each after its run: on an ext4 disk with no journal, creating a file
// checks whether each free inode it meets was deleted in the last few
// minutes (ext4's recently_deleted), so a run just after the removal of
// the last run's 80,000 files took 18-28 s where one on a quiet disk
// took 8 s (perf: find_get_block_common under recently_deleted).
type workspaces []string

func (w *workspaces) make() (string, error) {
	dir, err := os.MkdirTemp("", "tape-sources-bench-")
	if err == nil {
		*w = append(*w, dir)
	}
	return dir, err
}

func (w workspaces) remove() {
	for _, dir := range w {
		os.RemoveAll(dir)
	}
}

// folders are agenthome's Folders of the comma-separated sources named,
// or all of them.
func folders(names string) []agenthome.Folder {
	if names == "" {
		return agenthome.Folders
	}
	var out []agenthome.Folder
	for _, f := range agenthome.Folders {
		if slices.Contains(strings.Split(names, ","), f.Source) {
			out = append(out, f)
		}
	}
	return out
}

// timing is the medians of runs.
type timing struct{ wall, cpu time.Duration }

func timed(runs int, run func() (time.Duration, time.Duration, error)) (timing, error) {
	var walls, cpus []time.Duration
	for range runs {
		w, c, err := run()
		if err != nil {
			return timing{}, err
		}
		walls, cpus = append(walls, w), append(cpus, c)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return timing{walls[len(walls)/2], cpus[len(cpus)/2]}, nil
}

// runIn runs bin in dir and returns its wall and CPU time; an exit of 2
// (lines that could not be imported, which the golden transcripts hold)
// is no error.
func runIn(dir string, env []string, bin string, args ...string) (time.Duration, time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
		err = nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return wall, cpu, nil
}

// catFiles reads every file, as cat does, and returns the time it took
// (wall, and this process's CPU time meanwhile).
func catFiles(files []string) (time.Duration, time.Duration, error) {
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return 0, 0, err
		}
		_, err = io.Copy(io.Discard, r)
		r.Close()
		if err != nil {
			return 0, 0, err
		}
	}
	wall := time.Since(start)
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	return wall, cpu, nil
}

// filesUnder lists the regular files under dir, and their bytes.
func filesUnder(dir string) ([]string, int64, error) {
	var files []string
	var size int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files, size = append(files, path), size+fi.Size()
		return nil
	})
	return files, size, err
}
