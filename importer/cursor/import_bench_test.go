package cursor_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/cursor"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated mirror files of the editor's chats,
// 2 MB each, into a new workspace: the throughput of the import of what
// the export wrote, without the index, beside cat of the same files.
//
//	go test ./importer/cursor -run '^$' -bench Import -count 3
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: cursor.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte(cursor.BenchID)))+".jsonl", data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, cursor.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
