package fts5

import (
	"errors"
	"fmt"
	"slices"
)

// Rowids of %_data (fts5_index.c).
const (
	AveragesRowid  = 1  // FTS5_AVERAGES_ROWID
	StructureRowid = 10 // FTS5_STRUCTURE_ROWID
	// SegidShift is where a segment's id sits in the rowids of its
	// pages: FTS5_DATA_PAGE_B + FTS5_DATA_HEIGHT_B + FTS5_DATA_DLI_B. Its
	// tombstone pages use the id plus 1<<16, at the same place, so adding
	// delta<<SegidShift renumbers both.
	SegidShift = 31 + 5 + 1
	// MaxSegment is FTS5_MAX_SEGMENT: FTS5 refuses more segments, and
	// allocates new ids only up to it.
	MaxSegment = 2000
)

// structureV2 follows the cookie in the structure record of a table
// with contentless_delete=1, whose segments carry origins and tombstones.
const structureV2 = "\xff\x00\x00\x01"

// Structure is a decoded structure record.
type Structure struct {
	cookie       [4]byte // the configuration cookie, copied as it is
	v2           bool
	writeCounter uint64
	levels       []level

	// RowOrigin is the largest origin of the part's rows (_docsize), not
	// in the record: a row with no tokens, added after the last segment
	// was written, has the origin the next segment would have, beyond
	// every segment's.
	RowOrigin uint64
}

type level struct {
	merge int // input segments of an unfinished incremental merge
	segs  []segment
}

type segment struct {
	id, first, last int
	// v2 only: the range of origins of the rows in the segment, its
	// tombstone pages, and its counts of tombstones and rows.
	origin1, origin2 uint64
	tombPages        int
	tombEntries      uint64
	entries          uint64
}

var ErrCorrupt = errors.New("corrupt FTS5 record")

// DecodeStructure parses a structure record.
func DecodeStructure(b []byte) (Structure, error) {
	var s Structure
	if len(b) < 4 {
		return s, fmt.Errorf("structure record of %d bytes: %w", len(b), ErrCorrupt)
	}
	copy(s.cookie[:], b)
	r := varintReader{b: b, i: 4}
	if len(b) >= 8 && string(b[4:8]) == structureV2 {
		s.v2, r.i = true, 8
	}
	nLevel, nSegment := r.int(), r.int()
	s.writeCounter = r.uint()
	if r.err != nil || nLevel > MaxSegment || nSegment > MaxSegment {
		return s, fmt.Errorf("structure record header: %w", ErrCorrupt)
	}
	for range nLevel {
		lvl := level{merge: r.int()}
		nSeg := r.int()
		if r.err != nil || nSeg > nSegment || lvl.merge > nSeg {
			return s, fmt.Errorf("structure record level %d: %w", len(s.levels), ErrCorrupt)
		}
		nSegment -= nSeg
		for range nSeg {
			seg := segment{id: r.int(), first: r.int(), last: r.int()}
			if s.v2 {
				seg.origin1, seg.origin2 = r.uint(), r.uint()
				seg.tombPages = r.int()
				seg.tombEntries, seg.entries = r.uint(), r.uint()
			}
			lvl.segs = append(lvl.segs, seg)
		}
		s.levels = append(s.levels, lvl)
	}
	if r.err != nil || nSegment != 0 || r.i != len(b) {
		return s, fmt.Errorf("structure record: %w", ErrCorrupt)
	}
	return s, nil
}

// encode writes the structure record.
func (s Structure) Encode() []byte {
	b := append([]byte(nil), s.cookie[:]...)
	if s.v2 {
		b = append(b, structureV2...)
	}
	n := 0
	for _, l := range s.levels {
		n += len(l.segs)
	}
	b = putVarint(b, uint64(len(s.levels)))
	b = putVarint(b, uint64(n))
	b = putVarint(b, s.writeCounter)
	for _, l := range s.levels {
		b = putVarint(b, uint64(l.merge))
		b = putVarint(b, uint64(len(l.segs)))
		for _, g := range l.segs {
			b = putVarint(b, uint64(g.id))
			b = putVarint(b, uint64(g.first))
			b = putVarint(b, uint64(g.last))
			if s.v2 {
				b = putVarint(b, g.origin1)
				b = putVarint(b, g.origin2)
				b = putVarint(b, uint64(g.tombPages))
				b = putVarint(b, g.tombEntries)
				b = putVarint(b, g.entries)
			}
		}
	}
	return b
}

