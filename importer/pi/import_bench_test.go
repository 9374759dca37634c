package pi_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/pi"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated sessions of 2 MB each into a new
// workspace: the throughput of a first `tape import pi`, tapes written,
// without the index.
//
//	go test ./importer/pi -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: pi.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("--home-u-app--/2026-03-01T10-00-00-000Z_5c9f0a31-7d2e-4b8a-9f1c-3e5d7a9b1c2d.jsonl"))), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, pi.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
