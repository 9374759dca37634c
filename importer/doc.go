// Package importer brings the sessions other agents record into tapes,
// one tape per session: Claude Code's, Codex's, the Gemini CLI's, Qwen
// Code's, the Copilot CLI's, Pi's, Kimi's, Droid's, OpenClaw's, OpenCode's, Amp's, Aider's (a tape per run), Goose's,
// Crush's, Cline's, Roo Code's and Kilo Code's, and Cursor's, each agent a source
// package behind one interface.
//
// # The packages
//
//   - importer/source: the contract. source.Source is what an agent's
//     package implements (where its transcripts live, how its tapes are
//     named, a Converter per transcript); the helpers there make every
//     source's entries alike.
//   - importer/claude, importer/codex, importer/gemini, ...: one package per source, holding
//     only what is its own: its folders, its records, its mapping to tape
//     entries (docs/IMPORT.md has it field by field), and its tests.
//   - importer (this package): the driver that any source runs on, and
//     the registry of sources (registry.go: Sources, SourceByName), which
//     `tape import [<source>]`, `tape sources` (survey.go) and `tape watch
//     --follow` read.
//   - importer/sourcetest: the checks every source's tests run.
//
// docs/ADDING_A_SOURCE.md walks through adding a source.
//
// # What this package owns
//
//   - the driver (importer.go; a transcript's reading and writing in
//     filerun.go; a run's checkpoints and marks in run.go): one tape per
//     session, entries appended through the log package (the same locks
//     and limits as every writer, writer.go), and the checkpoints under
//     .tape/import/<source>.json that let a second import read only what
//     is new (checkpoint.go);
//   - following transcripts as agents write them (follow.go), with the same
//     driver, so a mirrored line is the entry an import would make;
//   - the reports of lines it could not read, or read in part (report.go).
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
// A transcript is read up to its last complete line; a source whose
// transcripts are JSON documents written over whole, with no newline at
// their end (source.LastLineReader: Cline's), is given the line after the
// last newline too (decision 0094). A converter may hold
// lines back while the record they belong to is open (the tool calls of an
// assistant turn, which Claude Code writes one line per call); the
// checkpoint then stops before them, and they are imported when a later
// line closes the record, or once the file has been quiet for Settle.
package importer
