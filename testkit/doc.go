// Package testkit is the folder of tape's test kits; the code is in its
// subpackages, one kit each:
//
//   - benchcpu: the CPU time a benchmark spends, beside its wall time.
//   - corpus: realistic corpora for benchmarks (a few long tapes, many
//     short sessions, Claude Code transcripts), the same for a seed.
//   - indexdump: the local index rendered as text that does not depend
//     on how it was built, for the tests that compare an index kept
//     incrementally with a rebuild (projector's, fresh's).
//   - pgtest: throwaway PostgreSQL servers on a loopback port.
//   - pty: pseudo-terminals, for commands that draw on one.
//   - poll: waiting with a deadline for what another goroutine or process
//     will make true, never a fixed sleep.
//   - short: how much a long test does under go test -short (a tenth of
//     a property test's seeds, a smaller corpus), never skipping it.
//   - tmux: a command in a terminal of a given size on a tmux server of
//     its own, typed into and its screen read (tape ui).
//   - tapetest: a workspace to start from, messages and raw lines
//     appended to it, and random changes to its files, for the property
//     tests of both projections.
//
// The kits sit beside the tests, above what they test (corpus and
// tapetest write workspaces through log), so they are not under
// internal/, which is the ground floor: utilities that import no package
// of tape outside internal/. Only tests import the kits, with one
// exception, the benchmark driver cmd/tape-bench (corpus and pgtest).
// A kit of one package's contract sits beside it, named as Go names
// httptest: importer/sourcetest, the checks every agent source runs; the
// rule counts it among the kits. layers_test.go holds both rules.
package testkit
