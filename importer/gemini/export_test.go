package gemini

import "testing"

// BenchSession is one generated session of about size bytes in the
// .jsonl layout, for the whole-import benchmark in import_bench_test.go
// (package gemini_test).
func BenchSession(b *testing.B, size int) []byte {
	lines, _ := generated(b, size)
	return lines
}
