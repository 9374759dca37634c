package projector

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// The producer side of a pass: it walks the files, compares them with the
// checkpoints, reads what is new and sends the changes, in order, to the
// goroutine that writes them (apply.go). Parsing and text extraction thus
// run beside SQLite, on the other core.

// op is one change to the index. Exactly one field group is set.
type op struct {
	kind    opKind
	key     fileKey       // the file or folder (name "") or tape (folder "") it is about
	anchor  anchorRow     // opAnchor
	entries []entryRow    // opEntries
	listing folderListing // opFolderListed
	sig     string        // opFolderSig
	bad     badLine       // opBadLine
	cp      checkpoint    // opCheckpoint
	tapeAt  *tapeListing  // opTapeListed; nil: forget the tape's listing
}

type opKind int

const (
	opDropTape     opKind = iota // remove everything of key.tape
	opDropFolder                 // remove everything of key.tape/key.folder
	opAnchor                     // replace the anchor of a folder and its entry
	opDropFile                   // remove a file's rows and checkpoint
	opResetFile                  // remove a file's rows; it is read again from the start
	opEntries                    // insert entries of key's file
	opBadLine                    // record a bad line of key's file
	opCheckpoint                 // save how far key's file was read
	opFolderListed               // save when key's folder was listed, and its identity then
	opFolderSig                  // save the signature of key's folder's files
	opUnlisted                   // record that key's folder (key.folder "": the tape's anchors folder) cannot be listed (bad.reason)
	opListed                     // forget that it could not be
	opTapeListed                 // save what key's tape's anchors folder held when listed, and its identity then
)

type fileKey struct{ tape, folder, name string }

type checkpoint struct {
	id       int64 // files.id; 0 for a file not in the index yet
	dev, ino uint64
	size     int64
	mtimeNS  int64
	pos      tapelog.FilePos
}

// folderListing is a folder's identity when it was last listed in full.
// Its mtime says when its entries last changed (see racyWindow); its
// ctime changes with them and with its mode too: a folder that can no
// longer be listed has no rows in a rebuild.
type folderListing struct {
	mtimeNS, ctimeNS, listedNS int64
	ino                        uint64
}

// tapeListing is a tape's anchors folder as it was last listed in full:
// its identity then, and the names of the anchor folders it held, in tape
// order, joined by "/", which no name holds. While the folder keeps that
// identity, and the listing was made well after its mtime, the names are
// still what a listing would give: a pass takes them from here instead of
// listing a thousand folders again (see anchorFolders).
type tapeListing struct {
	listing folderListing
	folders string
}

// holds reports whether the listing made at last still describes a folder
// whose identity is now now: the same, and last is settled.
func (last folderListing) holds(now folderListing) bool {
	return now.mtimeNS == last.mtimeNS && now.ctimeNS == last.ctimeNS && now.ino == last.ino && last.settled()
}

// settled reports whether a listing was made long enough after the
// folder's mtime that a change within the same timestamp tick would have
// changed the mtime again (racyWindow). A listing with listedNS 0 is
// never settled.
func (l folderListing) settled() bool { return l.mtimeNS < l.listedNS-int64(racyWindow) }

// folderMark is what the index holds of a folder that a pass compares
// with the files: the identities of the folder and its anchor.json, and
// the signature of its files. It is a sixth of an anchorRow, and a
// no-change catch-up holds one per folder.
type folderMark struct {
	listing            folderListing
	sig                string
	seq, size, mtimeNS int64
	ino                uint64
	// A mark read from a state record holds, for its signature, the names
	// of the files it lists and its sum (summed set) instead of its text:
	// 16 bytes where the text took 240, so that a reader loads a record a
	// third of the size. Only a dry walk uses a record's state.
	names  []string
	sum    sigSum
	summed bool
}

// sigSum is the first half of the SHA-256 of a folder's signature.
type sigSum [16]byte

func sumSig(sig []byte) sigSum {
	h := sha256.Sum256(sig)
	return sigSum(h[:16])
}

// hasSig reports whether the folder had files, by its signature.
func (m folderMark) hasSig() bool { return m.sig != "" || m.summed }

// sameSig reports whether sig, the signature of the folder's files now,
// is the one the mark holds.
func (m folderMark) sameSig(sig []byte) bool {
	if m.summed {
		return sumSig(sig) == m.sum
	}
	return string(sig) == m.sig
}

