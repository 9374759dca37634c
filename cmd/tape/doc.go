// Command tape is the command-line interface of tape, the event-sourced
// store for AI-agent sessions: people use it in a terminal, and agents call
// it as a subprocess and read its stdout. docs/CLI.md is its reference.
//
// Each command lives in its own file (cmd_<name>.go) as a kong struct with a
// Run method; errors become exit codes in one place, exitcodes.go
// (docs/decisions/0008). Beside the commands:
//
//   - cli.go: the root of the command line, the global flags, and how a
//     command opens its workspace, its tape and the index made fresh.
//   - parse.go: parsing with a model of the named command alone
//     (docs/decisions/0014), and a search query's words after its first
//     taken as text, not flags.
//   - scope.go: the flags of the one rule of which tapes a command reads,
//     and its errors in the CLI's words; the rule's core is package log's
//     (Workspace.SelectTape), and an empty default tape beside others is
//     not the default (docs/decisions/0058, 0062).
//   - render.go, table.go, color.go: human output; tables measured in
//     terminal columns and fitted to a terminal's width, cut nothing when
//     piped (docs/decisions/0059).
//   - watch_auto.go: the watcher a read starts on demand
//     (docs/decisions/0056).
//
// Its tests run the CLI in process, as real processes of the test binary
// (docs/decisions/0015) and as scripts (testdata/script/*.txtar), against
// golden output under testdata/: golden/ (go test ./cmd/tape -run
// TestGolden -update regenerates it), views/ (-run TestViewsGolden
// -update) and doctor/. The chaos test (chaos_test.go) holds the
// invariants of ARCHITECTURE.md under SIGKILLed concurrent processes.
package main
