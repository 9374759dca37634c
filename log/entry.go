package log

import (
	"encoding/json"
	"path"
	"time"
)

// The kinds of entry that Bub writes and tape knows. Any other kind is kept
// as it is: readers never reject an entry for its kind.
const (
	KindMessage    = "message"     // payload: an OpenAI chat message
	KindSystem     = "system"      // payload: {"content": ...}
	KindToolCall   = "tool_call"   // payload: {"calls": [OpenAI tool calls]}
	KindToolResult = "tool_result" // payload: {"results": [...]}, matched to calls by the id each carries, else by position
	KindAnchor     = "anchor"      // payload: {"name": ..., "state": {...}}
	KindEvent      = "event"       // payload: {"name": ..., "data": ...}
	KindError      = "error"       // payload: {"kind": ..., "message": ...}
)

// The files the writer appends to, by kind. Readers read every *.jsonl file
// of an anchor folder, whatever its name.
const (
	MessagesFile  = "messages.jsonl"
	ToolCallsFile = "tool_calls.jsonl"
	EventsFile    = "events.jsonl"
	AnchorFile    = "anchor.json"
)

// FileForKind names the file of an anchor folder that the writer appends an
// entry of kind to.
func FileForKind(kind string) string {
	switch kind {
	case KindMessage, KindSystem:
		return MessagesFile
	case KindToolCall, KindToolResult:
		return ToolCallsFile
	default:
		return EventsFile
	}
}

// Entry is one fact on a tape: the envelope as written, and where it was
// read from.
type Entry struct {
	// ID is the entry's id as written (an integer id in its decimal form),
	// or, for a line that has none, one derived from its place:
	// "<anchor folder>/<file>:<line>". See DerivedID.
	ID      string
	Kind    string
	Payload json.RawMessage // nil when the line has no payload
	Meta    json.RawMessage // nil when the line has no meta
	Date    string          // as written; "" when absent
	Pos     Position
}

// Position says where an entry was read from, and where it sorts.
type Position struct {
	Tape      string
	AnchorSeq int64
	Anchor    string    // the anchor's name
	Folder    string    // the anchor folder, "002_plan"
	File      string    // the file in that folder, "messages.jsonl"
	Line      int       // 1-based line number; 0 for an anchor without anchor.json
	Offset    int64     // byte offset of the line in its file
	Length    int       // bytes of the line, without its newline
	Time      time.Time // the effective time the entry sorts by (see the package doc)
}

// Path is the entry's file relative to the workspace (the .tape folder),
// slash-separated: "tapes/main/anchors/001_session-start/messages.jsonl".
func (p Position) Path() string {
	return path.Join(tapesDir, p.Tape, anchorsDir, p.Folder, p.File)
}

// DerivedID is the id of an entry whose line has none: its anchor folder,
// file and line, "001_session-start/messages.jsonl:3". It is a function of
// the files alone, unique within a tape, and stable as long as the line
// stays where it is (the files are append-only, so it does).
func DerivedID(folder, file string, line int) string {
	return folder + "/" + file + ":" + itoa(line)
}

// jsonEmptyObject is an entry's meta, or an anchor's state, given none.
var jsonEmptyObject = json.RawMessage("{}")