// fileNames returns the names of the files the mark's signature lists,
// sorted, in a slice the caller must not change; ok is false if this
// version cannot read the signature: then the folder is listed and
// compared with its checkpoints (statKnown), because trusting it would
// list no files and drop every row of the folder. A signature is parsed
// per folder, on the goroutines that stat, not for every folder as the
// state loads: that was a third of a no-change catch-up's serial work.
func (m folderMark) fileNames() (names []string, ok bool) {
	if m.summed {
		return m.names, true
	}
	if names, ok = sigNames(m.sig); ok {
		slices.Sort(names) // in the files' order as listed
	}
	return names, ok
}

type anchorRow struct {
	listing           folderListing
	sig               string // the signature of its files (see signature)
	replace           bool   // the folder is in the index: remove its old anchor entry first
	seq               int64
	name, id, payload string
	meta, date        *string
	size, mtimeNS     int64
	ino               uint64
	text              string // the anchor entry's search text, tokenized
	effTime           int64
	badReason         string // anchor.json could not be read
	badLine           int
}

type entryRow struct {
	id, kind string
	seq      int64
	line     int
	offset   int64
	length   int
	date     *string
	effTime  int64
	timeNS   *int64 // overrides effTime for time filters (anchor entries)
	text     string // tokenized search text
	facts    views.Facts
}

type badLine struct {
	line   int
	offset int64
	reason string
}

// state is the index's checkpoints as a pass starts.
type state struct {
	tapes   map[string]bool
	folders map[fileKey]folderMark // key.name == ""
	files   map[fileKey]checkpoint
	// What is recorded as a bad line 0, with the reason: files that could
	// not be opened, and folders (name "") and tapes (folder "" too) that
	// could not be listed, of which the index holds nothing (see
	// walker.unlisted).
	unreadable map[fileKey]string
	// What each tape's anchors folder held when it was last listed in full.
	tapeListings map[string]tapeListing

	// Built by index(): the folders of each tape, so that finding what was
	// deleted costs what the tape holds, not the whole index; and, for the
	// folders that hold files recorded as unreadable, their names.
	foldersOf       map[string][]fileKey        // tape -> its folders
	unreadableFiles map[fileKey]map[string]bool // folder (name "") -> its unreadable files

	// Folders whose changes may make no fsnotify event in them, which a
	// scoped pass walks all the same, and the tapes that hold them.
	volatile      map[fileKey]bool
	volatileTapes map[string]bool
}

// index fills foldersOf and the volatile sets.
func (st *state) index() {
	st.foldersOf = make(map[string][]fileKey)
	st.volatile, st.volatileTapes = map[fileKey]bool{}, map[string]bool{}
	markVolatile := func(k fileKey) {
		st.volatile[k], st.volatileTapes[k.tape] = true, true
	}
	st.unreadableFiles = map[fileKey]map[string]bool{}
	for k := range st.unreadable { // it may become readable by a change elsewhere
		folder := fileKey{tape: k.tape, folder: k.folder}
		markVolatile(folder)
		if k.name != "" {
			if st.unreadableFiles[folder] == nil {
				st.unreadableFiles[folder] = map[string]bool{}
			}
			st.unreadableFiles[folder][k.name] = true
		}
	}
	for k, r := range st.folders {
		// listedNS 0: it holds symlinks, whose targets change elsewhere.
		if r.listing.listedNS == 0 || r.size == unreadableAnchor {
			markVolatile(k)
		}
		st.foldersOf[k.tape] = append(st.foldersOf[k.tape], k)
	}
}

// A folder's signature lists its tape files as a pass last left them, one
// line each: "\"name\"\tsize\tmtime\tctime\tinode\tdevice" (the name
// quoted as in Go); "\"name\"\t!\tsize\tmtime\tctime\tinode\tdevice" for a
// file that could be stat'ed but not read, and "\"name\"\t!" for one that
// could not even be stat'ed. If a folder's files have the same signature
// now, none of them changed, and the catch-up skips them without reading
// their checkpoints. The ctime is there for a chmod: a file that can no
// longer be read has no rows in a rebuild, and so must not in a catch-up
// (walkFile tries to open it); one that can again is read.
func signature(files []tapelog.FileInfo, unreadable map[string]bool) string {
	return string(appendSignature(make([]byte, 0, 64*len(files)), files, unreadable))
}

