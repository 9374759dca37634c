package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// serveBench times the pages of `tape serve` over HTTP (and, with
// -browser, in Chromium): the time to the
// first byte of each page and to its last (the server renders a page whole
// before it sends it, so the two differ by the transfer), beside, in the
// same rounds, the style sheet (the server's floor: routing, the guard, a
// file from memory) and the CLI processes that print the same rows. A
// watcher runs beside, as tape serve starts one on demand, and every
// request syncs with it (the freshness rule).
func serveBench(args []string) error {
	fs := flags("serve")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 30, "runs of each page")
	browser := fs.Bool("browser", false, "also load the sessions page and the largest tape's in a headless Chromium (Navigation Timing: first byte, load event)")
	fs.Parse(args)
	if err := prepare(dir, bin); err != nil {
		return err
	}
	stopWatch, err := startWatch(*dir, *bin)
	if err != nil {
		return err
	}
	defer stopWatch()
	base, stop, err := startServe(*dir, *bin)
	if err != nil {
		return err
	}
	defer stop()
	tape, folder, err := largestTape(*dir)
	if err != nil {
		return err
	}
	pages := []string{"/static/style.css", "/", "/t/" + tape, "/t/" + tape + "/a/" + folder, "/search?q=error", "/calls", "/usage"}
	cli := map[string][]string{
		"/":                           {"tapes", "-n", "50"},
		"/t/" + tape:                  {"log", "--tape", tape, "-n", "200"},
		"/t/" + tape + "/a/" + folder: {"show", "--tape", tape, folder, "-n", "200"},
		"/search?q=error":             {"search", "--all-tapes", "-n", "50", "error"},
		"/calls":                      {"calls", "--all-tapes", "-n", "50"},
	}
	ttfb := map[string][]time.Duration{}
	full := map[string][]time.Duration{}
	procs := map[string][]time.Duration{}
	size := map[string]int64{}
	for _, p := range pages { // warm: the first request opens the index
		if _, _, _, err := getTimed(base + p); err != nil {
			return err
		}
	}
	for run := range *runs {
		order := pages
		if run%2 == 1 {
			order = reversed(pages)
		}
		for _, p := range order {
			first, last, n, err := getTimed(base + p)
			if err != nil {
				return err
			}
			ttfb[p], full[p], size[p] = append(ttfb[p], first), append(full[p], last), n
			if args, ok := cli[p]; ok {
				d, err := timeOutput(*dir, io.Discard, *bin, args...)
				if err != nil {
					return fmt.Errorf("tape %s: %w", strings.Join(args, " "), err)
				}
				procs[p] = append(procs[p], d)
			}
		}
	}
	fmt.Printf("serve: %s, tape %s (folder %s), %d runs, watcher running; p50 (p95) ms\n", *dir, tape, folder, *runs)
	for _, p := range pages {
		line := fmt.Sprintf("  %-40s first byte %6.1f (%6.1f)   whole %6.1f (%6.1f)   %7.1f KB", p,
			ms(pct(ttfb[p], 50)), ms(pct(ttfb[p], 95)), ms(pct(full[p], 50)), ms(pct(full[p], 95)), float64(size[p])/1e3)
		if d := procs[p]; d != nil {
			line += fmt.Sprintf("   tape %s: %6.1f (%6.1f)", strings.Join(cli[p][:1], " "), ms(pct(d, 50)), ms(pct(d, 95)))
		}
		fmt.Println(line)
	}
	if !*browser {
		return nil
	}
	shown := []string{"/usage", "/", "/t/" + tape} // usage: a small page, the floor of a load
	urls := make([]string, len(shown))
	for i, p := range shown {
		urls[i] = base + p
	}
	times, err := browserTimes(urls, *runs)
	if err != nil {
		return err
	}
	fmt.Printf("in Chromium, %d loads each, taking turns; p50 (p95) ms from the navigation's start\n", *runs)
	for i, p := range shown {
		t := times[urls[i]]
		first := func(n navTiming) float64 { return n.FirstByte }
		loaded := func(n navTiming) float64 { return n.Loaded }
		fmt.Printf("  %-40s first byte %6.1f (%6.1f)   load event %6.1f (%6.1f)\n", p, msPct(t, 50, first), msPct(t, 95, first), msPct(t, 50, loaded), msPct(t, 95, loaded))
	}
	return nil
}

// prepare readies a benchmark of a server process (tape mcp, tape
// serve) on the workspace in dir: paths made absolute, the index caught
// up, and no read starting a background watcher (the benchmark runs one,
// or none is wanted).
func prepare(dir, bin *string) error {
	absolute(bin)
	absolute(dir)
	os.Setenv("TAPE_WATCH", "off")
	return warm(tapeBinary{name: "tape", bin: *bin, dir: *dir})
}

// getTimed GETs u and returns the time to its first byte, to its last,
// and its size.
func getTimed(u string) (first, last time.Duration, n int64, err error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Since(start) }}
	res, err := http.DefaultClient.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil {
		return 0, 0, 0, err
	}
	defer res.Body.Close()
	n, err = io.Copy(io.Discard, res.Body)
	last = time.Since(start)
	if res.StatusCode != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("GET %s: %s", u, res.Status)
	}
	return first, last, n, err
}

// startServe starts `tape serve` on a free loopback port in dir and
// returns its base URL, without the final slash.
func startServe(dir, bin string) (base string, stop func(), err error) {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("tape serve: %w", err)
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://") {
		stop()
		return "", nil, fmt.Errorf("tape serve printed %q: %v", line, err)
	}
	return strings.TrimSuffix(strings.TrimSpace(line), "/"), stop, nil
}

// largestTape is the tape with the most bytes of JSONL, and its first
// anchor folder.
func largestTape(dir string) (tape, folder string, err error) {
	tapes, err := filepath.Glob(filepath.Join(dir, ".tape", "tapes", "*"))
	if err != nil || len(tapes) == 0 {
		return "", "", fmt.Errorf("no tapes in %s: %v", dir, err)
	}
	var most int64 = -1
	for _, t := range tapes {
		files, _ := filepath.Glob(filepath.Join(t, "anchors", "*", "*.jsonl"))
		var n int64
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				n += fi.Size()
			}
		}
		if n > most {
			most, tape = n, filepath.Base(t)
		}
	}
	folders, _ := filepath.Glob(filepath.Join(dir, ".tape", "tapes", tape, "anchors", "*_*"))
	sort.Strings(folders)
	if len(folders) == 0 {
		return "", "", fmt.Errorf("tape %s has no anchor folder", tape)
	}
	return tape, filepath.Base(folders[0]), nil
}

func reversed(s []string) []string {
	r := make([]string, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}
