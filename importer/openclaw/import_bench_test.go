package openclaw_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/openclaw"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated sessions of 2 MB each into a new
// workspace: the throughput of a first `tape import openclaw`, tapes written,
// without the index.
//
//	go test ./importer/openclaw -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: openclaw.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("agents/main/sessions/6f1c2a9e-4b3d-4e8f-9a71-2c5d8e0b3f14.jsonl"))), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, openclaw.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
