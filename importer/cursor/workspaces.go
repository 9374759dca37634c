package cursor

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/mirrorfile"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// workspace is what a workspace's folder says, as the last export read
// it: the folder its workspace.json names, and the chats its
// state.vscdb's ItemTable lists (composer.composerData's allComposers).
type workspace struct {
	Stamp     mirrorfile.Stamp `json:"stamp"`
	Folder    string           `json:"folder"`
	Composers []string         `json:"composers"`
}

// folders maps each chat to the folder of the workspace whose database
// lists it, for the editor's database db (<user>/globalStorage/
// state.vscdb): the workspaces are <user>/workspaceStorage/<hash>/. A
// workspace whose database did not change since the last export is not
// opened again; one that cannot be read names no chat.
func (st *mirrorState) folders(ctx context.Context, db string) map[string]string {
	out := map[string]string{}
	if filepath.Base(filepath.Dir(db)) != "globalStorage" {
		return out
	}
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(db)), "workspaceStorage", "*"))
	seen := map[string]*workspace{}
	for _, dir := range dirs {
		wsDB := filepath.Join(dir, editorDB)
		stamp := mirrorfile.StampOf(wsDB)
		if stamp.DBSize == 0 {
			continue
		}
		w := st.Workspaces[dir]
		if w == nil || w.Stamp != stamp {
			w = readWorkspace(ctx, dir, stamp)
		}
		seen[dir] = w
		for _, id := range w.Composers {
			if w.Folder != "" {
				out[id] = w.Folder
			}
		}
	}
	st.Workspaces = seen
	return out
}

// readWorkspace reads a workspace's folder and chats.
func readWorkspace(ctx context.Context, dir string, stamp mirrorfile.Stamp) *workspace {
	w := &workspace{Stamp: stamp, Folder: workspaceFolder(dir)}
	conn, err := sql.Open("sqlite", mirrorfile.ReadOnly(filepath.Join(dir, editorDB)))
	if err != nil {
		return w
	}
	defer conn.Close()
	var value []byte
	if conn.QueryRowContext(ctx, `SELECT value FROM ItemTable WHERE key = 'composer.composerData'`).Scan(&value) != nil {
		return w
	}
	rawjson.ArrayItems(obj(source.ObjectOf(value)).Raw("allComposers"), func(item []byte) {
		if id := obj(source.ObjectOf(item)).Str("composerId"); id != "" {
			w.Composers = append(w.Composers, id)
		}
	})
	return w
}

// workspaceFolder is the folder a workspace.json names: its "folder", a
// file: URI (a remote one's path), else its "workspace" (a
// .code-workspace file's).
func workspaceFolder(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "workspace.json"))
	if err != nil {
		return ""
	}
	var w struct{ Folder, Workspace string }
	if json.Unmarshal(data, &w) != nil {
		return ""
	}
	uri := w.Folder
	if uri == "" {
		uri = w.Workspace
	}
	return uriPath(uri)
}

// uriPath is the path of a file: or vscode-remote: URI, unescaped; ""
// for another.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Path == "" || u.Scheme != "file" && u.Scheme != "vscode-remote" {
		return ""
	}
	p := u.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' { // file:///c:/Users/...
		p = p[1:]
	}
	return strings.TrimSuffix(p, "/")
}
