package qwen_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/qwen"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated sessions of 2 MB each into a new
// workspace: the throughput of a first `tape import qwen`, tapes written,
// without the index.
//
//	go test ./importer/qwen -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: qwen.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("-home-u-app/chats/1f0c9a3e-5b7d-4c2a-9e8f-0a1b2c3d4e5f.jsonl"))), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, qwen.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
