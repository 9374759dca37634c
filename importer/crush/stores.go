package crush

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// dataFolder is the name of the folder Crush keeps a project's database
// in, by default (config.defaultDataDirectory), and dbName the
// database's name in it.
const (
	dataFolder = ".crush"
	dbName     = "crush.db"
)

// Stores lists the databases at root: root itself when it is a database
// file (a .db file the user names); else, in a folder, its crush.db (a
// data folder named by hand, or --data-dir's), the crush.db of every
// project its projects.json names (the global data folder: where
// DefaultDirs points), and every .crush/crush.db under it, walked as
// Crush's `crush stats` walks a folder (skipping .git and node_modules),
// for the projects of Crush before 0.25, which listed none. Each is
// named once, sorted.
func (Source) Stores(root string) []string {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if strings.HasSuffix(root, ".db") {
			return []string{root}
		}
		return nil
	}
	seen := map[string]bool{}
	var dbs []string
	add := func(path string) {
		path = filepath.Clean(path)
		if !seen[path] && isFile(path) {
			seen[path] = true
			dbs = append(dbs, path)
		}
	}
	add(filepath.Join(root, dbName))
	for _, dir := range listedDataFolders(root) {
		add(filepath.Join(dir, dbName))
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == root {
			return nil // unreadable: skipped, as Crush skips it
		}
		switch d.Name() {
		case ".git", "node_modules":
			return filepath.SkipDir
		case dataFolder:
			add(filepath.Join(path, dbName))
			return filepath.SkipDir
		}
		return nil
	})
	slices.Sort(dbs)
	return dbs
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// listedDataFolders are the data folders the projects.json in dir names
// (Crush's projects.Register): {"projects": [{"path", "data_dir",
// "last_accessed"}]}. A data_dir that is not absolute is the project's
// path's. None when there is no such file, or it is not that JSON.
func listedDataFolders(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "projects.json"))
	if err != nil {
		return nil
	}
	var list struct {
		Projects []struct {
			Path    string `json:"path"`
			DataDir string `json:"data_dir"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &list) != nil {
		return nil
	}
	var out []string
	for _, p := range list.Projects {
		d := p.DataDir
		if d == "" {
			d = dataFolder
		}
		if !filepath.IsAbs(d) {
			if p.Path == "" {
				continue
			}
			d = filepath.Join(p.Path, d)
		}
		out = append(out, d)
	}
	return out
}

// projectOf is the project folder of the database at db: the folder that
// holds its data folder when that is named .crush, as Crush makes it;
// else "" (a data folder put elsewhere, which the database does not
// name its project in).
func projectOf(db string) string {
	dir := filepath.Dir(db)
	if filepath.Base(dir) != dataFolder {
		return ""
	}
	return filepath.Dir(dir)
}
