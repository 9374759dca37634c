// Package droid imports Factory Droid's sessions: one record a line in
// <sessions>/<workspace>/<session id>.jsonl (<sessions> is
// ~/.factory/sessions; the flat <sessions>/<session id>.jsonl of the
// releases of 2025 too), and beside each transcript the session's
// <session id>.settings.json, one JSON document Droid writes over at every
// turn: the model, the token counts and the rest of what the transcript
// lacks. Each file is a transcript to the importer, and both add to the
// session's one tape (decision 0090). docs/IMPORT.md has the mapping,
// field by field.
//
// Files: source.go (where sessions live, the converter's state), record.go
// (a line's members as the mapping reads them), convert.go (records to
// entries: the session's anchor, its title, compactions, events),
// message.go (a message: its reasoning, its blocks' entries), blocks.go
// (a content block, read in one pass), settings.go (the settings
// document, held until it closes), usage.go (its token counts and model,
// as ccusage counts them).
package droid

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is Factory Droid's session files, as tape imports them: `tape
// import droid`.
type Source struct{}

// Name is "droid".
func (Source) Name() string { return "droid" }

func (Source) Agent() string { return "Factory Droid" }

// DefaultDirs are the folders of $DROID_SESSIONS_DIR (a comma-separated
// list, as ccusage reads it; Droid itself has no variable for its
// folder), else ~/.factory/sessions.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	var dirs []string
	for _, d := range strings.Split(getenv("DROID_SESSIONS_DIR"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) > 0 {
		return dirs
	}
	return []string{filepath.Join(home, ".factory", "sessions")}
}

// DirsEnv is DROID_SESSIONS_DIR.
func (Source) DirsEnv() string { return "DROID_SESSIONS_DIR" }

// IsTranscript reports whether path is a session's transcript (*.jsonl)
// or its settings (*.settings.json), at any depth under the sessions
// folder: the workspace folders of today, the flat layout of 2025.
func (Source) IsTranscript(path string) bool {
	return strings.HasSuffix(path, ".jsonl") || isSettings(path)
}

// TapeName is source.TapeName on the first digits of the session id
// ("droid-9a3222f3"): Droid's ids are random UUIDs. A session a Droid
// session started (a subagent's, a mission worker's) has its own id, and
// tape.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the transcript or settings at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// settingsSuffix ends the name of a session's settings document.
const settingsSuffix = ".settings.json"

// isSettings reports whether the file at path is a session's settings
// document (settings.go) rather than its lines of records.
func isSettings(path string) bool { return strings.HasSuffix(path, settingsSuffix) }

// fileSession is the session a file's name says it holds: <id>.jsonl and
// <id>.settings.json. named is false for a transcript whose name is not a
// UUID (a copy renamed by hand): its session_start's id names it then.
func fileSession(path string) (s source.Session, named bool) {
	base := filepath.Base(path)
	if isSettings(path) {
		// ccusage names the session so too, whatever the name holds.
		return source.Session{Source: "droid", ID: strings.TrimSuffix(base, settingsSuffix)}, true
	}
	id := strings.TrimSuffix(base, ".jsonl")
	return source.Session{Source: "droid", ID: id}, source.IsUUID(id)
}

// convState is what a Droid converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Named   bool           `json:"named"`   // the path named the session (fileSession)
	Started bool           `json:"started"` // the session's first anchor was made
	// Date is the last timestamp read: a record without one takes it, so
	// that it sorts where it was written.
	Date string `json:"date"`
	// CWD is the working directory the last meta named: the first entry
	// after the anchor names the session_start's, so that tape tapes
	// finds it however the anchor came (settings.go).
	CWD   string `json:"cwd"`
	Start string `json:"start_cwd"` // the session_start's
	Title string `json:"title"`     // the last title event made
	// Brace says a settings document was closed at its last member: the
	// line "}" that ends it, when it comes, makes nothing.
	Brace bool `json:"brace,omitempty"`
}

// converter converts one transcript, or one settings document.
type converter struct {
	path     string
	settings bool
	st       convState
	doc      *heldDoc         // a settings document while its lines come
	members  []rawjson.Member // the members of the line being read, reused
	blocks   []block          // the blocks of its message, reused
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path, settings: isSettings(path)}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session, c.st.Named = fileSession(path)
	}
	return c, nil
}

func (c *converter) Held() (int, int64, bool) {
	if c.doc == nil {
		return 0, 0, false
	}
	return c.doc.line - 1, c.doc.offset, true
}

func (c *converter) Flush() []source.Output { return c.flushDoc() }

func (c *converter) State() ([]byte, error) {
	if c.doc != nil {
		return c.doc.saved, nil
	}
	return json.Marshal(c.st)
}
