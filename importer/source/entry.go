package source

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strconv"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Meta starts the meta of an entry made from line n of the transcript at
// path: "source" names the transcript, the line, and the record's uuid
// and its parent's when it has them, and its timestamp as written when
// it could not be read as a date (badDate; RecordDate). The caller adds
// what else the meta says and ends it.
func Meta(path string, n int, uuid, parent string, badDate json.RawMessage) *rawjson.Object {
	src := rawjson.NewObject().Str("file", path).Int("line", int64(n)).StrIf("uuid", uuid).StrIf("parent_uuid", parent)
	if len(badDate) > 0 {
		src.Raw("timestamp", badDate)
	}
	return rawjson.NewObject().Raw("source", src.Done())
}

// LineOf is the transcript line an entry's meta names (Meta); 0 when it
// names none. The importer reads it only for a report.
func LineOf(e tapelog.Entry) int {
	var m struct {
		Source struct {
			Line int `json:"line"`
		} `json:"source"`
	}
	_ = json.Unmarshal(e.Meta, &m) // a converter wrote it
	return m.Source.Line
}

// LineID is the id of the k-th entry (from 0) made from a line that has no
// id of its own: a tag of the file's name, which stays the same when the
// file is moved (Codex archives old sessions), and the line number.
func LineID(path string, line, k int) string { return NewLineIDs(path).ID(line, k) }

// LineIDs makes the LineIDs of one file, the tag of its name hashed once:
// for a converter that makes one for every line. Hashing the name at each
// line was a twentieth of Codex's converter's time (BenchmarkConvert in
// importer/codex).
type LineIDs struct{ tag string } // the tag and its colon

// NewLineIDs starts the LineIDs of the file at path.
func NewLineIDs(path string) LineIDs {
	sum := sha256.Sum256([]byte(filepath.Base(path)))
	return LineIDs{tag: hex.EncodeToString(sum[:3]) + ":"}
}

// ID is LineID(path, line, k), of the path NewLineIDs was given.
func (ids LineIDs) ID(line, k int) string {
	var buf [32]byte
	return WithPart(string(strconv.AppendInt(append(buf[:0], ids.tag...), int64(line), 10)), k)
}

// WithPart is the id of the k-th entry made from a line whose first entry
// has id: the id itself, then id/2, id/3...
func WithPart(id string, k int) string {
	if k == 0 {
		return id
	}
	return id + "/" + strconv.Itoa(k+1)
}

// MustJSON encodes values a converter builds from decoded JSON (maps,
// slices, strings, numbers, and json.RawMessages cut from a line that
// decoded), with <, > and & as they are: it cannot fail on them, and
// panics if it does.
func MustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("importer: encode " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
