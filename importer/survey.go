package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// Found is the default folders of src that exist on this machine: where
// `tape import` with no source, and `tape watch --follow all`, look. A
// folder that exists but cannot be looked at is an error.
func Found(src source.Source) ([]string, error) {
	return FoundIn(src, tapelog.Config{})
}

// FoundIn is Found for a workspace of config cfg (DirsIn).
func FoundIn(src source.Source, cfg tapelog.Config) ([]string, error) {
	var found []string
	for _, d := range DirsIn(src, cfg) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			found = append(found, d)
		case err == nil, errors.Is(err, fs.ErrNotExist):
		default:
			return found, fmt.Errorf("open %s: %w", d, unwrapPath(err))
		}
	}
	return found, nil
}

// Survey is what `tape sources` says of a source.
type Survey struct {
	Source      string   `json:"source"`
	Agent       string   `json:"agent"`
	Found       bool     `json:"found"`       // one of its default folders exists
	Dirs        []string `json:"dirs"`        // its default folders and config.json's roots for it, whether or not they exist
	Present     []string `json:"present"`     // those of them that exist
	Transcripts int      `json:"transcripts"` // transcripts in those that exist
	Imported    int      `json:"imported"`    // of those, the ones the workspace's imports have read (0 without a workspace)
}

// SurveyOf looks for src's transcripts in its default folders, and counts
// those that ws's imports have read (ws may be nil). Folders that cannot
// be read are told to warn and skipped, as an import skips them.
func SurveyOf(ws *tapelog.Workspace, src source.Source, warn func(error)) (Survey, error) {
	var cfg tapelog.Config
	if ws != nil {
		cfg = ws.Config()
	}
	s := Survey{Source: src.Name(), Agent: src.Agent(), Dirs: DirsIn(src, cfg)}
	found, err := FoundIn(src, cfg)
	if err != nil {
		return s, err
	}
	s.Found, s.Present = len(found) > 0, found
	if st, ok := src.(source.Store); ok {
		return surveyStore(ws, st, s, warn)
	}
	im := &Importer{src: src, Warn: warn}
	files, err := im.find(found)
	if err != nil {
		return s, err
	}
	s.Transcripts = len(files)
	if ws == nil {
		return s, nil
	}
	cps, err := loadCheckpoints(ws, src)
	if err != nil {
		return s, err
	}
	for _, f := range files {
		if _, ok := cps.Files[f]; ok {
			s.Imported++
		}
	}
	return s, nil
}

// surveyStore counts the sessions in a database source's databases, and
// of them, those whose mirror files the workspace's imports have read. A
// folder that holds no database is counted for its transcripts, as an
// import reads it (Goose's folder before its database).
func surveyStore(ws *tapelog.Workspace, st source.Store, s Survey, warn func(error)) (Survey, error) {
	var dbs, plain []string
	for _, d := range s.Present {
		if found := st.Stores(d); len(found) > 0 {
			dbs = append(dbs, found...)
		} else {
			plain = append(plain, d)
		}
	}
	var files []string
	if len(plain) > 0 {
		var err error
		if files, err = (&Importer{src: st, Warn: warn}).find(plain); err != nil {
			return s, err
		}
		s.Transcripts += len(files)
	}
	for _, db := range dbs {
		n, err := st.Sessions(context.Background(), db)
		if err != nil {
			warn(fmt.Errorf("%s: %w; skipped", db, err))
			continue
		}
		s.Transcripts += n
	}
	if ws == nil {
		return s, nil
	}
	cps, err := loadCheckpoints(ws, st)
	if err != nil {
		return s, err
	}
	for _, f := range files {
		if _, ok := cps.Files[f]; ok {
			s.Imported++
		}
	}
	for _, db := range dbs {
		dir := ws.Abs(mirrorDir(st, db)) + string(filepath.Separator)
		for f := range cps.Files {
			if strings.HasPrefix(f, dir) {
				s.Imported++
			}
		}
	}
	return s, nil
}
