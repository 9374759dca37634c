// Package cursor imports the chats of Cursor, the editor, and of its CLI
// (cursor-agent), which keep them in three places:
//
//   - the CLI's agent transcripts, ~/.cursor/projects/<project>/
//     agent-transcripts/<id>.jsonl, or <id>/<id>.jsonl with the
//     transcripts of its subagents in <id>/subagents/<agent>.jsonl: one
//     message a line, {"role", "message": {"content": [blocks]}}, in
//     Anthropic's shape, with no dates (transcript.go);
//   - the editor's chats (its "composers"), in the SQLite key-value table
//     cursorDiskKV of <user>/globalStorage/state.vscdb: a composerData:<id>
//     row per chat and a bubbleId:<id>:<bubble> row per message; the
//     folder a chat belongs to is in the ItemTable of each workspace's
//     <user>/workspaceStorage/<hash>/state.vscdb (<user> is
//     ~/.config/Cursor/User on Linux, ~/Library/Application
//     Support/Cursor/User on macOS);
//   - the CLI's chats, ~/.cursor/chats/<hash>/<id>/store.db: a meta row
//     and content-addressed blobs, the chat a tree of them (storedb.go).
//
// Transcripts are read as lines, as any source's. The databases are read
// through a mirror (decision 0097): Mirror exports each chat's settled
// rows, one JSON object a line, into a file tape owns, and the converter
// maps those lines (editor.go, bubble.go). docs/IMPORT.md has the mapping,
// field by field; decision 0100 what was decided and why. Cursor keeps no
// token counts that say what a request cost: no usage is imported.
//
// Files: source.go (where chats live), transcript.go (a transcript's
// lines), convert.go (the converter, which reads both kinds of line),
// mirror.go (the editor's export), workspaces.go (which folder a chat is
// of), editor.go and bubble.go (its mirror lines to entries), storedb.go
// (the CLI's chats).
package cursor

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
)

// Source is Cursor's chats, as tape imports them: `tape import cursor`.
type Source struct{}

// Name is "cursor".
func (Source) Name() string { return "cursor" }

func (Source) Agent() string { return "Cursor" }

// DefaultDirs are the CLI's projects and chats folders (~/.cursor/projects,
// ~/.cursor/chats) and the editor's user folder: $XDG_CONFIG_HOME/Cursor/User
// (else ~/.config/Cursor/User) on Linux, ~/Library/Application
// Support/Cursor/User on macOS. Each is its own root: the projects folder
// holds transcripts, the other two databases (Stores).
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	config := filepath.Join(home, ".config")
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		config = d
	}
	return []string{
		filepath.Join(home, ".cursor", "projects"),
		filepath.Join(home, ".cursor", "chats"),
		filepath.Join(config, "Cursor", "User"),
		filepath.Join(home, "Library", "Application Support", "Cursor", "User"),
	}
}

// DirsEnv is "": Cursor has no variable that moves its folders.
func (Source) DirsEnv() string { return "" }

// IsTranscript reports whether path is an agent transcript or a mirror
// file: a *.jsonl file.
func (Source) IsTranscript(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// Prune leaves out of a walk (and of the follower's watches) the folders
// that hold neither transcripts nor databases: in a project of the CLI's
// projects folder, all but agent-transcripts (Cursor keeps its terminals'
// output and MCP tools' descriptions beside it); in the editor's user
// folder, all but globalStorage and workspaceStorage (its History holds a
// copy of every file edited).
func (Source) Prune(root, path string, depth int) bool {
	name := filepath.Base(path)
	switch filepath.Base(root) {
	case "projects":
		return depth == 2 && name != "agent-transcripts"
	case "User":
		return depth == 1 && name != "globalStorage" && name != "workspaceStorage"
	}
	return false
}

// Stores lists the databases at root: root itself when it is a
// globalStorage/state.vscdb or a store.db; in the editor's user folder, its
// globalStorage/state.vscdb (the workspaces' databases are read with it,
// for the folder of each chat); in a globalStorage folder, its
// state.vscdb; in the CLI's chats folder, each <hash>/<id>/store.db (in a
// <hash> folder, each <id>/store.db; in an <id> folder, its store.db).
func (Source) Stores(root string) []string {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if isEditorDB(root) || filepath.Base(root) == cliDB {
			return []string{root}
		}
		return nil
	}
	for _, p := range []string{filepath.Join(root, "globalStorage", editorDB), filepath.Join(root, editorDB), filepath.Join(root, cliDB)} {
		if isFile(p) && (filepath.Base(p) == cliDB || isEditorDB(p)) {
			return []string{p}
		}
	}
	var dbs []string
	for _, pattern := range []string{filepath.Join(root, "*", cliDB), filepath.Join(root, "*", "*", cliDB)} {
		found, _ := filepath.Glob(pattern)
		dbs = append(dbs, found...)
	}
	return dbs
}

// The names of the databases: the editor's, the CLI's.
const (
	editorDB = "state.vscdb"
	cliDB    = "store.db"
)

// isEditorDB reports whether p is the editor's database of chats: a
// state.vscdb in a globalStorage folder. A workspace's (in
// workspaceStorage/<hash>) holds no chat; it is read with the global one.
func isEditorDB(p string) bool {
	return filepath.Base(p) == editorDB && filepath.Base(filepath.Dir(p)) == "globalStorage"
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// TapeName is source.TapeName on the first characters of the chat's id
// ("cursor-1b2c3d4e"): Cursor's ids are random UUIDs.
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the transcript or mirror file at
// path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// fileSession is the session a transcript's path says it holds: its
// name is the chat's id; a subagent's, in <id>/subagents/, is the
// subagent's, of the chat <id>.
func fileSession(path string) source.Session {
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		return source.Session{Source: "cursor", ID: filepath.Base(filepath.Dir(dir)), Agent: id}
	}
	return source.Session{Source: "cursor", ID: id}
}

// projectOf is the CLI's folder name of a transcript's project (the
// folder in ~/.cursor/projects above agent-transcripts), "" for a file
// elsewhere.
func projectOf(path string) string {
	dir := filepath.Dir(path)
	for i := 0; i < 4 && dir != filepath.Dir(dir); i++ {
		if filepath.Base(dir) == "agent-transcripts" {
			return filepath.Base(filepath.Dir(dir))
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// decodeProject is the folder a project's name says, as the CLI names
// them: the folder's absolute path with every '/' and '.' written '-',
// and no leading one ("Users-ana-src-app" is /Users/ana/src/app; a
// Windows drive's letter first, "c-Users-ana-app" is c:/Users/ana/app).
// It cannot be undone exactly (a '-' or '.' in a folder's name reads as a
// '/'), so it is the cwd only where the transcript names none.
func decodeProject(name string) string {
	if name == "" {
		return ""
	}
	parts := strings.Split(name, "-")
	if len(parts[0]) == 1 && len(parts) > 1 {
		return parts[0] + ":/" + strings.Join(parts[1:], "/")
	}
	return "/" + strings.Join(parts, "/")
}
