package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// many times the reads of a workspace of many tapes (gen -tapes N) as
// whole processes, in rounds: each round runs every command once, with
// `tape version` as the baseline of a process that does nothing, and
// then appends a line by hand to a random tape and times the search that
// must find it. With -vs, another tape binary runs each command in the
// same rounds, on its own copy of the workspace, the two taking turns
// to go first. It starts no watcher: the workspace's config decides.
func many(args []string) error {
	fs := flags("many")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 30, "rounds")
	vs := fs.String("vs", "", "another tape binary to time beside -tape, in -vs-dir")
	vsDir := fs.String("vs-dir", "", "its copy of the workspace: cp -al DIR DIR2, without DIR2/.tape/index.db* (default: -dir)")
	fs.Parse(args)
	absolute(bin)
	absolute(dir)
	shape, err := workspaceShape(*dir)
	if err != nil {
		return err
	}
	fmt.Printf("many: %s: %d tapes, %d anchor folders, %d files (%d JSONL), %d entries, %.1f MB of JSONL\n",
		*dir, shape.tapes, shape.folders, shape.files, shape.jsonl, shape.entries, float64(shape.bytes)/1e6)
	tapes := binaries(*dir, *bin, *vs, *vsDir)
	for _, t := range tapes {
		if err := warm(t); err != nil {
			return err
		}
	}
	commands := manyCommands(shape.entries)
	times := make([][][]time.Duration, len(commands)+1) // by command (the hand append last), by binary
	for i := range times {
		times[i] = make([][]time.Duration, len(tapes))
	}
	pick := rand.New(rand.NewPCG(18, 0)) // the tapes appended to
	for round := range *runs {
		for i, c := range commands {
			for j := range tapes {
				k := (j + round) % len(tapes) // who goes first takes turns
				d, err := timeCmd(tapes[k].dir, tapes[k].bin, c...)
				if err != nil {
					return fmt.Errorf("%s %s: %w", tapes[k].name, strings.Join(c, " "), err)
				}
				times[i][k] = append(times[i][k], d)
			}
		}
		word := fmt.Sprintf("zzhand%dr%d", time.Now().UnixNano(), round)
		if err := appendByHand(tapes, shape.names[pick.IntN(len(shape.names))], word); err != nil {
			return err
		}
		for j := range tapes {
			k := (j + round) % len(tapes)
			d, err := searchAppended(tapes[k], word)
			if err != nil {
				return err
			}
			times[len(commands)][k] = append(times[len(commands)][k], d)
		}
	}
	names := append(slices.Clone(commands), []string{"search --all-tapes --json WORD (WORD just appended by hand)"})
	for i, c := range names {
		fmt.Printf("  tape %-62s", strings.Join(c, " "))
		for k, t := range tapes {
			fmt.Printf("  %s p50 %7.1f ms, p95 %7.1f ms", t.name, ms(pct(times[i][k], 50)), ms(pct(times[i][k], 95)))
		}
		if len(tapes) > 1 {
			fmt.Printf("  tape/vs p50 %.3f", float64(pct(times[i][0], 50))/float64(pct(times[i][1], 50)))
		}
		fmt.Println()
	}
	fmt.Printf("many: %d rounds\n", *runs)
	return nil
}

// manyCommands are the reads that must stay fast with many tapes, after
// `tape version`, the baseline: search's kinds of query (searchQueries),
// with a rare word that a corpus of entries entries holds; the list of
// tapes; the pending calls; the usage by day; the catch-up with nothing
// to do.
func manyCommands(entries int) [][]string {
	commands := [][]string{{"version"}}
	rare := corpus.RareWord(entries / 2 / corpus.RareEvery * corpus.RareEvery)
	for _, q := range []string{rare, "goroutine", "error", "错误", `"database transaction"`} {
		commands = append(commands, []string{"search", "--all-tapes", "--json", q})
	}
	return append(commands,
		[]string{"tapes"},
		[]string{"tapes", "--json"},
		[]string{"calls", "--all-tapes", "--status", "pending"},
		[]string{"usage", "--by", "day"},
		[]string{"reindex"},
	)
}

