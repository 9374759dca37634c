package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Before 1.0, OpenCode kept a row a JSON file, under <data>/storage:
// session/<project id>/<session id>.json (the session's info),
// message/<session id>/<message id>.json and part/<message id>/<part
// id>.json (each the data the database's rows now hold). Its ids grow
// with time, so a folder's files sorted by name are in the order they
// were made. The export reads them as rows (legacyRows) and writes the
// same mirror lines as of a database; a session's cursor is its last
// message's id.

// isLegacyStorage reports whether dir is such a storage folder.
func isLegacyStorage(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "session"))
	if err != nil || !fi.IsDir() {
		return false
	}
	fi, err = os.Stat(filepath.Join(dir, "message"))
	return err == nil && fi.IsDir()
}

// legacySessions lists the session files of a storage folder.
func legacySessions(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "session", "*", "*.json"))
	slices.Sort(files)
	return files, err
}

// exportLegacy exports a storage folder's sessions.
func exportLegacy(ctx context.Context, dir, mirror string, st *mirrorState, now, settle int64) error {
	files, err := legacySessions(dir)
	if err != nil {
		return err
	}
	r := legacyRows{dir: dir}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := readLegacySession(f, dir)
		if err != nil {
			return err
		}
		if err := exportSession(ctx, r, mirror, st, s, now, settle); err != nil {
			return err
		}
	}
	return nil
}

// readLegacySession reads a session's info file: {"id", "title",
// "directory", "parentID", "projectID", "version", "time": {"created",
// "updated"}}. A file that is not such JSON is a session named by its
// file, whose text is kept as the row's title is not: it is an error.
func readLegacySession(path, storage string) (sessionRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return sessionRow{}, err
	}
	var info struct {
		ID, Title, Directory, ParentID, ProjectID, Version string
		Time                                               struct{ Created, Updated int64 }
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return sessionRow{}, fmt.Errorf("%s: not a session's info (%v)", path, err)
	}
	if info.ID == "" {
		info.ID = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	s := sessionRow{ID: info.ID, ProjectID: info.ProjectID, ParentID: info.ParentID, Title: info.Title, Directory: info.Directory,
		Version: info.Version, TimeCreated: info.Time.Created, TimeUpdated: info.Time.Updated, DB: storage}
	if fi, err := os.Stat(path); err == nil {
		s.TimeUpdated = max(s.TimeUpdated, fi.ModTime().UnixMilli())
	}
	return s, nil
}

// legacyRows reads a storage folder's messages and parts as rows.
type legacyRows struct{ dir string }

func (r legacyRows) messagesAfter(ctx context.Context, session string, c *cursor) ([]row, error) {
	rows, err := r.files(filepath.Join(r.dir, "message", session), "")
	if err != nil {
		return nil, err
	}
	i := 0
	for i < len(rows) && rows[i].ID <= c.ID {
		i++
	}
	return rows[i:], nil
}

func (r legacyRows) parts(ctx context.Context, message string) ([]row, error) {
	return r.files(filepath.Join(r.dir, "part", message), message)
}

// files reads the rows of the JSON files in dir, sorted by name: each
// row's id is its file's name, its times the data's time.created (else
// time.start) and the file's modification time.
func (legacyRows) files(dir, parent string) ([]row, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a message of no parts yet
	}
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		r := row{ID: strings.TrimSuffix(name, ".json"), Parent: parent, Data: data}
		var t struct {
			Time struct{ Created, Start int64 }
		}
		if json.Unmarshal(data, &t) == nil {
			r.Created = max(t.Time.Created, t.Time.Start)
		}
		if fi, err := e.Info(); err == nil {
			r.Updated = fi.ModTime().UnixMilli()
		}
		rows = append(rows, r)
	}
	return rows, nil // ReadDir sorts by name
}
