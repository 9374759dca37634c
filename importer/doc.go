// Package importer brings the sessions other agents record into tapes:
// Claude Code's transcripts (~/.claude/projects/<project>/<session>.jsonl)
// and Codex's rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
//
// It owns three things:
//
//   - the mapping of each format to tape entries (claude.go, codex.go; the
//     field-by-field table is docs/IMPORT.md): converters that read a
//     transcript line by line, free of I/O, and make entries whose ids are
//     functions of the source, so that the same line always makes the same
//     entry;
//   - the driver (importer.go): one tape per session, entries appended
//     through the log package (the same locks and limits as every writer),
//     and the checkpoints under .tape/import/ that let a second import read
//     only what is new (checkpoint.go);
//   - following transcripts as agents write them (follow.go), with the same
//     driver, so a mirrored line is the entry an import would make.
//
// # What "nothing twice" rests on
//
// An entry's id is made from the source line (its uuid, or the file and
// line number where it has none). A checkpoint says how far a file was
// read and with what converter state, and records each tape it wrote as
// it left it (its last anchor folder and the sizes of its files). An
// import resumes from a checkpoint only while every tape it wrote is still
// as recorded; otherwise (a checkpoint lost or older than the tape, an
// import killed between its appends and its checkpoint) it reads the file
// from the start and skips every entry whose id the tape already holds.
// The checkpoints are a cache: deleting them costs time, never an entry.
//
// # Lines still being written
//
// A transcript is read up to its last complete line. A converter may hold
// lines back while the record they belong to is open (the tool calls of an
// assistant turn, which Claude Code writes one line per call); the
// checkpoint then stops before them, and they are imported when a later
// line closes the record, or once the file has been quiet for Settle.
package importer