// appendByHand appends a message holding word to the newest anchor folder
// of the tape, in each binary's workspace (once, when they share the file:
// a cp -al copy), as an agent appends with >>: one write of a whole line
// with O_APPEND, no lock, no tape code.
func appendByHand(tapes []tapeBinary, tape, word string) error {
	line := fmt.Appendf(nil, `{"id":"hand-%s","kind":"message","payload":{"role":"user","content":"appended by hand: %s"},"meta":{},"date":"%s"}`+"\n",
		word, word, time.Now().UTC().Format(time.RFC3339Nano))
	var done []os.FileInfo
	for _, t := range tapes {
		anchors := filepath.Join(t.dir, ".tape", "tapes", tape, "anchors")
		folder, err := newestFolder(anchors)
		if err != nil {
			return err
		}
		path := filepath.Join(anchors, folder, tapelog.MessagesFile)
		if fi, err := os.Stat(path); err == nil {
			if slices.ContainsFunc(done, func(d os.FileInfo) bool { return os.SameFile(d, fi) }) {
				continue
			}
			done = append(done, fi)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("append by hand: %w", err)
		}
		_, err = f.Write(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("append by hand to %s: %w", path, err)
		}
	}
	return nil
}

// newestFolder is the anchor folder of the highest seq in anchors.
func newestFolder(anchors string) (string, error) {
	dirents, err := os.ReadDir(anchors)
	if err != nil {
		return "", fmt.Errorf("list anchor folders: %w", err)
	}
	newest, top := "", int64(-1)
	for _, d := range dirents {
		if seq, _, ok := tapelog.ParseFolderName(d.Name()); ok && d.IsDir() && seq > top {
			newest, top = d.Name(), seq
		}
	}
	if newest == "" {
		return "", fmt.Errorf("no anchor folder in %s", anchors)
	}
	return newest, nil
}

// searchAppended times the search for a word just appended by hand, and
// fails unless it prints the appended line: a read must see what was on
// disk when it started.
func searchAppended(t tapeBinary, word string) (time.Duration, error) {
	var out bytes.Buffer
	d, err := timeOutput(t.dir, &out, t.bin, "search", "--all-tapes", "--json", word)
	if err != nil {
		return 0, fmt.Errorf("%s search %s: %w", t.name, word, err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"hand-`+word+`"`)) {
		return 0, fmt.Errorf("FAILED: %s search --all-tapes --json %s in %s did not print the line just appended by hand; it printed %q",
			t.bin, word, t.dir, out.String())
	}
	return d, nil
}

// shape is what a workspace holds, from a walk of its files.
type shape struct {
	names                          []string // the tapes
	tapes, folders, files, entries int
	jsonl                          int // JSONL files
	bytes                          int64
}

// workspaceShape walks the tapes of the workspace in dir, counting the
// lines of their JSONL files as entries.
func workspaceShape(dir string) (shape, error) {
	var sh shape
	root := filepath.Join(dir, ".tape", "tapes")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case d.IsDir() && len(parts) == 1 && rel != ".":
			sh.names = append(sh.names, rel)
		case d.IsDir() && len(parts) == 3 && parts[1] == "anchors":
			sh.folders++
		case !d.IsDir() && len(parts) == 4 && parts[1] == "anchors":
			sh.files++
			if strings.HasSuffix(path, ".jsonl") {
				return sh.countLines(path)
			}
		}
		return nil
	})
	sh.tapes = len(sh.names)
	if err != nil {
		return sh, fmt.Errorf("walk the workspace: %w", err)
	}
	return sh, nil
}

// countLines adds a JSONL file's lines and bytes.
func (sh *shape) countLines(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sh.jsonl++
	sh.entries += bytes.Count(data, []byte{'\n'})
	sh.bytes += int64(len(data))
	return nil
}
