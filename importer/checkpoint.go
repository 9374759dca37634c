package importer

import (
	"bufio"
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
	"syscall"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// checkpointVersion is the version of the checkpoint files' form; a file
// of another version is ignored (and the next import reads every file
// from its start, skipping what the tapes hold). Version 2 was JSON, in
// <source>.json; 3 is the same in gob (decision 0078).
const (
	checkpointVersion       = 3
	legacyCheckpointVersion = 2
)

// checkpoints is what one source's imports remember, in
// .tape/import/<source>.gob: per transcript file, how far it was read;
// per tape, how the importer left it.
type checkpoints struct {
	Version int                    `json:"version"`
	Files   map[string]*checkpoint `json:"files"` // by absolute path
	Tapes   map[string]tapeSeen    `json:"tapes"` // by tape name
	// legacy: read from version 2's JSON, which the next save replaces.
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

func checkpointsPath(src source.Source) string { return "import/" + src.Name() + ".gob" }

// legacyCheckpointsPath is where version 2 kept them, as JSON.
func legacyCheckpointsPath(src source.Source) string { return "import/" + src.Name() + ".json" }

// loadCheckpoints reads a source's checkpoints, or, where there are none
// yet, version 2's; missing, unreadable or of another version, they are
// empty: the tapes themselves say what was imported.
//
// An import again with nothing new reads them whole and stats each
// transcript: at 3,471 transcripts the JSON of version 2 was 2.2 MB, and
// decoding it took 30 to 50 ms of a 70 to 150 ms import; gob decodes the
// same in 7 ms (decision 0078). They are decoded as they are read: read
// whole first, the 5 MB of 10,150 transcripts' checkpoints were copied
// twice more (gob reads a value into a buffer of its own), and loading
// them took 55 ms of a new process instead of 36. A file that does not
// decode leaves them empty; one that cannot be read is an error, as it
// was when the file was read whole first.
func loadCheckpoints(ws *tapelog.Workspace, src source.Source) (*checkpoints, error) {
	f, err := ws.OpenRead(checkpointsPath(src))
	if errors.Is(err, fs.ErrNotExist) {
		return loadLegacyCheckpoints(ws, src)
	}
	if err != nil {
		return nil, fmt.Errorf("read the import checkpoints: %w", err)
	}
	defer f.Close()
	in := &readErrors{r: f}
	var read checkpoints
	if err := gob.NewDecoder(bufio.NewReaderSize(in, 64<<10)).Decode(&read); err != nil || !read.usable(checkpointVersion) {
		if in.err != nil {
			return nil, fmt.Errorf("read the import checkpoints: %w", in.err)
		}
		return emptyCheckpoints(), nil
	}
	return &read, nil
}

// readErrors is r, remembering the error of a read that failed (not the
// end of the file), which a decoder reports as its own.
type readErrors struct {
	r   io.Reader
	err error
}

func (e *readErrors) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// loadLegacyCheckpoints reads version 2's JSON, if there is one.
func loadLegacyCheckpoints(ws *tapelog.Workspace, src source.Source) (*checkpoints, error) {
	data, err := ws.ReadPrivate(legacyCheckpointsPath(src), 1<<30)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyCheckpoints(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the import checkpoints: %w", err)
	}
	var read checkpoints
	if json.Unmarshal(data, &read) != nil || !read.usable(legacyCheckpointVersion) {
		return emptyCheckpoints(), nil
	}
	read.Version, read.legacy = checkpointVersion, true
	for path, cp := range read.Files {
		if cp == nil { // gob cannot write a nil; no version 2 wrote one
			delete(read.Files, path)
		}
	}
	return &read, nil
}

func emptyCheckpoints() *checkpoints {
	return &checkpoints{Version: checkpointVersion, Files: map[string]*checkpoint{}, Tapes: map[string]tapeSeen{}}
}

// usable reports whether checkpoints read are of the version and whole.
func (cp *checkpoints) usable(version int) bool {
	return cp.Version == version && cp.Files != nil && cp.Tapes != nil
}

// save writes the checkpoints, and removes version 2's file they replace.
func (cp *checkpoints) save(ws *tapelog.Workspace, src source.Source) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(cp); err != nil {
		return fmt.Errorf("encode the import checkpoints: %w", err)
	}
	if err := ws.WritePrivate(checkpointsPath(src), buf.Bytes()); err != nil {
		return fmt.Errorf("save the import checkpoints: %w", err)
	}
	// Version 2's file, read or left by an older tape beside: it is no
	// longer read.
	if err := ws.Remove(legacyCheckpointsPath(src)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the import checkpoints of version 2: %w", err)
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

func identityOf(fi fs.FileInfo) fileIdentity {
	id := fileIdentity{size: fi.Size(), mtimeNS: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino = st.Ino
	}
	return id
}

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
