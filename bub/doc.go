// Package bub owns tape's adapter to Bub, the agent framework whose tapes
// tape imports and whose model context tape rebuilds: reading Bub's
// single-file tapes (~/.bub/tapes/<tape>.jsonl, lines.go) and importing
// them as tapes (import.go), the tape name Bub gives a session and a file
// (session.go), the context Bub builds for its model from a tape
// (context.go), from the entries after an anchor (span.go), and that
// context fitted to a token budget, with the estimate of a message's
// tokens it is measured by (fit.go), and JSON as Python's json.dumps
// writes it (pyjson.go), which is what that context holds.
//
// The tape format itself, and the lenient reading of lines Bub-style
// writers produce (integer ids, Python's isoformat dates), belong to the
// log package; the pairing of tool results with their calls belongs to
// views, and the context follows it. This package holds what only Bub's
// own files and conventions need; the command line (tape import bub, tape
// context, --session) and the MCP server's context tool only parse their
// arguments and print.
package bub
