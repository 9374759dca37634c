package amp

// BenchSession is one generated thread of about size bytes, for the
// whole-import benchmark in import_bench_test.go (package amp_test).
func BenchSession(size int) []byte { return benchThread(size) }
