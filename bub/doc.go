// Package bub owns tape's adapter to Bub, the agent framework whose tapes
// tape reads: reading Bub's single-file tapes (~/.bub/tapes/<tape>.jsonl,
// lines.go) and the tape name Bub gives a session (session.go).
//
// The tape format itself, and the lenient reading of lines Bub-style
// writers produce (integer ids, Python's isoformat dates), belong to the
// log package; this one holds what only Bub's own files and conventions
// need.
package bub
