package opencode_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/opencode"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkImport imports 8 generated mirror files of 2 MB each into a
// new workspace: the throughput of the import of what the export wrote,
// without the index, beside cat of the same files.
//
//	go test ./importer/opencode -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: opencode.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("ses_00000000-0000-4000-8000-000000000000")))+".jsonl", data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, opencode.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}

// BenchmarkImportKilo is BenchmarkImport as the Kilo CLI's source: the
// same converter under Kilo's names.
//
//	go test ./importer/opencode -run '^$' -bench ImportKilo -count 6
func BenchmarkImportKilo(b *testing.B) {
	sourcetest.ImportBench{
		Session: opencode.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("ses_00000000-0000-4000-8000-000000000000")))+".jsonl", data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, opencode.Kilo()).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
