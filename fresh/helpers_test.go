package fresh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/indexdump"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// The helpers of the projector's tests that these tests share, made
// through its exported API.

var vocabulary = tapetest.Vocabulary

func newWorkspace(t *testing.T) *tapelog.Workspace { return tapetest.NewWorkspace(t) }

func openProjector(t *testing.T, ws *tapelog.Workspace) *projector.Projector {
	t.Helper()
	p, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatalf("projector.Open: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func catchUp(t *testing.T, p *projector.Projector) projector.Stats {
	t.Helper()
	st, err := p.CatchUp(context.Background())
	if err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	return st
}

// appendMsgs appends one user message of each content to a tape, in one
// batch; appendMsg one.
func appendMsgs(t *testing.T, ws *tapelog.Workspace, tape string, contents []string) {
	t.Helper()
	tapetest.AppendMessages(t, ws, tape, contents...)
}

func appendMsg(t *testing.T, ws *tapelog.Workspace, tape, content string) tapelog.Entry {
	t.Helper()
	return tapetest.AppendMessages(t, ws, tape, content)[0]
}

func appendRaw(t *testing.T, path, text string) { t.Helper(); tapetest.AppendRaw(t, path, text) }

// found reports whether a search, on the index as it stands, finds word.
func found(t *testing.T, p *projector.Projector, word string) bool {
	t.Helper()
	hits, err := p.Search(context.Background(), projector.SearchQuery{Text: word})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits) > 0
}

// removeIndex deletes index.db and its WAL and shared-memory files, as
// `rm .tape/index.db*` does.
func removeIndex(t *testing.T, dir string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, projector.IndexFile+suffix)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// dump renders everything the index answers from (indexdump.Tables).
func dump(t *testing.T, p *projector.Projector, words []string) string {
	t.Helper()
	return indexdump.Tables(t, p, words)
}

// rebuiltDump builds a fresh index of the same files in another folder and
// dumps it.
func rebuiltDump(t *testing.T, ws *tapelog.Workspace, words []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".tape")
	if err := os.CopyFS(dir, os.DirFS(ws.Dir())); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{projector.IndexFile, projector.IndexFile + "-wal", projector.IndexFile + "-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	copyWS, err := tapelog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer copyWS.Close()
	p, err := projector.Open(context.Background(), copyWS)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dump(t, p, words)
}

// otherGeneration is a generation no index has: 128 random bits, in hex,
// as an index's own.
func otherGeneration() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newWorkspaceB(b *testing.B) *tapelog.Workspace {
	b.Helper()
	ws, _, err := tapelog.Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

func itoa(n int) string { return fmt.Sprint(n) }

// reportPercentiles reports the median and 95th percentile of durations.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}
