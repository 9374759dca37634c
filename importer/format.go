package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Format is a transcript format tape imports.
type Format struct {
	// Name is how commands name it: "claude", "codex".
	Name string
	// DefaultDirs are where the format's transcripts live when no path is
	// given, from the environment and the home folder.
	DefaultDirs func(getenv func(string) string, home string) []string
	// DirsEnv is the environment variable DefaultDirs reads, for messages
	// that say where tape looked.
	DirsEnv string
	// IsTranscript reports whether a file found under a folder is one of
	// the format's transcripts (a file named on the command line is always
	// read).
	IsTranscript func(path string) bool
	// newConverter starts reading the transcript file at path, from its
	// start (state nil) or from a checkpoint's state.
	newConverter func(path string, state []byte) (converter, error)
}

// Dirs are the format's DefaultDirs on this machine.
func (f *Format) Dirs() []string {
	home, _ := os.UserHomeDir() // without one, only the environment can name them
	return f.DefaultDirs(os.Getenv, home)
}

// Formats are the formats tape imports, by name.
func Formats() []*Format { return []*Format{Claude, Codex} }

// FormatByName returns the format called name.
func FormatByName(name string) (*Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// converter turns the lines of one transcript, in order, into entries. It
// does no I/O: what it makes is a function of the lines it was given, so
// an import, a second import and a follower make the same entries.
type converter interface {
	// line converts the next complete line (without its newline). An
	// error is a bad line: reported, and the lines after it are read; a
	// lineWarning is not: the line's entries were made, and it is
	// reported as a Warning.
	line(l tapelog.RawLine) ([]Output, error)
	// held says whether lines are held back (see the package doc), and
	// where the first of them starts: its number less one, and its offset.
	held() (line int, offset int64, ok bool)
	// flush returns what is held back, for a transcript that is quiet.
	flush() []Output
	// state is what the converter needs to resume reading after the last
	// line it does not hold.
	state() ([]byte, error)
}

// Session names the tape a converter's entries go to.
type Session struct {
	Source string // the format's name
	ID     string // the session's id, as the source writes it
	Agent  string // a subagent's id; "" for the session itself
}

// shortHex is how many characters of an id a tape name keeps.
const shortHex = 8

// Tape is the session's tape name, stable and readable: the source and a
// short form of the session id ("claude-1a2b3c4d"), and for a subagent
// the short form of its id after "-agent-". long adds a sum of the whole
// ids ("claude-1a2b3c4d-5e6f7a8b"): the name a session takes when its
// short name belongs to another session's tape. Either is at most 40
// bytes, whatever the ids hold.
func (s Session) Tape(long bool) string {
	// Codex ids are UUIDv7: their first digits are the time, the same for
	// sessions started within a minute; the last ones are random.
	name := s.Source + "-" + shortID(s.ID, s.Source == "codex")
	if s.Agent != "" {
		name += "-agent-" + shortID(s.Agent, false)
	}
	if long {
		sum := sha256.Sum256([]byte(sessionKey(s)))
		name += "-" + hex.EncodeToString(sum[:4])
	}
	return name
}

// shortID is the first (or last) shortHex letters and digits of an id.
func shortID(id string, fromEnd bool) string {
	id = strings.ReplaceAll(nameSafe(id), "-", "")
	switch {
	case id == "":
		return "x"
	case len(id) <= shortHex:
		return id
	case fromEnd:
		return id[len(id)-shortHex:]
	}
	return id[:shortHex]
}

// nameSafe keeps the letters, digits, '-', '_' and '.' of an id, so that
// any id makes a valid tape name.
func nameSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if s == "" {
		return "x"
	}
	return s
}

// Output is one entry a converter made, and the session it belongs to.
type Output struct {
	Session Session
	Entry   tapelog.Entry
	// Anchor says the entry is an anchor: it starts the session's tape
	// (its first output), or a new phase of it (a compaction).
	Anchor bool
}

// metaOf starts the meta of an entry made from line n of the transcript at
// path: "source" names the transcript, the line, and the record's uuid
// and its parent's when it has them, and its timestamp as written when
// it could not be read as a date (badDate; recordDate). The caller adds
// what else the meta says and ends it.
func metaOf(path string, n int, uuid, parent string, badDate json.RawMessage) *rawjson.Object {
	src := rawjson.NewObject().Str("file", path).Int("line", int64(n)).StrIf("uuid", uuid).StrIf("parent_uuid", parent)
	if len(badDate) > 0 {
		src.Raw("timestamp", badDate)
	}
	return rawjson.NewObject().Raw("source", src.Done())
}

// lineID is the id of the k-th entry (from 0) made from a line that has no
// id of its own: a tag of the file's name, which stays the same when the
// file is moved (Codex archives old sessions), and the line number.
func lineID(path string, line, k int) string {
	sum := sha256.Sum256([]byte(filepath.Base(path)))
	return withPart(hex.EncodeToString(sum[:3])+":"+strconv.Itoa(line), k)
}

// withPart is the id of the k-th entry made from a line whose first entry
// has id: the id itself, then id/2, id/3...
func withPart(id string, k int) string {
	if k == 0 {
		return id
	}
	return id + "/" + strconv.Itoa(k+1)
}

// mustJSON encodes values the converters build from decoded JSON (maps,
// slices, strings, numbers, and json.RawMessages cut from a line that
// decoded), with <, > and & as they are: it cannot fail on them.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("importer: encode " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
