package pi

// BenchSession is one generated session of about size bytes, for the
// whole-import benchmark in import_bench_test.go (package pi_test).
func BenchSession(size int) []byte { return generate(size, 7) }
