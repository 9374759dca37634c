package cursor

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// BenchmarkConvert converts one generated mirror file of 4 MB: the
// converter's throughput, without the writes.
//
//	go test ./importer/cursor -run '^$' -bench Convert -count 6
func BenchmarkConvert(b *testing.B) {
	data := BenchSession(4 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sourcetest.Convert(b, Source{}, data)
	}
}
