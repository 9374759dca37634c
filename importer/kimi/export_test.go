package kimi

// BenchSession is one generated session of about size bytes, for the
// whole-import benchmark in import_bench_test.go (package kimi_test).
func BenchSession(size int) []byte { return benchTranscript("kimi-cli", size) }
