package gemini_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/gemini"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// BenchmarkImport imports 8 generated sessions of 2 MB each into a new
// workspace: the throughput of a first `tape import gemini`, tapes written,
// without the index.
//
//	go test ./importer/gemini -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: gemini.BenchSession(b, 2<<20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, fmt.Sprintf("p%d/chats/session-2026-05-10T14-20-%08x.jsonl", k, k), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, gemini.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
