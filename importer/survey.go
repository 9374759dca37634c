package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

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
	Dirs        []string `json:"dirs"`        // its default folders, whether or not they exist
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
