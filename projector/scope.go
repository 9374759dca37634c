package projector

import (
	"path/filepath"
	"strings"
)

// scope limits a catch-up to the folders a watcher saw change. Without
// one (nil), a pass stats every file of every folder: about five stat(2)
// calls a folder, 25ms at 1,000 folders on the machines we measure on. A
// watcher knows from its events which folders changed, so its passes, and
// the readers that sync with it (package fresh), need not look at the rest.
//
// A scoped pass loads the state of the tapes it visits alone
// (scopedTapes): those in scope, whose anchors folder it lists, so that
// new folders are found and deleted ones dropped however their events
// arrived, and those with folders whose changes make no event in the
// folder: symlinked files, a file or anchor.json it could not read (see
// state.volatile). A new tape is in scope by the event of its folder made
// in tapes/, and a tape removed by the event of its removal. A full pass
// (the watcher's first, its reconciliations, any after lost events)
// visits every tape.
type scope struct {
	// tapes maps a tape to the folders to walk; a nil set means all of
	// the tape's folders.
	tapes map[string]map[string]bool
}

func newScope() *scope { return &scope{tapes: map[string]map[string]bool{}} }

// empty reports whether nothing changed.
func (s *scope) empty() bool { return len(s.tapes) == 0 }

// add records a change at rel, a path relative to the workspace folder,
// as an fsnotify event names it.
func (s *scope) add(rel string) {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) < 2 || parts[0] != "tapes" {
		return // the tapes folder itself: every pass lists it anyway
	}
	tape := parts[1]
	if inFork(parts) {
		return // forks are not indexed until merged, and a merge writes to anchors/
	}
	if len(parts) < 4 || parts[2] != "anchors" {
		s.tapes[tape] = nil // the tape's folder, or its anchors folder: walk all of it
		return
	}
	folders, seen := s.tapes[tape]
	if seen && folders == nil {
		return // all of it already
	}
	if folders == nil {
		folders = map[string]bool{}
		s.tapes[tape] = folders
	}
	folders[parts[3]] = true
}

// wantsTape reports whether a pass in scope s visits a tape: a full pass
// every tape; a scoped one those in scope and those with volatile
// folders. A new tape is in scope by its own event (its folder made in
// tapes/), and the state of the others is not loaded (scopedTapes).
func (s *scope) wantsTape(st *state, tape string) bool {
	if s == nil || st.volatileTapes[tape] {
		return true
	}
	_, ok := s.tapes[tape]
	return ok
}

// wantsFolder reports whether a pass in scope s walks a folder.
func (s *scope) wantsFolder(st *state, key fileKey) bool {
	if s == nil {
		return true
	}
	if _, known := st.folders[key]; !known || st.volatile[key] {
		return true
	}
	folders, ok := s.tapes[key.tape]
	return ok && (folders == nil || folders[key.folder])
}

// inFork reports whether a path, split at '/', is a tape's forks folder
// or below it: tapes/<tape>/forks/... Nothing there is indexed, so the
// watcher neither watches those folders nor passes for their events.
func inFork(parts []string) bool {
	return len(parts) >= 3 && parts[0] == "tapes" && parts[2] == "forks"
}

// InForkPath reports whether rel, a path relative to the workspace
// folder, is a tape's forks folder or below it: nothing there is indexed,
// so a watcher (package fresh) neither watches it nor passes for its
// events.
func InForkPath(rel string) bool { return inFork(strings.Split(filepath.ToSlash(rel), "/")) }
