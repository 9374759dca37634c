package aider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/aider"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// BenchmarkImport imports 8 generated chat histories of 2 MB each (each
// in a project of its own, runs of 24 turns: 13 tapes each) into a new
// workspace, the file system synced once at the end as `tape import`
// does (DeferSyncs): the throughput of a first `tape import aider`, tapes
// written, without the index, beside cat of the same files.
//
//	go test ./importer/aider -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: aider.BenchHistory(2 << 20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, fmt.Sprintf("project-%d/%s", k, aider.ChatHistory), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			im := importer.New(ws, aider.Source{})
			im.DeferSyncs = true
			_, err := im.Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
