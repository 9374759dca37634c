package importer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tape-dev/tape/internal/corpus"
	tapelog "github.com/tape-dev/tape/log"
)

// BenchmarkImportClaude imports a generated corpus of Claude Code
// transcripts (about 20 MB, 60 sessions) into a new workspace: the
// throughput of a first import, without the index.
func BenchmarkImportClaude(b *testing.B) {
	src := b.TempDir()
	st, err := corpus.GenerateClaude(src, corpus.TranscriptOptions{Bytes: 20 << 20, Seed: 7})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		if err := os.Mkdir(filepath.Join(dir, ".tape"), 0o700); err != nil {
			b.Fatal(err)
		}
		ws, err := tapelog.Open(filepath.Join(dir, ".tape"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := New(ws, Claude).Import(context.Background(), []string{src}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ws.Close()
		b.StartTimer()
	}
}
