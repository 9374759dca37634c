package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/testkit/corpus"
)

// searchQueries mix rare words (one entry each), words of middling
// frequency, very common words, Chinese, and a phrase.
func searchQueries() []string {
	return []string{
		corpus.RareWord(123000), corpus.RareWord(456000), corpus.RareWord(789000),
		"goroutine", "deadline", "sqlite transaction",
		"the", "error", "test file",
		"错误", "测试通过", `"database transaction"`,
	}
}

// search times whole `tape search` processes over the queries, and ripgrep
// over the same files for the same words, in the same run. With -vs, it
// times another tape binary too, on a folder of its own (a `cp -al` copy,
// so that each keeps the index of its own schema), alternating which goes
// first: an A/B comparison that the machine's drift touches alike.
func search(args []string) error {
	fs := flags("search")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 10, "runs of each query")
	noCatchup := fs.Bool("no-catchup", false, "run tape search --no-catchup: the index as it stands")
	watch := fs.Bool("watch", false, "run tape watch beside the searches, which then sync with it instead of catching up")
	vs := fs.String("vs", "", "another tape binary to time beside -tape, searching -vs-dir")
	vsDir := fs.String("vs-dir", "", "the project folder -vs searches (default: -dir)")
	fs.Parse(args)
	absolute(bin)
	// Without rg, sh says so on stderr and the pipe still exits 0: the
	// baseline would be the time of a failed command.
	if _, err := exec.LookPath("rg"); err != nil {
		return fmt.Errorf("ripgrep, the baseline, is not installed (apt-get install ripgrep): %w", err)
	}
	tapes := binaries(*dir, *bin, *vs, *vsDir)
	for _, t := range tapes {
		if *watch {
			stop, err := startWatch(t.dir, t.bin)
			if err != nil {
				return err
			}
			defer stop()
		}
		if err := warm(t); err != nil {
			return err
		}
	}
	times := make([][]time.Duration, len(tapes)+1) // the tapes', then rg's
	for _, q := range searchQueries() {
		qtimes := make([][]time.Duration, len(times))
		for run := range *runs {
			for i := range tapes {
				k := (i + run) % len(tapes) // who goes first takes turns
				t := tapes[k]
				targs := []string{"search", "--all-tapes", "--json", q}
				if *noCatchup {
					targs = append([]string{"--no-catchup"}, targs...)
				}
				d, err := timeCmd(t.dir, t.bin, targs...)
				if err != nil {
					return fmt.Errorf("%s search %s: %v", t.name, q, err)
				}
				qtimes[k] = append(qtimes[k], d)
			}
			word := strings.Fields(strings.Trim(q, `"`))[0]
			if strings.HasPrefix(q, `"`) {
				word = strings.Trim(q, `"`)
			}
			d, err := timeCmd(*dir, "sh", "-c", `rg -F -i --no-messages -- "$1" "$2" | head -n 20 >/dev/null`, "sh", word, filepath.Join(*dir, ".tape", "tapes"))
			if err != nil {
				return fmt.Errorf("rg %s: %v", word, err)
			}
			qtimes[len(tapes)] = append(qtimes[len(tapes)], d)
		}
		fmt.Printf("  %-22s", q)
		for i, t := range tapes {
			fmt.Printf(" %s p50 %6.1f ms ", t.name, ms(pct(qtimes[i], 50)))
		}
		fmt.Printf("  rg p50 %7.1f ms\n", ms(pct(qtimes[len(tapes)], 50)))
		for i := range times {
			times[i] = append(times[i], qtimes[i]...)
		}
	}
	rg := times[len(tapes)]
	fmt.Printf("search: %d queries x %d runs: tape search p50 %.1f ms, p95 %.1f ms; ripgrep p50 %.1f ms, p95 %.1f ms\n",
		len(searchQueries()), *runs, ms(pct(times[0], 50)), ms(pct(times[0], 95)), ms(pct(rg, 50)), ms(pct(rg, 95)))
	if len(tapes) > 1 {
		fmt.Printf("vs: %s p50 %.1f ms, p95 %.1f ms; tape/vs p50 %.3f\n",
			*vs, ms(pct(times[1], 50)), ms(pct(times[1], 95)), float64(pct(times[0], 50))/float64(pct(times[1], 50)))
	}
	return nil
}

// tapeBinary is a tape binary and the project folder it runs in.
type tapeBinary struct{ name, bin, dir string }

// binaries are the tape binary bin, running in dir, and, when vs is not
// "", the binary vs, running in vsDir (default: dir).
func binaries(dir, bin, vs, vsDir string) []tapeBinary {
	tapes := []tapeBinary{{name: "tape", bin: bin, dir: dir}}
	if vs != "" {
		absolute(&vs)
		tapes = append(tapes, tapeBinary{name: "vs", bin: vs, dir: cmp.Or(vsDir, dir)})
	}
	return tapes
}

// warm catches t's index up once, so that the timed runs measure the
// cheap no-change catch-up every read command does.
func warm(t tapeBinary) error {
	cmd := exec.Command(t.bin, "reindex")
	cmd.Dir = t.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s reindex: %v: %s", t.bin, err, out)
	}
	return nil
}

// startWatch runs `tape watch` in dir until stop is called, once it says
// on stderr that it is watching.
func startWatch(dir, bin string) (stop func(), err error) {
	cmd := exec.Command(bin, "watch")
	cmd.Dir = dir
	out, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tape watch: %w", err)
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	started := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		started <- line
		io.Copy(os.Stderr, out)
	}()
	select {
	case line := <-started:
		if !strings.HasPrefix(line, "watching") {
			stop()
			return nil, fmt.Errorf("tape watch did not start: %q", line)
		}
		return stop, nil
	case <-time.After(time.Minute):
		stop()
		return nil, fmt.Errorf("tape watch said nothing for a minute")
	}
}

// catchup times the no-change catch-up of a whole `tape reindex` process.
func catchup(args []string) error {
	fs := flags("catchup")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 20, "runs")
	fs.Parse(args)
	absolute(bin)
	if _, err := timeCmd(*dir, *bin, "reindex"); err != nil {
		return err
	}
	var reindex, version []time.Duration
	for range *runs {
		d, err := timeCmd(*dir, *bin, "reindex")
		if err != nil {
			return err
		}
		reindex = append(reindex, d)
		if d, err = timeCmd(*dir, *bin, "version"); err != nil {
			return err
		}
		version = append(version, d)
	}
	folders, _ := filepath.Glob(filepath.Join(*dir, ".tape", "tapes", "*", "anchors", "*_*"))
	fmt.Printf("catch-up with no change, %d anchor folders: tape reindex p50 %.1f ms, p95 %.1f ms; baseline tape version p50 %.1f ms\n",
		len(folders), ms(pct(reindex, 50)), ms(pct(reindex, 95)), ms(pct(version, 50)))
	return nil
}

func timeCmd(dir, name string, args ...string) (time.Duration, error) {
	return timeOutput(dir, nil, name, args...)
}

// timeOutput is timeCmd writing the command's output to stdout (nil:
// discarded). What the command says on stderr (a list's hint of its next
// page) is shown only when it fails.
func timeOutput(dir string, stdout io.Writer, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 { // no match is an answer
		err = nil
	}
	if err != nil {
		return d, fmt.Errorf("%w: %.500s", err, stderr.String())
	}
	return d, nil
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
