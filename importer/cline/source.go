// Package cline imports the tasks of Cline and of its forks Roo Code and
// Kilo Code: <globalStorage>/<extension id>/tasks/<task id>/ under VS
// Code's (and Cursor's, Windsurf's, VSCodium's) user data folder, for the
// extensions saoudrizwan.claude-dev, rooveterinaryinc.roo-cline and
// kilocode.kilo-code, and ~/.cline/data/tasks/<task id>/ of the Cline CLI.
// A task folder holds api_conversation_history.json (what the model was
// sent and said: Anthropic messages), ui_messages.json (what the person
// saw, and each request's tokens and cost; claude_messages.json in Claude
// Dev 1.x), task_metadata.json (the models used, the editor, the files in
// context), and, from Roo Code 3.48, history_item.json (the task's
// parent). Each is one JSON document the agent writes over in place at
// every change, without a newline at its end; each is a transcript to the
// importer, and all add to the task's one tape. Decision 0094 says how a
// document written over is read; docs/IMPORT.md has the mapping, field by
// field.
//
// Files: source.go (where tasks live, the converter's state),
// document.go (a document's lines, held until it is whole, and its
// items), entry.go (what every entry of an item shares), api.go (the
// model's messages), blocks.go (their content blocks), xml.go (the tool
// calls written as XML in a message's text, and their results), ui.go
// (what the person saw: titles, runs, events), usage.go (a request's
// tokens), meta.go (task_metadata.json and history_item.json).
package cline

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is the tasks of Cline, Roo Code and Kilo Code, as tape imports
// them: `tape import cline`.
type Source struct{}

// Name is "cline", for the tasks of all three agents: the first anchor's
// state says which ("agent").
func (Source) Name() string { return "cline" }

func (Source) Agent() string { return "Cline, Roo Code and Kilo Code" }

// extensions are the VS Code extensions whose tasks are read, by the
// name of their folder in globalStorage (VS Code writes it in lower
// case), and the agent each is.
var extensions = []struct{ id, agent string }{
	{"saoudrizwan.claude-dev", "cline"},
	{"rooveterinaryinc.roo-cline", "roo"},
	{"kilocode.kilo-code", "kilo"},
}

// editors are the editors whose user data folders hold the extensions'
// globalStorage, by the name of that folder.
var editors = []string{"Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium"}

// servers are the folders of the editors' remote servers under $HOME,
// where an extension run over SSH or in a container keeps its tasks.
var servers = []string{".vscode-server", ".vscode-server-insiders", ".cursor-server", ".windsurf-server"}

// DefaultDirs are the tasks folders of the three extensions in each
// editor's globalStorage (on Linux, under $XDG_CONFIG_HOME, else
// ~/.config, and the editors' remote servers' ~/.<editor>-server/data; on
// macOS, ~/Library/Application Support), and the Cline CLI's tasks folder
// ($CLINE_DATA_DIR/tasks, else $CLINE_DIR/data/tasks, else
// ~/.cline/data/tasks, as Cline resolves its data folder).
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	var bases []string
	if runtime.GOOS == "darwin" {
		for _, e := range editors {
			bases = append(bases, filepath.Join(home, "Library", "Application Support", e, "User", "globalStorage"))
		}
	} else {
		config := getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(config) {
			config = filepath.Join(home, ".config") // as Electron reads it: a relative one is none
		}
		for _, e := range editors {
			bases = append(bases, filepath.Join(config, e, "User", "globalStorage"))
		}
		for _, s := range servers {
			bases = append(bases, filepath.Join(home, s, "data", "User", "globalStorage"))
		}
	}
	var dirs []string
	for _, b := range bases {
		for _, e := range extensions {
			dirs = append(dirs, filepath.Join(b, e.id, "tasks"))
		}
	}
	data := getenv("CLINE_DATA_DIR")
	if data == "" {
		if dir := getenv("CLINE_DIR"); dir != "" {
			data = filepath.Join(dir, "data")
		} else {
			data = filepath.Join(home, ".cline", "data")
		}
	}
	return append(dirs, filepath.Join(data, "tasks"))
}

// DirsEnv is CLINE_DATA_DIR, the Cline CLI's data folder (CLINE_DIR and
// XDG_CONFIG_HOME are read too).
func (Source) DirsEnv() string { return "CLINE_DATA_DIR" }

// The files of a task folder, each a transcript.
const (
	apiFile     = "api_conversation_history.json"
	uiFile      = "ui_messages.json"
	oldUIFile   = "claude_messages.json" // Claude Dev 1.x's ui_messages.json
	metaFile    = "task_metadata.json"
	historyFile = "history_item.json"
)

