package importer

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
	"golang.org/x/sys/unix"
)

// checkpointVersion is the version of the checkpoint files' form; a file
// of another version is ignored (and the next import reads every file
// from its start, skipping what the tapes hold). Version 2 was JSON, in
// <source>.json; 3 the same in gob, in <source>.gob (decision 0078); 4 is
// checkpoint_codec.go's form, in <source>.checkpoints (decision 0103).
// The files of versions 2 and 3 are read when there is none of 4, and
// removed when it is saved.
const (
	checkpointVersion = 4
	gobVersion        = 3
	jsonVersion       = 2
)

// checkpoints is what one source's imports remember, in
// .tape/import/<source>.checkpoints: per transcript file, how far it was read;
// per tape, how the importer left it.
type checkpoints struct {
	Version int                    `json:"version"`
	Files   map[string]*checkpoint `json:"files"` // by absolute path
	Tapes   map[string]tapeSeen    `json:"tapes"` // by tape name
	// legacy: read from version 2's or 3's file, which the next save replaces.
	legacy bool
}

// tapeSeen is a tape as an import left it.
type tapeSeen struct {
	Mark string `json:"mark"` // tapeMark
	Dir  string `json:"dir"`  // its anchors folder's identity (run.dirIdentity)
}

// checkpoint is how far one transcript file was read.
type checkpoint struct {
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`     // the file's size when it was read
	MtimeNS int64  `json:"mtime_ns"` // and its mtime
	Offset  int64  `json:"offset"`   // where reading resumes: after the last line converted and not held
	Line    int    `json:"line"`     // lines before Offset
	Tail    uint64 `json:"tail"`     // FNV-64a of up to tailBytes before Offset
	Held    int    `json:"held,omitempty"`
	// Tapes are the tapes the file's sessions went to, by session key
	// (source.Session.Key), so a resumed import writes where the first one did.
	Tapes map[string]string `json:"tapes"`
	State json.RawMessage   `json:"state,omitempty"` // the converter's, at Offset
}

// tailBytes is how much of a file before its checkpoint's offset is
// compared, to tell a file that grew from one that was rewritten.
const tailBytes = 4096

func checkpointsPath(src source.Source) string { return "import/" + src.Name() + ".checkpoints" }

// legacyCheckpointsPaths are where versions 3 (gob) and 2 (JSON) kept
// them, the newer first.
func legacyCheckpointsPaths(src source.Source) [2]string {
	return [2]string{"import/" + src.Name() + ".gob", "import/" + src.Name() + ".json"}
}

// loadCheckpoints reads a source's checkpoints, or, where there are none
// yet, version 3's or 2's; missing, unreadable or of another version, they
// are empty: the tapes themselves say what was imported. A file that
// cannot be read (as opposed to decoded) is an error: reading every
// transcript again would hide it.
//
// An import again with nothing new reads them whole and stats each
// transcript: at 3,471 transcripts the JSON of version 2 was 2.2 MB, and
// decoding it took 30 to 50 ms of a 70 to 150 ms import; gob decoded the
// same in 7 ms (decision 0078), and 10,002 OpenCode sessions' 5 MB in
// 25 ms, where version 4's form takes 5 (decision 0103).
func loadCheckpoints(ws *tapelog.Workspace, src source.Source) (*checkpoints, error) {
	data, err := readWhole(ws, checkpointsPath(src))
	if errors.Is(err, fs.ErrNotExist) {
		return loadLegacyCheckpoints(ws, src)
	}
	if err != nil {
		return nil, fmt.Errorf("read the import checkpoints: %w", err)
	}
	cp, err := decodeCheckpoints(data)
	if err != nil {
		return emptyCheckpoints(), nil
	}
	return cp, nil
}

// maxCheckpointBytes bounds the checkpoints read: 10,002 transcripts'
// are 5 MB.
const maxCheckpointBytes = 1 << 30

// readWhole reads a workspace file into a buffer of its size, read once:
// io.ReadAll would copy 5 MB of checkpoints several times as it grew. A
// file past maxCheckpointBytes is an error, not an allocation of its size.
func readWhole(ws *tapelog.Workspace, rel string) ([]byte, error) {
	f, err := ws.OpenRead(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxCheckpointBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than checkpoints can be: remove it (the next import reads every transcript, and skips what the tapes hold)", rel, fi.Size())
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// loadLegacyCheckpoints reads version 3's gob or, failing that, version
// 2's JSON, if there is one.
func loadLegacyCheckpoints(ws *tapelog.Workspace, src source.Source) (*checkpoints, error) {
	for i, rel := range legacyCheckpointsPaths(src) {
		data, err := ws.ReadPrivate(rel, maxCheckpointBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the import checkpoints: %w", err)
		}
		var read checkpoints
		decoded, version := false, gobVersion
		if i == 0 {
			decoded = gob.NewDecoder(bytes.NewReader(data)).Decode(&read) == nil
		} else {
			decoded, version = json.Unmarshal(data, &read) == nil, jsonVersion
		}
		if !decoded || !read.usable(version) {
			return emptyCheckpoints(), nil
		}
		read.Version, read.legacy = checkpointVersion, true
		for path, cp := range read.Files {
			if cp == nil { // no version wrote one; the codec cannot
				delete(read.Files, path)
			}
		}
		return &read, nil
	}
	return emptyCheckpoints(), nil
}

func emptyCheckpoints() *checkpoints {
	return &checkpoints{Version: checkpointVersion, Files: map[string]*checkpoint{}, Tapes: map[string]tapeSeen{}}
}

// usable reports whether checkpoints read are of the version and whole.
func (cp *checkpoints) usable(version int) bool {
	return cp.Version == version && cp.Files != nil && cp.Tapes != nil
}

// save writes the checkpoints, and removes the files of versions 2 and 3
// they replace.
func (cp *checkpoints) save(ws *tapelog.Workspace, src source.Source) error {
	if err := ws.WritePrivate(checkpointsPath(src), encodeCheckpoints(cp)); err != nil {
		return fmt.Errorf("save the import checkpoints: %w", err)
	}
	// Read, or left by an older tape beside: they are no longer read.
	for _, rel := range legacyCheckpointsPaths(src) {
		if err := ws.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the import checkpoints of an older version: %w", err)
		}
	}
	cp.legacy = false
	return nil
}

// fileIdentity is what says a transcript did not change since it was read.
type fileIdentity struct {
	ino     uint64
	size    int64
	mtimeNS int64
}

// statted is what an import needs of a transcript's stat.
type statted struct {
	id      fileIdentity
	regular bool
}

func stattedOf(st *unix.Stat_t) *statted {
	return &statted{id: fileIdentity{ino: st.Ino, size: st.Size, mtimeNS: st.Mtim.Nano()}, regular: st.Mode&unix.S_IFMT == unix.S_IFREG}
}

func (s *statted) modTime() time.Time { return time.Unix(0, s.id.mtimeNS) }

// unchanged reports whether the file is as it was when cp was made.
func (cp *checkpoint) unchanged(id fileIdentity) bool {
	return cp.Ino == id.ino && cp.Size == id.size && cp.MtimeNS == id.mtimeNS
}

// tailSum is the FNV-64a of up to tailBytes of f before offset.
func tailSum(f *os.File, offset int64) (uint64, error) {
	start := max(0, offset-tailBytes)
	buf := make([]byte, offset-start)
	if _, err := f.ReadAt(buf, start); err != nil && !(errors.Is(err, io.EOF) && offset == 0) {
		return 0, err
	}
	h := fnv.New64a()
	h.Write(buf)
	return h.Sum64(), nil
}

// importFiles are the files entries are appended to in an anchor folder
// (log.FileForKind): a tape's mark describes them.
var importFiles = [...]string{tapelog.EventsFile, tapelog.MessagesFile, tapelog.ToolCallsFile}

// tapeMark describes a tape as a writer leaves it: its last anchor folder
// and the sizes of the files the importer writes there ("" for a tape
// that does not exist). An import trusts a checkpoint only while the
// tapes it wrote still have the marks it recorded.
func tapeMark(t *tapelog.Tape) (string, error) {
	folders, err := t.Folders()
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(folders) == 0 {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	dir, err := t.OpenAnchors()
	if err != nil {
		return "", err
	}
	defer dir.Close()
	last := folders[len(folders)-1].Name
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(folders)) + " " + last)
	for _, name := range importFiles {
		size := int64(-1)
		fi, err := dir.Stat(last, name)
		switch {
		case err == nil:
			size = fi.Size
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		b.WriteString(" " + strconv.FormatInt(size, 10))
	}
	return b.String(), nil
}