// maxSegid is the largest segment id in use, 0 for an empty index.
func (s Structure) maxSegid() int {
	m := 0
	for _, l := range s.levels {
		for _, g := range l.segs {
			m = max(m, g.id)
		}
	}
	return m
}

// maxOrigin is the largest origin of a row in the index. A row's origin,
// also kept in %_docsize, is how a delete finds the segment that holds it.
func (s Structure) maxOrigin() uint64 {
	var m uint64
	for _, l := range s.levels {
		for _, g := range l.segs {
			m = max(m, g.origin2)
		}
	}
	return m
}

// Shift is how one part's index is renumbered to join the others:
// segment ids (and so the rowids of its pages) and origins move up.
type Shift struct {
	Segid  int    // added to each segment id of the part
	Origin uint64 // added to each origin of the part's rows
}

// Join lists the segments of the parts, whose rows must be
// disjoint, as one index: the segments of each part renumbered past those
// of the parts before it, at the levels they were at. It returns how each
// part is renumbered. An unfinished incremental merge would tie a level's
// oldest segments to the newest of the next one, which a join would break:
// builders merge their parts whole before the join (part.run), and a
// part that has one is refused.
//
// Origins must fall as levels deepen, as they do in an index FTS5 wrote:
// a merge of a level gives its output the origins from its first
// segment's to its last's, and appends it to the next level, whose
// segments must all be older. So the part deepest in the levels gets the
// lowest origins. Numbered in the parts' order, a part merged into a
// shallower level than the next one's gave a later merge an output whose
// origins spanned the next part's segment: a row of that segment deleted
// then had its tombstone written to the output, stayed in its segment
// and was found by searches with no row behind it ("database disk image
// is malformed"; TestJoinedIndexTakesDeletes).
func Join(parts []Structure) (Structure, []Shift, error) {
	if len(parts) == 0 {
		return Structure{}, nil, errors.New("join search indexes: no parts")
	}
	out := Structure{cookie: parts[0].cookie, v2: parts[0].v2}
	shifts := make([]Shift, len(parts))
	var next Shift
	for _, k := range deepestFirst(parts) {
		p := parts[k]
		if p.v2 != out.v2 {
			return out, nil, fmt.Errorf("join search indexes: part %d has another structure format", k)
		}
		shifts[k] = next
		for i, l := range p.levels {
			if l.merge != 0 {
				return out, nil, fmt.Errorf("join search indexes: part %d has an unfinished merge at level %d", k, i)
			}
			for len(out.levels) <= i {
				out.levels = append(out.levels, level{})
			}
			for _, g := range l.segs {
				g.id += next.Segid
				if out.v2 {
					g.origin1 += next.Origin
					g.origin2 += next.Origin
				}
				out.levels[i].segs = append(out.levels[i].segs, g)
			}
		}
		out.writeCounter += p.writeCounter
		next.Segid += p.maxSegid()
		// Beyond every origin of the part's rows too: a part's trailing row
		// of no tokens shared its origin with the next part's first
		// segment, which counted that row's later delete as its own.
		next.Origin += max(p.maxOrigin(), p.RowOrigin)
	}
	if n := out.maxSegid(); n > MaxSegment {
		return out, nil, fmt.Errorf("join search indexes: segment id %d is over FTS5's %d", n, MaxSegment)
	}
	if out.v2 && !out.originsFallWithDepth() {
		return out, nil, errors.New("join search indexes: the parts' levels cannot be ordered by origin")
	}
	return out, shifts, nil
}

// deepestFirst is the order of the parts by their deepest level with a
// segment, deepest first: the order their origins are numbered in. Parts
// as deep as each other keep their order.
func deepestFirst(parts []Structure) []int {
	order := make([]int, len(parts))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return parts[b].Deepest() - parts[a].Deepest() })
	return order
}

// Deepest is the deepest level that holds a segment, -1 for none.
func (s Structure) Deepest() int {
	for i := len(s.levels) - 1; i >= 0; i-- {
		if len(s.levels[i].segs) > 0 {
			return i
		}
	}
	return -1
}