// kind is which of a task folder's files a converter reads.
type kind int

const (
	anyKind     kind = iota // a file of another name: each document tells
	apiKind                 // api_conversation_history.json
	uiKind                  // ui_messages.json, claude_messages.json
	metaKind                // task_metadata.json
	historyKind             // history_item.json
)

// kindOf is the kind of the file at path, by its name.
func kindOf(path string) kind {
	switch filepath.Base(path) {
	case apiFile:
		return apiKind
	case uiFile, oldUIFile:
		return uiKind
	case metaFile:
		return metaKind
	case historyFile:
		return historyKind
	}
	return anyKind
}

// IsTranscript reports whether path is one of a task folder's files, in
// a folder (the task's) of a tasks folder. The agents' temporary files
// beside them (ui_messages.json.tmp.<n>, .ui_messages.json.new_<n>.tmp)
// are not, nor is context_history.json or settings.json.
func (Source) IsTranscript(path string) bool {
	return kindOf(path) != anyKind && filepath.Base(filepath.Dir(filepath.Dir(path))) == "tasks"
}

// FileRank puts, in a task folder, history_item.json first (the only file
// that names a Roo Code task's parent, which its tape's first anchor must
// say), then task_metadata.json, the model's messages, and what the
// person saw: the tape's first anchor is the first file's.
func (Source) FileRank(path string) int {
	switch kindOf(path) {
	case historyKind:
		return 0
	case metaKind:
		return 1
	case apiKind:
		return 2
	case uiKind:
		return 3
	}
	return 4
}

// TapeName is source.TapeName on the task's id: its first digits for a
// UUID (Roo Code's, Kilo Code's), its last for Cline's, which is the time
// the task began in milliseconds, the same first digits for a day's tasks
// ("cline-04512345").
func (Source) TapeName(s source.Session, long bool) string {
	return source.TapeName(s, long, !source.IsUUID(s.ID))
}

// NewConverter starts a converter of the task file at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// convState is what a converter carries from one document to the next,
// and keeps in a checkpoint. A task's file is one document, read whole
// again whenever it is written over (decision 0094): the state matters
// only to a file that grows by appending, which the agents' never do.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"`          // the session's first anchor was made
	Millis  int64          `json:"millis,omitempty"` // the last date read, for items without one
	CWD     string         `json:"cwd,omitempty"`    // the working directory the last meta named
}

// converter converts one file of a task folder.
type converter struct {
	path   string
	kind   kind
	agent  string // cline, roo or kilo: by the folder the task is in
	editor string // the editor's folder the extension's storage is in
	st     convState
	doc    *document // the lines of a document not yet whole
	warn   error     // the first warning of the document being mapped
	// pending is the tool call the last assistant message wrote as XML,
	// which the next user message answers (xml.go).
	pending *xmlCall
	// Room for an item's members, a message's blocks and a block's
	// members, reused from one to the next.
	itemMembers, blockMembers []rawjson.Member
	blocks                    []block
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path, kind: kindOf(path)}
	c.agent, c.editor = placeOf(path)
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session = source.Session{Source: "cline", ID: filepath.Base(filepath.Dir(path))}
	}
	return c, nil
}

// placeOf is which agent wrote the task folder at path, by the
// extension's folder it is in (or the Cline CLI's data folder), and the
// editor whose storage that is: "" for what the path does not say.
func placeOf(path string) (agent, editor string) {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i, p := range parts {
		for _, e := range extensions {
			if strings.EqualFold(p, e.id) {
				agent = e.agent
				if i >= 3 && parts[i-1] == "globalStorage" && parts[i-2] == "User" {
					editor = parts[i-3]
					if editor == "data" && i >= 4 { // ~/.vscode-server/data/User/globalStorage
						editor = parts[i-4]
					}
				}
				return agent, editor
			}
		}
		if p == ".cline" && i+1 < len(parts) && parts[i+1] == "data" {
			return "cline", ""
		}
	}
	return "", ""
}

func (c *converter) Held() (int, int64, bool) {
	if c.doc == nil {
		return 0, 0, false
	}
	return c.doc.line - 1, c.doc.offset, true
}

// Flush maps a document that a quiet file never made whole (its writer
// stopped mid-write): the items before where it stops.
func (c *converter) Flush() []source.Output {
	if c.doc == nil {
		return nil
	}
	d := c.doc
	c.doc = nil
	out, _ := c.mapDocument(d, d.buf) // what is torn of it is no fault: a line still being written
	return out
}

func (c *converter) State() ([]byte, error) {
	if c.doc != nil {
		return c.doc.saved, nil
	}
	return json.Marshal(c.st)
}
