package amp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/amp"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// BenchmarkImport imports 8 generated threads of 2 MB each into a new
// workspace: the throughput of a first `tape import amp`, tapes written,
// without the index.
//
//	go test ./importer/amp -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: amp.BenchSession(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, fmt.Sprintf("T-%08x.json", k), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, amp.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
