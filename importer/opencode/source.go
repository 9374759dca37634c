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
// The Kilo CLI, an OpenCode fork, keeps its sessions alike, in
// ~/.local/share/kilo/kilo.db: the same package reads it as the source
// "kilo" (Kilo), with the columns Kilo adds to a session's row
// (current_state, recent_progress) exported when it has them.
//
// Files: source.go (where sessions live, the converter's state),
// mirror.go (the export: which rows, in what order, settled when),
// schema.go (the database's tables as OpenCode 1.x writes them, checked
// before anything is read), legacy.go (the JSON files of OpenCode before
// 1.0), convert.go (mirror lines to entries), part.go (a part's entries,
// a reply's token counts).
package opencode

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is the sessions of OpenCode, or of an agent forked from it that
// keeps them in OpenCode's database and folders (the Kilo CLI), as tape
// imports them: `tape import opencode`, `tape import kilo`. The zero
// Source is OpenCode's; Kilo is the Kilo CLI's; New makes another fork's.
// Every fork shares the schema checks, the export, the mapping and their
// tests; only its names and folders differ (agent).
type Source struct{ a agent }

// agent is what tells one agent of OpenCode's lineage from another. It is
// comparable, so that a Source stays a map key.
type agent struct {
	name    string // the source's name, its tapes' prefix and its events' ("kilo/<type>")
	display string // how people name it: "Kilo CLI"
	app     string // its data folder's name under $XDG_DATA_HOME: "kilo"
	env     string // the variable that names its data folder, as ccusage reads it
	db      string // its database's name: "kilo.db"; "kilo-<channel>.db" for its other channels
	oldDB   string // another prefix of its channels' databases: "opencode" (opencode-<channel>.db)
	schema  string // whose schema the database has, for the errors that name it
}

// openCode is the zero Source's agent.
var openCode = agent{name: "opencode", display: "OpenCode", app: "opencode", env: "OPENCODE_DATA_DIR", db: "opencode.db", schema: "OpenCode 1.x"}

// New is the source of an agent forked from OpenCode that keeps its
// sessions as OpenCode does: name is the source's (and its tapes'
// prefix), display how people name the agent, app its data folder under
// $XDG_DATA_HOME (~/.local/share), env the variable that names that
// folder instead, db its database's file name there.
func New(name, display, app, env, db string) Source {
	return Source{agent{name: name, display: display, app: app, env: env, db: db,
		schema: display + " (OpenCode 1.x's schema)"}}
}

// Kilo is the Kilo CLI's sessions (@kilocode/cli, Kilo-Org/kilocode: an
// OpenCode fork): $KILO_DATA_DIR (as ccusage reads it), else
// $XDG_DATA_HOME/kilo, else ~/.local/share/kilo, holding kilo.db. Its
// development channels write kilo-<channel>.db, or opencode-<channel>.db
// when a Kilo from before the rename left one there.
func Kilo() Source {
	s := New("kilo", "Kilo CLI", "kilo", "KILO_DATA_DIR", "kilo.db")
	s.a.oldDB = "opencode"
	return s
}

// agent is s's agent: OpenCode's for the zero Source.
func (s Source) agent() agent {
	if s.a.name == "" {
		return openCode
	}
	return s.a
}

// Name is "opencode", or the fork's ("kilo").
func (s Source) Name() string { return s.agent().name }

func (s Source) Agent() string { return s.agent().display }

// DefaultDirs is the agent's data folder: $OPENCODE_DATA_DIR (as ccusage
// reads it; $KILO_DATA_DIR for Kilo), else $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode, where OpenCode keeps opencode.db on Linux and
// macOS alike.
func (s Source) DefaultDirs(getenv func(string) string, home string) []string {
	a := s.agent()
	if d := getenv(a.env); d != "" {
		return []string{d}
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return []string{filepath.Join(d, a.app)}
	}
	return []string{filepath.Join(home, ".local", "share", a.app)}
}

// DirsEnv is OPENCODE_DATA_DIR, or the fork's (KILO_DATA_DIR).
func (s Source) DirsEnv() string { return s.agent().env }

// IsTranscript reports whether path is a mirror file: <session id>.jsonl.
func (Source) IsTranscript(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// Stores lists the databases at root: root itself when it is a database
// file or a storage folder of OpenCode before 1.0, else the opencode.db
// and opencode-*.db files right in it (as ccusage finds them; kilo.db and
// kilo-*.db for Kilo) and its storage folder.
func (s Source) Stores(root string) []string {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if s.agent().isDatabase(root) {
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
		if p := filepath.Join(root, e.Name()); e.Type().IsRegular() && s.agent().isDatabase(p) {
			dbs = append(dbs, p)
		}
	}
	if storage := filepath.Join(root, "storage"); isLegacyStorage(storage) {
		dbs = append(dbs, storage) // OpenCode before 1.0 (legacy.go)
	}
	return dbs
}

// isDatabase reports whether path is named as the agent names its
// databases: opencode.db, and opencode-<channel>.db for its other
// release channels.
func (a agent) isDatabase(path string) bool {
	base := filepath.Base(path)
	channel := func(prefix string) bool {
		return prefix != "" && strings.HasPrefix(base, prefix+"-") && strings.HasSuffix(base, ".db")
	}
	return base == a.db || channel(strings.TrimSuffix(a.db, ".db")) || channel(a.oldDB)
}

// TapeName is source.TapeName on the last characters of the session id
// ("opencode-1b2c3d4e", "kilo-1b2c3d4e"): OpenCode's ids ("ses_" and 26 characters) begin
// with the time they were made.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, true) }

// NewConverter starts a converter of the mirror file at path.
func (s Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(s.agent().name, path, state))
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
