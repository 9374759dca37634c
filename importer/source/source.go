// Package source is the contract between the importer and the agents
// whose sessions it brings in: the Source interface that each agent's
// package implements (importer/claude, importer/codex), the Converter a
// Source starts for each transcript, the Session and Output a converter
// makes, and the helpers every converter makes its entries with (Meta,
// LineID, MustJSON, RecordDate), so that all sources write entries alike.
//
// Nothing here does I/O, and nothing here knows a source by name: the
// importer package drives the reading, writing and checkpoints, and its
// registry (importer.Sources) lists the sources. docs/ADDING_A_SOURCE.md
// walks through adding one.
package source

import (
	"encoding/json"
	"fmt"

	tapelog "github.com/tape-dev/tape/log"
)

// Source is one agent's transcript format: where its transcripts live, how
// its sessions' tapes are named, and how a transcript becomes entries.
//
// An implementation is an empty struct type in the source's own package
// (claude.Source{}): a Source is a key of maps (importer.Follower.Dirs),
// so it must be comparable, and it holds no state: everything a transcript
// needs is in its Converter.
type Source interface {
	// Name is how users and files name the source, and a contract once
	// released: the word of `tape import <name>` and `tape watch --follow
	// <name>`, the checkpoint file .tape/import/<name>.json, the
	// Session.Source of its sessions, and the "source" of their first
	// anchors. Lower case letters only.
	Name() string
	// Agent is the agent's name as people say it ("Claude Code"), for
	// `tape sources` and messages.
	Agent() string
	// DefaultDirs are the folders its transcripts live in on this machine,
	// read when the user gives no path, from the environment (getenv) and
	// the home folder (home, "" when there is none). Folders that do not
	// exist are fine: the caller skips them.
	DefaultDirs(getenv func(string) string, home string) []string
	// DirsEnv is the environment variable DefaultDirs reads ("" for none),
	// for the message that says where tape looked.
	DirsEnv() string
	// IsTranscript reports whether a file found under a folder is one of
	// its transcripts. A file the user names is read whatever its name.
	IsTranscript(path string) bool
	// TapeName is the name of a session's tape: stable (the same session
	// always gets the same name), at most 40 bytes and a valid tape name
	// whatever the ids hold. long is asked for when the short name is
	// already another session's tape. TapeName (the function) is the rule
	// to call unless the source's ids need another.
	TapeName(s Session, long bool) string
	// NewConverter starts reading the transcript at path: from its start
	// when state is nil, else from where a Converter's State left it.
	// path is only a name here: the converter reads nothing from it, and
	// must take any path, whatever IsTranscript says of it.
	NewConverter(path string, state []byte) (Converter, error)
}

// Converter turns the lines of one transcript, in order, into entries.
// It does no I/O: what it makes is a function of the path, the state it
// started from and the lines it was given, so that an import, a second
// import from a checkpoint and a follower make the same entries.
//
// What it must hold to (sourcetest checks each):
//   - an entry's id is a function of the line it came from (the record's
//     own id, or LineID), so the same line always makes the same entry;
//   - the first output of a session is an anchor (Output.Anchor) whose
//     payload is {"name": "session/start", "state": {"source": Name(),
//     "session_id": ..., "file": path, ...}};
//   - nothing a line holds is dropped: what the mapping cannot read is
//     kept whole, as an event named "<source>/<type>";
//   - a state saved wherever Held says nothing is held, and resumed, makes
//     what one pass makes.
type Converter interface {
	// Line converts the next complete line (l.Data, without its newline;
	// never blank). It returns the entries the line completes, which may
	// include entries of lines held before it. An error is a bad line,
	// reported as FILE:LINE with the error's text, and the lines after
	// it are read; a LineWarning is not: the line's entries were made,
	// and the warning is reported.
	Line(l tapelog.RawLine) ([]Output, error)
	// Held says whether lines are held back because the record they
	// belong to may go on (Claude Code writes a turn's tool calls one line
	// each), and where the first of them starts: its line number less
	// one, and its byte offset. A checkpoint then stops before them, and
	// the next import reads them again.
	Held() (line int, offset int64, ok bool)
	// Flush returns what is held back, for a transcript that has been
	// quiet long enough that the record is finished.
	Flush() []Output
	// State is what the converter needs to go on after the last line it
	// does not hold: any bytes (JSON, usually), kept in the checkpoint
	// and given back to NewConverter.
	State() ([]byte, error)
}

// LastLineReader is a Converter of transcripts that are whole documents
// written over in place, whose last line ends without a newline (Cline's
// JSON arrays, which are one such line). The driver reads every other
// transcript up to its last newline, and leaves what follows as a line
// still being written; to a LastLineReader it gives that line too, after
// the complete ones, through LastLine. A line that is not whole yet (a
// writer that does not replace the file in one rename, caught
// mid-write) is held (Held), and read again by the next import, or
// flushed once the file is quiet, as any held line is. Decision 0094.
type LastLineReader interface {
	Converter
	// LastLine converts the transcript's last line, which has no newline
	// after it: as Line does, but for a line the file may not be done
	// with.
	LastLine(l tapelog.RawLine) ([]Output, error)
}

// FileRanker is a Source whose sessions span several files of one folder,
// each of which starts the session's tape when it is read first: the
// files of a folder are read in the order of their ranks (the lowest
// first, then by name), so that the one whose first anchor says most of
// the session starts its tape. Sources that are not FileRankers have the
// files of a folder read by name. Decision 0094.
type FileRanker interface {
	Source
	// FileRank is the rank of the transcript at path among its folder's.
	FileRank(path string) int
}

// Session names the tape a converter's entries go to. Its fields are in
// the checkpoints (as the converters' states hold it): they do not change.
type Session struct {
	Source string // the source's Name
	ID     string // the session's id, as the source writes it
	Agent  string // a subagent's id; "" for the session itself
}

// Key is the session's key in a checkpoint: unique among the sessions of
// every source.
func (s Session) Key() string {
	if s.Agent == "" {
		return s.Source + "/" + s.ID
	}
	return s.Source + "/" + s.ID + "/~agent/" + s.Agent
}

// Output is one entry a converter made, and the session it belongs to.
type Output struct {
	Session Session
	Entry   tapelog.Entry
	// Anchor says the entry is an anchor: it starts the session's tape
	// (its first output), or a new phase of it (a compaction).
	Anchor bool
	// Replay says the entry may be on the tape already, from a part of
	// the transcript an earlier import read: the agent wrote its record
	// again (Gemini CLI rewrites a message, or its whole history, in
	// place). The writer skips it when its id is on the tape, even where
	// a checkpoint vouches for the tape and the tape's ids are not read
	// otherwise. A converter that cannot tell a record it made from one it
	// did not sets it; the cost is one read of the tape's ids per import.
	Replay bool
}

// NewConverter is what a source's NewConverter returns of its own
// constructor's results: the converter, or nil and the error (a nil
// pointer in a non-nil Converter would not be nil to the importer).
func NewConverter[C Converter](c C, err error) (Converter, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

// LoadState decodes a state a converter's State made, as JSON, into st;
// nil (a transcript read for the first time) leaves st as it is.
func LoadState(state []byte, st any) error {
	if state == nil {
		return nil
	}
	if err := json.Unmarshal(state, st); err != nil {
		return fmt.Errorf("read the checkpoint's state: %w", err)
	}
	return nil
}
