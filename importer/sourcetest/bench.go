package sourcetest

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// ImportBench is a source's whole-import benchmark (issue 33: at least
// 50 MB/s of transcript per source): Copies copies of one generated
// session, ids rewritten per copy (corpus.RewriteIDs) so that each is a
// session of its own, imported into a new workspace each loop, tapes
// written, without the index.
type ImportBench struct {
	Session []byte // one generated session, as its agent writes it
	Copies  int    // how many sessions; 8 when 0
	// Write puts copy k where the agent keeps its sessions under root.
	Write func(root string, k int, data []byte) error
	// Import imports root into ws, as `tape import SOURCE root` does
	// (importer.New(ws, src).Import: a source's internal tests cannot
	// import the importer, which imports the source).
	Import func(ctx context.Context, ws *tapelog.Workspace, root string) error
}

// Run writes the copies, then times two sub-benchmarks: "cat", reading
// every copy as cat does (the baseline beside it), and "import". SetBytes
// is the bytes of every file written, so MB/s is transcript read per second.
func (ib ImportBench) Run(b *testing.B) {
	root := filepath.Join(b.TempDir(), "home")
	copies := ib.Copies
	if copies == 0 {
		copies = 8
	}
	for k := range copies {
		if err := ib.Write(root, k, corpus.RewriteIDs(k, ib.Session)); err != nil {
			b.Fatal(err)
		}
	}
	ib.Time(b, root, copies)
}

// Time times the sub-benchmarks on the sessions under root, which make
// at least tapes tapes: for a corpus written some other way.
func (ib ImportBench) Time(b *testing.B, root string, tapes int) {
	total := catAll(b, root) // with what Write put beside the sessions
	b.Run("cat", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			if n := catAll(b, root); n != total {
				b.Fatalf("cat read %d bytes of %d", n, total)
			}
		}
	})
	b.Run("import", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			b.StopTimer()
			ws := emptyWorkspace(b)
			b.StartTimer()
			if err := ib.Import(context.Background(), ws, root); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			checkTapes(b, ws, tapes)
			ws.Close()
			b.StartTimer()
		}
	})
}

// emptyWorkspace is a new workspace in a temporary folder.
func emptyWorkspace(b *testing.B) *tapelog.Workspace {
	dir := filepath.Join(b.TempDir(), ".tape")
	if err := os.Mkdir(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	ws, err := tapelog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// catAll reads every file under root to the end, and says how many bytes
// it read.
func catAll(b *testing.B, root string) int64 {
	var n int64
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		m, err := io.Copy(io.Discard, f)
		n += m
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// checkTapes fails the benchmark unless the import made tapes tapes at
// least: a run that imported nothing would be fast.
func checkTapes(b *testing.B, ws *tapelog.Workspace, tapes int) {
	names, err := ws.Tapes()
	if err != nil {
		b.Fatal(err)
	}
	if len(names) < tapes {
		b.Fatalf("%d tapes imported, want %d", len(names), tapes)
	}
}

// WriteFile writes data to root/rel, making its folders: most agents keep
// a session in one file.
func WriteFile(root, rel string, data []byte) error {
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// Grow is a session of at least size bytes made of a real-shaped one:
// its first head lines, then the rest again and again, ids rewritten in
// each repetition (corpus.RewriteIDs) so that no record repeats another.
func Grow(session []byte, head, size int) []byte {
	lines := bytes.SplitAfter(session, []byte("\n"))
	out := bytes.Join(lines[:head], nil)
	body := bytes.Join(lines[head:], nil)
	for k := 0; len(out) < size; k++ {
		out = append(out, corpus.RewriteIDs(k+1, body)...)
	}
	return out
}
