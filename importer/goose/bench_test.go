package goose_test

import (
	"context"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/goose"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// BenchmarkConvert converts one generated mirror file of 4 MB: the
// converter's throughput, without the writes.
//
//	go test ./importer/goose -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := goose.BenchSession(4 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sourcetest.Convert(b, goose.Source{}, data)
	}
}

// BenchmarkImport imports 8 generated mirror files of 2 MB each into a
// new workspace: the throughput of the import of what the export wrote,
// without the index, beside cat of the same files.
//
//	go test ./importer/goose -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: goose.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte("20251128_00000000-0000-4000-8000-000000000000")))+".jsonl", data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, goose.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
