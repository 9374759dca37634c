package crush_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/crush"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated mirror files of 2 MB each into a
// new workspace: the throughput of the import of what the export wrote,
// without the index, beside cat of the same files.
//
//	go test ./importer/crush -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: crush.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte(crush.BenchID)))+".jsonl", data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, crush.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
