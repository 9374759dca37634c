package codex_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/codex"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

const goldenRollout = "2025/10/29/rollout-2025-10-29T00-59-38-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"

// BenchmarkImport imports 8 sessions of 2 MB each, grown from a golden
// rollout (its turns again and again, ids rewritten; its compaction left
// out, which would make one every 6 kB), into a new
// workspace: the throughput of a first `tape import codex`, without the
// index, beside cat of the same files.
//
//	go test ./importer/codex -run '^$' -bench Import -count 6
func BenchmarkImport(b *testing.B) {
	const name = goldenRollout
	golden, err := os.ReadFile("../../testdata/import/codex/src/" + name)
	if err != nil {
		b.Fatal(err)
	}
	sourcetest.ImportBench{
		Session: sourcetest.Grow(withoutCompaction(golden), 1, 2<<20),
		Write: func(root string, k int, data []byte) error {
			return sourcetest.WriteFile(root, string(corpus.RewriteIDs(k, []byte(name))), data)
		},
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := importer.New(ws, codex.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Run(b)
}

// BenchmarkConvert converts one session of 4 MB grown from the golden
// rollout: the converter's throughput, without the writes.
func BenchmarkConvert(b *testing.B) {
	golden, err := os.ReadFile("../../testdata/import/codex/src/" + goldenRollout)
	if err != nil {
		b.Fatal(err)
	}
	data := sourcetest.Grow(withoutCompaction(golden), 1, 4<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sourcetest.Convert(b, codex.Source{}, data)
	}
}

// withoutCompaction is a rollout without its compaction's two records.
func withoutCompaction(rollout []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(rollout, []byte("\n")) {
		if !bytes.Contains(l, []byte(`"type":"compacted"`)) && !bytes.Contains(l, []byte(`"type":"context_compacted"`)) {
			out = append(out, l...)
		}
	}
	return out
}
