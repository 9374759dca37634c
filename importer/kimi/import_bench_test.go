package kimi_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/kimi"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated sessions of 2 MB each into a new
// workspace: the throughput of a first `tape import kimi`, tapes written,
// without the index.
//
//	go test ./importer/kimi -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: kimi.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("5f0e7c1a9b3d4e2f8a6c0b1d2e3f4a5b/7d2e4f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5/wire.jsonl"))), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, kimi.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
