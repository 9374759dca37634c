// Package opencode imports OpenCode's sessions. OpenCode keeps them in a
// SQLite database, <data>/opencode.db (<data> is $OPENCODE_DATA_DIR, else
// $XDG_DATA_HOME/opencode, else ~/.local/share/opencode): a row per
// session, per message (its JSON in data) and per part of a message (a
// text, a reasoning, a tool call with its state and output, a step's
// token counts). Rows are written over while a reply streams, so the
// importer does not read them as lines: Mirror exports each session's
// settled rows, one JSON object a line, into a file tape owns (decision
// 0097), and the converter maps those lines. docs/IMPORT.md has the
// mapping, field by field.
//
// Files: source.go (where sessions live, the converter's state),
// mirror.go (the export: which rows, in what order, settled when),
// schema.go (the database's tables as OpenCode 1.x writes them, checked
// before anything is read), convert.go (mirror lines to entries), part.go
// (a part's entries), usage.go (a reply's token counts).
package opencode

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is OpenCode's sessions, as tape imports them: `tape import
// opencode`.
type Source struct{}

// Name is "opencode".
func (Source) Name() string { return "opencode" }

func (Source) Agent() string { return "OpenCode" }

// DefaultDirs is OpenCode's data folder: $OPENCODE_DATA_DIR (as ccusage
// reads it), else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode,
// where OpenCode keeps opencode.db on Linux and macOS alike.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if d := getenv("OPENCODE_DATA_DIR"); d != "" {
		return []string{d}
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return []string{filepath.Join(d, "opencode")}
	}
	return []string{filepath.Join(home, ".local", "share", "opencode")}
}

// DirsEnv is OPENCODE_DATA_DIR.
func (Source) DirsEnv() string { return "OPENCODE_DATA_DIR" }

// IsTranscript reports whether path is a mirror file: <session id>.jsonl.
func (Source) IsTranscript(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// Stores lists the databases at root: root itself when it is a database
// file or a storage folder of OpenCode before 1.0, else the opencode.db
// and opencode-*.db files right in it (as ccusage finds them) and its
// storage folder.
func (Source) Stores(root string) []string {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if isDatabase(root) {
			return []string{root}
		}
		return nil
	}
	if isLegacyStorage(root) {
		return []string{root}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var dbs []string
	for _, e := range entries {
		if p := filepath.Join(root, e.Name()); e.Type().IsRegular() && isDatabase(p) {
			dbs = append(dbs, p)
		}
	}
	if storage := filepath.Join(root, "storage"); isLegacyStorage(storage) {
		dbs = append(dbs, storage) // OpenCode before 1.0 (legacy.go)
	}
	return dbs
}

// isDatabase reports whether path is named as OpenCode names its
// databases: opencode.db, and opencode-<channel>.db for its other
// release channels.
func isDatabase(path string) bool {
	base := filepath.Base(path)
	return base == "opencode.db" || strings.HasPrefix(base, "opencode-") && strings.HasSuffix(base, ".db")
}

// TapeName is source.TapeName on the last characters of the session id
// ("opencode-1b2c3d4e"): OpenCode's ids ("ses_" and 26 characters) begin
// with the time they were made.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, true) }

// NewConverter starts a converter of the mirror file at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// convState is what a converter carries from line to line, and keeps in
// a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"`
	Title   string         `json:"title"` // the last title event made
	Date    string         `json:"date"`  // the last date read
	Model   string         `json:"model"` // the last reply's model
	CWD     string         `json:"cwd"`
	Role    string         `json:"role"` // the last message's: its parts' text is its
}
