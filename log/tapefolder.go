package log

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tape-dev/tape/internal/wording"
)

// A tape is a folder in the tapes folder: a symlink there is not one, and
// neither is a folder whose name is no tape name. Readers and listings
// skip both; these say so, and what to do.

// ErrTapeSymlink is wrapped by the error of reading or writing a tape
// whose folder is a symlink. Tape reads no tape through one: it could lead
// out of the workspace (invariant 5), or to another tape, whose files
// would then be read, and written, under two names.
var ErrTapeSymlink = errors.New("log: tape folder is a symlink")

// notSymlink fails with ErrTapeSymlink if the tape's folder is a symlink.
func (t *Tape) notSymlink() error {
	fi, err := t.ws.root.Lstat(t.dir)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // a missing folder is a tape not made yet; other errors surface where it is used
	}
	target, fix := t.ws.tapeLinkFix(t.dir)
	return fmt.Errorf("%w: %s points to %s, and tape reads no tape through a symlink; %s", ErrTapeSymlink, t.ws.Abs(t.dir), target, fix)
}

// UnreadTapeFolders reports the names in the tapes folder that readers and
// listings skip although they may hold a tape: symlinks, and folders whose
// names are no tape names (ValidateTapeName), each as a CheckFolderName
// problem with its fix. A command that lists tapes can warn of them; tape
// doctor reports them.
//
// It lists the folder as OpenTapes opens it, with the types the listing
// gives: a listing through the root stats every name (10,000 lstat(2)
// calls at 10,000 tapes, 28–38 ms of every `tape tapes`).
func (w *Workspace) UnreadTapeFolders() ([]Problem, error) {
	d, err := w.OpenTapes()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	dirents, err := d.list()
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, e := range dirents {
		if p, ok := w.unreadTape(e); ok {
			problems = append(problems, p)
		}
	}
	// Only the few problems are put in order, not every name listed.
	slices.SortFunc(problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return problems, nil
}

// unreadTape is the problem with d, a name in the tapes folder that is
// not a temporary one, if it may hold a tape that is not read.
func (w *Workspace) unreadTape(d fs.DirEntry) (Problem, bool) {
	rel := path.Join(tapesDir, d.Name())
	p := Problem{Check: CheckFolderName, Path: rel}
	switch {
	case hasDotPrefix(d.Name()):
		return p, false
	case d.Type()&fs.ModeSymlink != 0:
		target, fix := w.tapeLinkFix(rel)
		p.Problem, p.Fix = "a symlink to "+target+"; tape reads no tape through a symlink, and ignores it", fix
	case !d.IsDir():
		return p, false
	case ValidateTapeName(d.Name()) != nil:
		why, _ := tapeNameProblem(d.Name())
		p.Problem = "not a tape name (it " + why + "); tape ignores it"
		p.Fix = "rename it to a valid tape name, or move it out of .tape/tapes"
	default:
		return p, false
	}
	return p, true
}

// tapeLinkFix says where the symlink rel, in the tapes folder, points,
// and how to make a tape of it: the folder it points to moved in its
// place, or the link removed when it points to a tape, which is read under
// its own name, or to nothing.
func (w *Workspace) tapeLinkFix(rel string) (target, fix string) {
	link := w.Abs(rel)
	target, err := os.Readlink(link)
	if err != nil {
		return "?", "remove it (rm " + wording.ShellQuote(link) + ") and put the tape's folder itself there"
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(link), abs)
	}
	abs = filepath.Clean(abs)
	fi, err := os.Lstat(abs)
	switch {
	case err != nil || !fi.IsDir():
		return target, "it leads to no folder: remove it (rm " + wording.ShellQuote(link) + ")"
	case filepath.Dir(abs) == w.Abs(tapesDir) && ValidateTapeName(filepath.Base(abs)) == nil:
		return target, "it is tape " + filepath.Base(abs) + ", which is read under that name: remove the link (rm " + wording.ShellQuote(link) + ")"
	}
	return target, "replace the link with the folder it points to: rm " + wording.ShellQuote(link) + " && mv " + wording.ShellQuote(abs) + " " + wording.ShellQuote(link)
}