// appendSignature appends the signature of files to b: a catch-up with
// nothing to do computes one per folder, and compares it without
// allocating (folderState.sigSame).
func appendSignature(b []byte, files []tapelog.FileInfo, unreadable map[string]bool) []byte {
	for _, fi := range files {
		b = appendQuoted(b, fi.Name) // names may hold tabs and newlines
		if fi.Err != nil {
			b = append(b, "\t!\n"...)
			continue
		}
		if unreadable[fi.Name] {
			b = append(b, "\t!"...)
		}
		b = append(b, '\t')
		b = strconv.AppendInt(b, fi.Size, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, fi.ModTime.UnixNano(), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, fi.ChangeNS, 10)
		b = append(b, '\t')
		b = strconv.AppendUint(b, fi.Ino, 10)
		b = append(b, '\t')
		b = strconv.AppendUint(b, fi.Dev, 10)
		b = append(b, '\n')
	}
	return b
}

// appendQuoted is strconv.AppendQuote, with a fast path for a name of
// printable ASCII without a quote or a backslash, which it quotes as is:
// quoting every name rune by rune was a quarter of what the prefetch does
// besides its stats.
func appendQuoted(b []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, name)
		}
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"')
}

// sigNames returns the names of the files a signature lists; ok is false
// if a line of it is not in the form signature writes.
func sigNames(sig string) (names []string, ok bool) {
	for line := range strings.Lines(sig) {
		quoted, _, found := strings.Cut(line, "\t")
		if !found {
			return nil, false
		}
		if len(quoted) >= 2 && quoted[0] == '"' && quoted[len(quoted)-1] == '"' && !strings.ContainsAny(quoted[1:len(quoted)-1], `"\\`) {
			names = append(names, quoted[1:len(quoted)-1]) // the usual name, with nothing to unquote
			continue
		}
		name, err := strconv.Unquote(quoted)
		if err != nil {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// sigCtimes returns the ctime a signature gives each file it lists with
// its stat (not those it lists as unreadable); nil if it cannot read it.
func sigCtimes(sig string) map[string]int64 {
	names, ok := sigNames(sig)
	if !ok {
		return nil
	}
	ctimes := make(map[string]int64, len(names))
	i := 0
	for line := range strings.Lines(sig) {
		// "name"\tsize\tmtime\tctime\tinode\tdevice
		fields := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if n := len(fields); n >= 6 {
			if c, err := strconv.ParseInt(fields[n-3], 10, 64); err == nil {
				ctimes[names[i]] = c
			}
		}
		i++
	}
	return ctimes
}

// Sort keys for an entry's effective time: anchor entries first in their
// folder, then lines before any date, then by time.
const (
	anchorEffTime = math.MinInt64
	noDateEffTime = math.MinInt64 + 1
)

// The times an effective time can hold: nanoseconds since 1970 in an
// int64 run from 1677 to 2262; a date outside is taken as the nearest end,
// so that a checkpoint's time read back gives the same sort keys.
var (
	minEffTime = time.Unix(0, noDateEffTime+1)
	maxEffTime = time.Unix(0, math.MaxInt64)
)

func effTime(t time.Time) int64 {
	switch {
	case t.IsZero():
		return noDateEffTime
	case t.Before(minEffTime):
		return noDateEffTime + 1
	case t.After(maxEffTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// entriesPerOp bounds the entries one op carries, so memory does not grow
// with a file.
const entriesPerOp = 512

// walker compares the files with the state and sends ops.
type walker struct {
	ws    *tapelog.Workspace
	st    state
	scope *scope // nil: every folder
	out   chan<- op
	stats *Stats
	tx    sqlTx // for the checkpoints of the folders that changed
	// dry: only find out whether anything changed (unchangedSince). The
	// first op it would send, or a folder it would read, ends the walk
	// with errChanged; it walks each tape's newest folders first, where
	// agents append.
	dry bool
}

func (w *walker) send(ctx context.Context, o op) error {
	if w.dry {
		return errChanged
	}
	select {
	case w.out <- o:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *walker) walk(ctx context.Context) error {
	names, err := w.ws.Tapes()
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		seen[name] = true
		if !w.scope.wantsTape(&w.st, name) {
			continue
		}
		if err := w.walkTape(ctx, name); err != nil {
			return err
		}
	}
	for name := range w.st.tapes {
		if !seen[name] {
			if err := w.send(ctx, op{kind: opDropTape, key: fileKey{tape: name}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// exhausted reports whether err says the process ran out of something
// (descriptors, memory) rather than that the tape cannot be read: such a
// pass fails, to be run again, instead of dropping the tape's rows.
func exhausted(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOMEM)
}

// listTape lists a tape's anchor folders and returns how to stat their
// files: relative to the open anchors folder (AnchorsDir), or by path for
// a tape that has none; the anchors folder's listing to keep (nil for
// none, see anchorFolders); and what closes the folder, once nothing
// stats through it any more (its descriptor's number may be reused).
func (w *walker) listTape(t *tapelog.Tape) (statFunc, []tapelog.Folder, *tapeListing, func(), error) {
	dir, err := t.OpenAnchors()
	switch {
	case errors.Is(err, fs.ErrNotExist): // a tape with no anchors folder has no anchor folders
		w.stats.TapesListed++
		return t.QuickStat, nil, nil, func() {}, nil
	case err != nil: // the caller tells running out of descriptors from a tape it cannot read
		return nil, nil, nil, func() {}, err
	}
	folders, listing, err := w.anchorFolders(t.Name(), dir)
	return dir.Stat, folders, listing, func() { dir.Close() }, err
}

// anchorFolders lists the anchor folders of a tape's open anchors folder;
// or, if the folder has the identity it had when last listed, well after
// its mtime, takes them from that listing: a catch-up with nothing to do
// spent a millisecond listing a thousand folders before it could stat the
// first, and another parsing and sorting their names.
func (w *walker) anchorFolders(tape string, dir *tapelog.AnchorsDir) ([]tapelog.Folder, *tapeListing, error) {
	id, err := dir.Identity()
	if err != nil {
		return nil, nil, err
	}
	now := folderListing{mtimeNS: id.ModTime.UnixNano(), ctimeNS: id.ChangeNS, ino: id.Ino}
	if last, ok := w.st.tapeListings[tape]; ok && last.listing.holds(now) {
		if folders, ok := splitFolders(last.folders); ok {
			return folders, &last, nil
		}
	}
	w.stats.TapesListed++
	now.listedNS = time.Now().UnixNano()
	folders, links, err := dir.List()
	if err != nil {
		return nil, nil, err
	}
	// A listing the next pass could not trust is not kept: a symlink's
	// target changes without the folder, and a folder changed within
	// racyWindow may change again unseen. Kept, it would be written again
	// by every pass until then, each a commit though nothing changed.
	if links || !now.settled() {
		return folders, nil, nil
	}
	return folders, &tapeListing{listing: now, folders: joinFolders(folders)}, nil
}

// joinFolders joins the names of folders with "/", for a tapeListing.
func joinFolders(folders []tapelog.Folder) string {
	var b strings.Builder
	for i, f := range folders {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(f.Name)
	}
	return b.String()
}

// splitFolders reads the folders a tapeListing names, in its order; ok is
// false if a name is not an anchor folder's.
func splitFolders(names string) (folders []tapelog.Folder, ok bool) {
	if names == "" {
		return nil, true
	}
	folders = make([]tapelog.Folder, 0, strings.Count(names, "/")+1)
	for name := range strings.SplitSeq(names, "/") {
		seq, _, ok := tapelog.ParseFolderName(name)
		if !ok {
			return nil, false
		}
		folders = append(folders, tapelog.Folder{Seq: seq, Name: name})
	}
	return folders, true
}

func (w *walker) walkTape(ctx context.Context, name string) error {
	t, err := w.ws.Tape(name)
	if err != nil {
		return err
	}
	defer t.Close()
	stat, folders, listing, closeDir, err := w.listTape(t)
	defer closeDir()
	tapeKey := fileKey{tape: name}
	switch {
	case err != nil && (ctx.Err() != nil || exhausted(err)):
		return err
	case err != nil:
		// One tape that cannot be read (a symlink out of the workspace, a
		// folder without permissions) must not stop every command of the
		// workspace: it is recorded, as a file that cannot be read is, and
		// has no rows, as in a rebuild, until it can be read again.
		if err := w.unlisted(ctx, tapeKey, err); err != nil {
			return err
		}
		folders, listing = nil, nil
	default:
		if err := w.listed(ctx, tapeKey); err != nil {
			return err
		}
	}
	if err := w.keepTapeListing(ctx, name, listing); err != nil {
		return err
	}
	seen := make(map[string]bool, len(folders))
	for _, f := range folders {
		seen[f.Name] = true
	}
	if w.scope != nil {
		folders = slices.DeleteFunc(folders, func(f tapelog.Folder) bool {
			return !w.scope.wantsFolder(&w.st, fileKey{tape: name, folder: f.Name})
		})
	}
	if w.dry {
		folders = slices.Clone(folders)
		slices.Reverse(folders)
	}
	listings, stop := w.prefetch(ctx, t, folders, stat)
	defer stop() // before closeDir
	var chunk []folderState
	for i, f := range folders {
		if i%prefetchChunk == 0 {
			select {
			case chunk = <-listings[i/prefetchChunk]:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		l := chunk[i%prefetchChunk]
		if errors.Is(l.err, fs.ErrNotExist) {
			continue // deleted while we looked: the next pass drops its rows
		}
		key := fileKey{tape: name, folder: f.Name}
		if l.err != nil && (ctx.Err() != nil || exhausted(l.err)) {
			return l.err
		}
		if l.err != nil { // one folder that cannot be read, as one tape above
			if err := w.dropUnlisted(ctx, key, l.err); err != nil {
				return err
			}
			continue
		}
		if err := w.listed(ctx, key); err != nil {
			return err
		}
		if err := w.walkFolder(ctx, t, f, l); err != nil {
			return err
		}
	}
	for _, key := range w.st.foldersOf[name] {
		if !seen[key.folder] {
			if err := w.send(ctx, op{kind: opDropFolder, key: key}); err != nil {
				return err
			}
		}
	}
	for _, key := range slices.SortedFunc(maps.Keys(w.st.unreadable), compareKeys) {
		if key.tape == name && key.folder != "" && key.name == "" && !seen[key.folder] {
			if err := w.listed(ctx, key); err != nil { // gone
				return err
			}
		}
	}
	return nil
}

// keepTapeListing saves a tape's listing if it is not the one the index
// holds, and forgets the one it holds when there is none to keep.
func (w *walker) keepTapeListing(ctx context.Context, tape string, listing *tapeListing) error {
	last, known := w.st.tapeListings[tape]
	if listing == nil && !known || listing != nil && known && *listing == last {
		return nil
	}
	return w.send(ctx, op{kind: opTapeListed, key: fileKey{tape: tape}, tapeAt: listing})
}

// dropUnlisted drops the rows of a folder that cannot be listed and
// records why.
func (w *walker) dropUnlisted(ctx context.Context, key fileKey, err error) error {
	if _, known := w.st.folders[key]; known {
		if err := w.send(ctx, op{kind: opDropFolder, key: key}); err != nil {
			return err
		}
	}
	return w.unlisted(ctx, key, err)
}

// unlisted records that a tape's anchors folder (key.folder "") or an
// anchor folder cannot be listed, unless the index says so already, for
// the same reason: a pass that finds nothing new writes nothing, or every
// reader would see the index change under it (CatchUpBeside) and a watcher
// would commit on every pass.
func (w *walker) unlisted(ctx context.Context, key fileKey, err error) error {
	reason := err.Error()
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		reason = pe.Err.Error() // the path is the bad line's own
	}
	reason = "cannot list: " + reason
	if old, ok := w.st.unreadable[key]; ok && old == reason {
		return nil
	}
	return w.send(ctx, op{kind: opUnlisted, key: key, bad: badLine{reason: reason}})
}

// listed forgets that a tape or folder could not be listed, if the index
// said so.
func (w *walker) listed(ctx context.Context, key fileKey) error {
	if _, ok := w.st.unreadable[key]; !ok {
		return nil
	}
	return w.send(ctx, op{kind: opListed, key: key})
}

func compareKeys(a, b fileKey) int {
	return cmp.Or(strings.Compare(a.tape, b.tape), strings.Compare(a.folder, b.folder), strings.Compare(a.name, b.name))
}

func (w *walker) walkFolder(ctx context.Context, t *tapelog.Tape, f tapelog.Folder, l folderState) error {
	key := fileKey{tape: t.Name(), folder: f.Name}
	old, known := w.st.folders[key]
	anchorFile, files, listing := l.anchor, l.files, l.listing
	w.stats.Folders++
	if l.listed {
		w.stats.Listed++
	}
	size, mtime, ino := int64(-1), int64(0), uint64(0)
	if anchorFile != nil {
		size, mtime, ino = anchorFile.Size, anchorFile.ModTime.UnixNano(), anchorFile.Ino
	}
	if !known || old.seq != f.Seq || old.size != size || old.mtimeNS != mtime || old.ino != ino {
		if w.dry {
			return errChanged
		}
		a := t.ReadAnchor(f)
		row := newAnchorRow(a, size, mtime, ino)
		row.replace = known
		if err := w.send(ctx, op{kind: opAnchor, key: key, anchor: row}); err != nil {
			return err
		}
		old.listing, old.sig, old.summed = folderListing{}, "", false // the new row has neither yet
	}
	if listing != old.listing {
		if err := w.send(ctx, op{kind: opFolderListed, key: key, listing: listing}); err != nil {
			return err
		}
	}
	if known && old.hasSig() && l.sigSame {
		return nil // no file changed
	}
	if w.dry {
		if known && !old.hasSig() && len(files) == 0 {
			return nil // no file, as before
		}
		return errChanged // its checkpoints would be read, its files maybe
	}
	if known {
		if err := loadCheckpoints(ctx, w.tx, w.st, key); err != nil {
			return err
		}
	}
	seen := make(map[string]bool, len(files))
	failed := make(map[string]bool)
	a := tapelog.Anchor{Seq: f.Seq, Folder: f.Name}
	ctimes := sigCtimes(w.st.folders[key].sig)
	for _, fi := range files {
		seen[fi.Name] = true
		c, ok := ctimes[fi.Name]
		unreadable, err := w.walkFile(ctx, t, a, fi, ok && c == fi.ChangeNS)
		if err != nil {
			return err
		}
		failed[fi.Name] = unreadable
	}
	// Drop the files that are gone: those the signature listed, and, in
	// case it missed one, those with a checkpoint.
	gone := map[fileKey]bool{}
	names, _ := w.st.folders[key].fileNames() // none if it cannot be read: the checkpoints then say
	for _, name := range names {
		gone[fileKey{tape: key.tape, folder: key.folder, name: name}] = !seen[name]
	}
	for fk := range w.st.files {
		if fk.tape == key.tape && fk.folder == key.folder && !seen[fk.name] {
			gone[fk] = true
		}
	}
	for _, fk := range slices.SortedFunc(maps.Keys(gone), func(a, b fileKey) int { return strings.Compare(a.name, b.name) }) {
		if gone[fk] {
			if err := w.send(ctx, op{kind: opDropFile, key: fk}); err != nil {
				return err
			}
		}
	}
	if sig := signature(files, failed); sig != old.sig {
		return w.send(ctx, op{kind: opFolderSig, key: key, sig: sig})
	}
	return nil
}

// unreadableAnchor is the size recorded for an anchor.json that could not
// be read; its permissions may change without its size, mtime or inode.
const unreadableAnchor = -2

func newAnchorRow(a tapelog.Anchor, size, mtime int64, ino uint64) anchorRow {
	r := anchorRow{seq: a.Seq, name: a.Name, id: a.Entry.ID, payload: string(a.Entry.Payload),
		size: size, mtimeNS: mtime, ino: ino, effTime: anchorEffTime,
		text: Tokenize(SearchText(a.Entry))}
	if a.Entry.Meta != nil {
		m := string(a.Entry.Meta)
		r.meta = &m
	}
	if a.Entry.Date != "" {
		d := a.Entry.Date
		r.date = &d
	}
	if a.Err != nil {
		r.badReason, r.badLine = a.Err.Reason, a.Err.Line
		r.size = unreadableAnchor // never equal to a stat: read it again every pass
	}
	return r
}

// walkFile reads what is new in one file, or all of it if it changed under
// its checkpoint. sameCtime says that its ctime is the one its folder's
// signature recorded: its mode did not change.
// It reports whether the file could not be read.
func (w *walker) walkFile(ctx context.Context, t *tapelog.Tape, a tapelog.Anchor, fi tapelog.FileInfo, sameCtime bool) (bool, error) {
	key := fileKey{tape: t.Name(), folder: a.Folder, name: fi.Name}
	if fi.Err != nil {
		return true, w.unreadable(ctx, key, badLine{reason: fi.Err.Reason})
	}
	_, wasUnreadable := w.st.unreadable[key]
	cp, known := w.st.files[key]
	if wasUnreadable {
		known = false // its rows and checkpoint went when it became unreadable: read it all
	}
	now := checkpoint{id: cp.id, dev: fi.Dev, ino: fi.Ino, size: fi.Size, mtimeNS: fi.ModTime.UnixNano()}
	if known && cp.dev == now.dev && cp.ino == now.ino && cp.size == now.size && cp.mtimeNS == now.mtimeNS {
		if sameCtime {
			return false, nil
		}
		// Unchanged, but its ctime is not: maybe its mode changed, and a
		// rebuild could not open it.
		s, err := t.ScanFile(a, fi.Name, tapelog.FilePos{})
		if le := (*tapelog.LineError)(nil); errors.As(err, &le) {
			return true, w.unreadable(ctx, key, badLine{line: le.Line, offset: le.Offset, reason: le.Reason})
		}
		if err != nil {
			return false, err
		}
		s.Close()
		return false, nil
	}
	w.stats.FilesRead++
	from := tapelog.FilePos{}
	// Go on from the checkpoint if the file can only have grown: the same
	// file, not shorter, and not the same size with a new mtime (an edit in
	// place, which the fingerprint would miss in the middle of the file).
	appended := fi.Size > cp.size || (fi.Size == cp.size && now.mtimeNS == cp.mtimeNS)
	if known && cp.dev == now.dev && cp.ino == now.ino && fi.Size >= cp.pos.Offset && appended {
		from = cp.pos
	}
	s, err := t.ScanFile(a, fi.Name, from)
	if errors.Is(err, tapelog.ErrFileChanged) {
		from = tapelog.FilePos{}
		s, err = t.ScanFile(a, fi.Name, from)
	}
	if err != nil {
		var le *tapelog.LineError
		if errors.As(err, &le) {
			return true, w.unreadable(ctx, key, badLine{line: le.Line, offset: le.Offset, reason: le.Reason})
		}
		return false, err
	}
	defer s.Close()
	if wasUnreadable { // readable again: forget the old complaint
		if err := w.send(ctx, op{kind: opResetFile, key: key}); err != nil {
			return false, err
		}
	}
	if known && from.Offset == 0 && cp.pos.Offset > 0 {
		if err := w.send(ctx, op{kind: opResetFile, key: key}); err != nil {
			return false, err
		}
	}
	if err := w.scan(ctx, key, s); err != nil {
		return false, err
	}
	pos, err := s.Pos()
	if err != nil {
		return false, err
	}
	w.stats.Bytes += pos.Offset - from.Offset
	now.pos = pos
	return false, w.send(ctx, op{kind: opCheckpoint, key: key, cp: now})
}

// unreadable records a file that cannot be opened as it stands in a
// rebuild: no rows, no checkpoint, one bad line. Once it can be read again
// it is read from the start.
func (w *walker) unreadable(ctx context.Context, key fileKey, bad badLine) error {
	if _, known := w.st.files[key]; known {
		if err := w.send(ctx, op{kind: opDropFile, key: key}); err != nil {
			return err
		}
	}
	if reason, ok := w.st.unreadable[key]; ok && bad.line == 0 && bad.offset == 0 && reason == bad.reason {
		return nil // recorded already: a pass with nothing new writes nothing
	}
	return w.send(ctx, op{kind: opBadLine, key: key, bad: bad})
}

// scan sends a file's entries and bad lines, in batches.
func (w *walker) scan(ctx context.Context, key fileKey, s *tapelog.FileScanner) error {
	batch := make([]entryRow, 0, entriesPerOp)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.send(ctx, op{kind: opEntries, key: key, entries: batch})
		batch = make([]entryRow, 0, entriesPerOp)
		return err
	}
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			return flush()
		}
		var le *tapelog.LineError
		if errors.As(err, &le) {
			if err := flush(); err != nil {
				return err
			}
			if err := w.send(ctx, op{kind: opBadLine, key: key, bad: badLine{line: le.Line, offset: le.Offset, reason: le.Reason}}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		batch = append(batch, newEntryRow(e))
		if len(batch) == entriesPerOp {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

func newEntryRow(e tapelog.Entry) entryRow {
	text, facts := textAndFacts(e)
	r := entryRow{id: e.ID, kind: e.Kind, seq: e.Pos.AnchorSeq, line: e.Pos.Line, offset: e.Pos.Offset,
		length: e.Pos.Length, effTime: effTime(e.Pos.Time), text: Tokenize(text), facts: facts}
	if e.Date != "" {
		d := e.Date
		r.date = &d
	}
	return r
}
