package cline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/cline"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

// BenchmarkImport imports 8 generated tasks, each a 2 MB history of the
// model's messages with native tool calls, into a new workspace: the
// throughput of a first `tape import cline`, tapes written, without the
// index.
//
//	go test ./importer/cline -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	sourcetest.ImportBench{
		Session: cline.BenchTask("native", 2<<20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, fmt.Sprintf("rooveterinaryinc.roo-cline/tasks/%08x-1a2b-4c3d-8e9f-a0b1c2d3e4f5/api_conversation_history.json", k), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, cline.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}
