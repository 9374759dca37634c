// Package crush imports the sessions of Crush, Charm's coding agent.
// Crush keeps them in a SQLite database per project, <project>/.crush/
// crush.db (its data folder, which --data-dir or data_directory may put
// elsewhere): a row per session (its title, its parent for a subagent's
// task, its token counts and cost), per message (its role, model and
// parts: a JSON array of text, reasoning, tool_call, tool_result,
// finish, image_url, binary and shell_command parts) and per version of
// a file the agent edited. Since 0.25, Crush also lists each project
// and its data folder in projects.json, in its global data folder.
//
// Rows are written over while a reply streams, so the importer does not
// read them as lines: Mirror exports each session's settled rows, one
// JSON object a line, into a file tape owns (decision 0097), and the
// converter maps those lines. docs/IMPORT.md has the mapping, field by
// field; decision 0099 says where the databases are found and how
// Crush's token counts become usage.
//
// Files: source.go (the Source, the converter's state), stores.go (where
// the databases are), schema.go (the tables as Crush's migrations make
// them, checked before anything is read), mirror.go (the export: which
// rows, in what order, settled when), rows.go (a row as a mirror line),
// convert.go (mirror lines to entries), parts.go (a message's parts),
// usage.go (a session's token counts).
package crush

import (
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is Crush's sessions, as tape imports them: `tape import crush`.
type Source struct{}

// Name is "crush".
func (Source) Name() string { return "crush" }

func (Source) Agent() string { return "Crush" }

// DefaultDirs is Crush's global data folder: $CRUSH_GLOBAL_DATA, else
// $XDG_DATA_HOME/crush, else ~/.local/share/crush, as Crush finds it on
// Linux and macOS (config.GlobalConfigData). Its projects.json names
// every project Crush 0.25 and later ran in, and where its database is
// (Stores reads it); config.json's crush_roots adds folders to walk for
// the projects of older versions.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if d := getenv("CRUSH_GLOBAL_DATA"); d != "" {
		return []string{d}
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return []string{filepath.Join(d, "crush")}
	}
	if home == "" {
		return nil
	}
	return []string{filepath.Join(home, ".local", "share", "crush")}
}

// DirsEnv is CRUSH_GLOBAL_DATA.
func (Source) DirsEnv() string { return "CRUSH_GLOBAL_DATA" }

// IsTranscript reports whether path is a mirror file: a .jsonl file in a
// mirror folder (.tape/import/crush/<sum>/), or one named by a Crush
// session id, which a copy of a mirror keeps. A folder of projects holds
// other .jsonl files, which are not Crush's.
func (Source) IsTranscript(path string) bool {
	name, ok := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if !ok {
		return false
	}
	mirror := filepath.Dir(filepath.Dir(path))
	if filepath.Base(mirror) == "crush" && filepath.Base(filepath.Dir(mirror)) == "import" {
		return true
	}
	return isSessionID(name)
}

// isSessionID reports whether id is as Crush makes a session's: a UUID,
// "title-" and its parent's (session.CreateTitleSession), or
// "<message id>$$<tool call id>" (a subagent's task).
func isSessionID(id string) bool {
	if msg, _, ok := strings.Cut(id, "$$"); ok {
		return source.IsUUID(msg)
	}
	return source.IsUUID(strings.TrimPrefix(id, "title-"))
}

// TapeName is source.TapeName on the first characters of the session id
// ("crush-1b2c3d4e"): Crush's ids are random UUIDs, and a subagent's
// begins with its parent's message's.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the mirror file at path.
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
	Model   string         `json:"model,omitempty"`   // the last reply's model
	CWD     string         `json:"cwd,omitempty"`     // the project's folder
	Usage   string         `json:"usage,omitempty"`   // the counts of the last run of the session's usage
	Summary string         `json:"summary,omitempty"` // the session's summary_message_id
}
