// Package short sizes tape's long tests for go test -short, the fast loop
// a developer runs and the pass .ci/run makes under the race detector
// (decision 0074): a property test runs a tenth of its seeds, a test of a
// large corpus a smaller corpus. The detector slows these tests ten to a
// hundred times, and they look for wrong answers, not races; go test
// without -short, which .ci/run runs first, runs them whole. A test is
// never skipped under -short and keeps every assertion: it only does less.
package short

import "testing"

// Seeds is how many seeds a property test runs: n, or a tenth of them
// (at least one) with -short.
func Seeds(n uint64) uint64 {
	if testing.Short() {
		return max(1, n/10)
	}
	return n
}

// Sized is full, or small with -short: the size of a test's corpus. (A
// build beside of 4,000 entries took 3.6 s without the race detector and
// 365 s with it, past go test's timeout in CI.)
func Sized(full, small int) int {
	if testing.Short() {
		return small
	}
	return full
}
