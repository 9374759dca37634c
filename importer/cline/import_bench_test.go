package cline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/cline"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/benchcpu"
	"github.com/tape-dev/tape/testkit/corpus"
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

// BenchmarkImportCPU is BenchmarkImport's import, with the CPU time it
// spends (cpu-ms/op, every thread of the process): on a machine shared
// with other work the wall time says mostly what the others did.
//
//	go test ./importer/cline -run '^$' -bench ImportCPU -benchtime 5x -count 6
func BenchmarkImportCPU(b *testing.B) {
	root := b.TempDir()
	session := cline.BenchTask("native", 2<<20)
	var total int64
	for k := range 8 {
		data := corpus.RewriteIDs(k, session)
		total += int64(len(data))
		if err := sourcetest.WriteFile(root, fmt.Sprintf("rooveterinaryinc.roo-cline/tasks/%08x-1a2b-4c3d-8e9f-a0b1c2d3e4f5/api_conversation_history.json", k), data); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(total)
	cpu := benchcpu.Start() // a new workspace's making costs little beside the import
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), ".tape")
		if err := os.Mkdir(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		ws, err := tapelog.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := importer.New(ws, cline.Source{}).Import(context.Background(), []string{root}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ws.Close()
		b.StartTimer()
	}
	cpu.Report(b)
}
