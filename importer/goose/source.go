// Package goose imports the sessions of Goose, Block's agent. Goose keeps
// them in a SQLite database, <data>/sessions/sessions.db (<data> is
// $GOOSE_PATH_ROOT/data, else $XDG_DATA_HOME/goose, else
// ~/.local/share/goose, on macOS too): a row per session (its name,
// folder, model and token counts), per message (its content as JSON) and,
// from schema 15, per request's usage. Goose writes a message's row whole
// once the message is done, but rewrites a session's rows on a
// compaction, so the importer does not read them as lines: Mirror exports
// each session's rows, one JSON object a line, into a file tape owns
// (decision 0097), and the converter maps those lines. Before the
// database, Goose wrote a session a file, <data>/sessions/<id>.jsonl (a
// line of metadata, then a message a line): the converter reads those as
// they are. docs/IMPORT.md has the mapping, field by field.
//
// Files: source.go (where sessions live, the converter's state),
// mirror.go (the export: which rows, in what order), schema.go (the
// tables as Goose writes them, checked before anything is read),
// convert.go (lines to entries: a session's row or metadata), message.go
// (a message's content), usage.go (the tokens ccusage counts, and the day
// it counts them on).
package goose

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is Goose's sessions, as tape imports them: `tape import goose`.
type Source struct{}

// Name is "goose".
func (Source) Name() string { return "goose" }

func (Source) Agent() string { return "Goose" }

// DefaultDirs is Goose's sessions folder, as Goose finds it (its
// Paths::data_dir, etcetera's XDG strategy on Linux and macOS alike):
// $GOOSE_PATH_ROOT/data/sessions when GOOSE_PATH_ROOT is an absolute path,
// else $XDG_DATA_HOME/goose/sessions, else ~/.local/share/goose/sessions.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if root := getenv("GOOSE_PATH_ROOT"); filepath.IsAbs(root) {
		return []string{filepath.Join(root, "data", "sessions")}
	}
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return []string{filepath.Join(d, "goose", "sessions")}
	}
	return []string{filepath.Join(home, ".local", "share", "goose", "sessions")}
}

// DirsEnv is GOOSE_PATH_ROOT.
func (Source) DirsEnv() string { return "GOOSE_PATH_ROOT" }

// IsTranscript reports whether path is a session file of Goose before
// its database, or a mirror file: <session id>.jsonl.
func (Source) IsTranscript(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// dbName is the name of Goose's database in its sessions folder.
const dbName = "sessions.db"

// Stores lists the databases at root: root itself when it is a file named
// sessions.db, else the sessions.db in it. A folder that holds one holds
// the .jsonl files of Goose before it too, which Goose copied into the
// database when it made it: they are read from the database, not again
// from their files (a file Goose failed to copy can be named to `tape
// import goose`).
func (Source) Stores(root string) []string {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if filepath.Base(root) == dbName {
			return []string{root}
		}
		return nil
	}
	db := filepath.Join(root, dbName)
	if fi, err := os.Stat(db); err == nil && fi.Mode().IsRegular() {
		return []string{db}
	}
	return nil
}

// TapeName is "goose-" and the session's id whole ("goose-20251128_3"):
// Goose's ids are short, and their first 8 characters, the day, are
// shared by the day's sessions. An id longer than 30 characters is cut as
// source.TapeName cuts ids.
func (Source) TapeName(s source.Session, long bool) string {
	id := safeID(s.ID)
	if len(id) > 30 || s.Agent != "" {
		return source.TapeName(s, long, false)
	}
	name := "goose-" + id
	if long {
		name += "-" + source.ShortSum([]byte(s.Key()))
	}
	return name
}

// safeID keeps the letters, digits, '_' and '-' of an id.
func safeID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

// NewConverter starts a converter of the file at path: a mirror file, or
// a session file of Goose before its database.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// convState is what a converter carries from line to line, and keeps in
// a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"`
	Title   string         `json:"title,omitempty"`   // the last title event made
	Date    string         `json:"date,omitempty"`    // the last date read
	Model   string         `json:"model,omitempty"`   // the session's model, or the last reply's
	CWD     string         `json:"cwd,omitempty"`     // the session's folder
	Counted string         `json:"counted,omitempty"` // the last usage a run counted
	// Summary is the text of the message before, when it was a user's
	// message only the agent sees: a compaction's summary, when the
	// message after it says the context was compacted.
	Summary string `json:"summary,omitempty"`
}
