package projector

import (
	"crypto/sha256"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// The types a pass shares between its two sides, the walker that reads
// the files (walk.go) and the applier that writes the index (apply.go):
// the ops the one sends the other, the checkpoints and folder marks the
// walker compares the files with (state, loaded by catchup.go), the rows
// it makes, a folder's signature, and the sort key of an entry's time.
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
	text              ftsText // the anchor entry's search text
	effTime           int64
	badReason         string // anchor.json could not be read
	badLine           int
	unanchored        bool // no anchor entry: log.Anchor's Unanchored
}

type entryRow struct {
	id, kind string
	seq      int64
	line     int
	offset   int64
	length   int
	date     *string
	effTime  int64
	timeNS   *int64  // overrides effTime for time filters (anchor entries)
	text     ftsText // search text
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
	unlistedFolders map[string][]fileKey        // tape -> its folders that could not be listed, sorted

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
	st.unlistedFolders = map[string][]fileKey{}
	for k := range st.unreadable { // it may become readable by a change elsewhere
		folder := fileKey{tape: k.tape, folder: k.folder}
		markVolatile(folder)
		if k.folder != "" && k.name == "" {
			st.unlistedFolders[k.tape] = append(st.unlistedFolders[k.tape], k)
		}
		if k.name != "" {
			if st.unreadableFiles[folder] == nil {
				st.unreadableFiles[folder] = map[string]bool{}
			}
			st.unreadableFiles[folder][k.name] = true
		}
	}
	for _, keys := range st.unlistedFolders {
		slices.SortFunc(keys, compareKeys)
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