// originsFallWithDepth reports whether every segment's origins are below
// those of each segment at a shallower level, and of each later segment at
// its own: the order FTS5's merges keep and rely on.
func (s Structure) originsFallWithDepth() bool {
	var above uint64 // the lowest origin at the levels above, scanning from the top
	first := true
	for i := range s.levels {
		segs := s.levels[i].segs
		for j := 1; j < len(segs); j++ {
			if segs[j].origin1 <= segs[j-1].origin2 {
				return false
			}
		}
		if len(segs) == 0 {
			continue
		}
		if !first && segs[len(segs)-1].origin2 >= above {
			return false
		}
		above, first = segs[0].origin1, false
	}
	return true
}

// JoinAverages adds up averages records: the number of rows, then the
// number of tokens of each column.
func JoinAverages(recs [][]byte) ([]byte, error) {
	var sum []uint64
	for k, rec := range recs {
		var vals []uint64
		r := varintReader{b: rec}
		for r.i < len(rec) && r.err == nil {
			vals = append(vals, r.uint())
		}
		if r.err != nil || (k > 0 && len(vals) != len(sum)) {
			return nil, fmt.Errorf("join search indexes: averages record of part %d: %w", k, ErrCorrupt)
		}
		if k == 0 {
			sum = make([]uint64, len(vals))
		}
		for i, v := range vals {
			sum[i] += v
		}
	}
	var b []byte
	for _, v := range sum {
		b = putVarint(b, v)
	}
	return b, nil
}

// varintReader reads SQLite's variable-length integers: big-endian groups
// of 7 bits, the high bit set on all but the last, and a 9th byte, if
// any, of 8 bits. The first error sticks.
type varintReader struct {
	b   []byte
	i   int
	err error
}

func (r *varintReader) uint() uint64 {
	var v uint64
	for n := 0; n < 9; n++ {
		if r.i >= len(r.b) {
			r.err = ErrCorrupt
			return 0
		}
		c := r.b[r.i]
		r.i++
		if n == 8 {
			return v<<8 | uint64(c)
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v
		}
	}
	return v
}

// int reads a varint that FTS5 reads as a 32-bit count or number.
func (r *varintReader) int() int {
	v := r.uint()
	if v > 1<<31-1 {
		r.err = ErrCorrupt
		return 0
	}
	return int(v)
}

// putVarint appends v as SQLite writes it (sqlite3PutVarint).
func putVarint(b []byte, v uint64) []byte {
	if v>>56 != 0 { // nine bytes: eight of 7 bits, then the low 8 bits
		var buf [9]byte
		buf[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			buf[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(b, buf[:]...)
	}
	var buf [8]byte
	i := len(buf) - 1
	buf[i] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		i--
		buf[i] = byte(v&0x7f) | 0x80
	}
	return append(b, buf[i:]...)
}

// IsV2 reports whether the record is of a table with
// contentless_delete=1, whose segments carry origins and tombstones.
func (s Structure) IsV2() bool { return s.v2 }

// Levels is how many levels the index has.
func (s Structure) Levels() int { return len(s.levels) }

// Segments is how many segments the index has, at all its levels.
func (s Structure) Segments() int { return len(s.Ranges()) }

// SegmentRange is a segment's id and the range of the origins of its
// rows (in a V2 record; 0 otherwise).
type SegmentRange struct {
	ID               int
	Origin1, Origin2 uint64
}

// Ranges are the segments of every level, oldest level first.
func (s Structure) Ranges() []SegmentRange {
	var out []SegmentRange
	for _, l := range s.levels {
		for _, g := range l.segs {
			out = append(out, SegmentRange{g.id, g.origin1, g.origin2})
		}
	}
	return out
}

// DropSegments lists no segment at any level, and AsV1 writes the record
// in the format of a table without contentless_delete: the records of an
// index that lost its segments and of another format, which the tests of
// the join's check write to see it fail.
func (s *Structure) DropSegments() {
	for i := range s.levels {
		s.levels[i].segs = nil
	}
}

// AsV1: see DropSegments.
func (s *Structure) AsV1() { s.v2 = false }
