package aider

// BenchHistory is one generated chat history of about size bytes, for
// the whole-import benchmark in import_bench_test.go (package aider_test).
func BenchHistory(size int) []byte { return benchHistory(size) }
