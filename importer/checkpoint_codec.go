package importer

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"slices"
)

// The checkpoint file's form, version 4 (decision 0103): the magic, then
// uvarints and length-prefixed strings, then the CRC-32C of all before it
// (4 bytes, little-endian).
//
//	magic      "tape checkpoints\n"
//	version    uvarint (4)
//	files      uvarint n, then n of, sorted by path:
//	             path string; ino, size, mtime_ns, offset, line, tail, held uvarint
//	             (size, mtime_ns and offset as int64 bits); tapes uvarint m,
//	             then m of key string, tape string; state string
//	tapes      uvarint n, then n of, sorted by name: name, mark, dir string
//	crc        uint32, little-endian
//
// A string is a uvarint length and its bytes. An import with nothing new
// decodes the whole file: gob took 25 ms for 10,002 OpenCode sessions'
// 5 MB, and half of a no-change import's CPU was spent before its first
// stat; this takes one copy of the file for all its strings (each is a
// slice of it) and a map per transcript.
const checkpointMagic = "tape checkpoints\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCheckpointForm is a checkpoint file that is not of this form: cut
// short, corrupted, or of another version.
var errCheckpointForm = errors.New("not a checkpoint file of this version")

// encodeCheckpoints is cp in the form above, the same bytes for the same
// checkpoints.
func encodeCheckpoints(cp *checkpoints) []byte {
	b := []byte(checkpointMagic)
	b = binary.AppendUvarint(b, checkpointVersion)
	b = binary.AppendUvarint(b, uint64(len(cp.Files)))
	for _, path := range slices.Sorted(maps.Keys(cp.Files)) {
		f := cp.Files[path]
		b = appendString(b, path)
		for _, n := range [...]uint64{f.Ino, uint64(f.Size), uint64(f.MtimeNS), uint64(f.Offset), uint64(f.Line), f.Tail, uint64(f.Held)} {
			b = binary.AppendUvarint(b, n)
		}
		b = binary.AppendUvarint(b, uint64(len(f.Tapes)))
		for _, key := range slices.Sorted(maps.Keys(f.Tapes)) {
			b = appendString(appendString(b, key), f.Tapes[key])
		}
		b = appendString(b, string(f.State))
	}
	b = binary.AppendUvarint(b, uint64(len(cp.Tapes)))
	for _, name := range slices.Sorted(maps.Keys(cp.Tapes)) {
		b = appendString(appendString(appendString(b, name), cp.Tapes[name].Mark), cp.Tapes[name].Dir)
	}
	return binary.LittleEndian.AppendUint32(b, crc32Of(b))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decodeCheckpoints reads what encodeCheckpoints wrote, or fails with
// errCheckpointForm; it never panics, whatever data holds.
func decodeCheckpoints(data []byte) (*checkpoints, error) {
	if len(data) < len(checkpointMagic)+4 || string(data[:len(checkpointMagic)]) != checkpointMagic {
		return nil, errCheckpointForm
	}
	body := data[:len(data)-4]
	if crc32Of(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, errCheckpointForm
	}
	d := &cpDecoder{b: body, s: string(body), pos: len(checkpointMagic), ok: true}
	if d.uvarint() != checkpointVersion {
		return nil, errCheckpointForm
	}
	cp := &checkpoints{Version: checkpointVersion}
	n := d.count()
	cp.Files = make(map[string]*checkpoint, n) // sized: growing it took a third of the time
	for ; n > 0 && d.ok; n-- {
		path, f := d.file()
		cp.Files[path] = f
	}
	n = d.count()
	cp.Tapes = make(map[string]tapeSeen, n)
	for ; n > 0 && d.ok; n-- {
		name := d.string()
		cp.Tapes[name] = tapeSeen{Mark: d.string(), Dir: d.string()}
	}
	if !d.ok || d.pos != len(d.s) {
		return nil, errCheckpointForm
	}
	return cp, nil
}

// cpDecoder reads the form above from b, which s holds too: strings are
// slices of s, states slices of b. ok turns false at the first thing that
// is not there, and stays false (each read then returns zero).
type cpDecoder struct {
	b   []byte
	s   string
	pos int
	ok  bool
}

func (d *cpDecoder) file() (string, *checkpoint) {
	path := d.string()
	f := &checkpoint{Ino: d.uvarint(), Size: int64(d.uvarint()), MtimeNS: int64(d.uvarint()), Offset: int64(d.uvarint()),
		Line: int(d.uvarint()), Tail: d.uvarint(), Held: int(d.uvarint())}
	n := d.count()
	f.Tapes = make(map[string]string, n)
	for ; n > 0 && d.ok; n-- {
		key := d.string()
		f.Tapes[key] = d.string()
	}
	if state := d.string(); state != "" {
		end := d.pos
		f.State = d.b[end-len(state) : end : end] // capped: an append copies
	}
	return path, f
}

func (d *cpDecoder) uvarint() uint64 {
	if !d.ok {
		return 0
	}
	var n uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.pos >= len(d.s) {
			break
		}
		c := d.s[d.pos]
		d.pos++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	d.ok = false
	return 0
}

// count is a number of things to follow, each at least one byte long:
// more than the bytes left is a corrupt file, not a map to allocate.
func (d *cpDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.s)-d.pos) {
		d.ok = false
		return 0
	}
	return int(n)
}

func (d *cpDecoder) string() string {
	n := d.uvarint()
	if !d.ok || n > uint64(len(d.s)-d.pos) {
		d.ok = false
		return ""
	}
	s := d.s[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return s
}

func crc32Of(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
