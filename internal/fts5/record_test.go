package fts5

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestVarint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    uint64
		want []byte
	}{
		{0, []byte{0}},
		{127, []byte{0x7f}},
		{128, []byte{0x81, 0x00}},
		{300, []byte{0x82, 0x2c}},
		{16383, []byte{0xff, 0x7f}},
		{16384, []byte{0x81, 0x80, 0x00}},
		{1<<56 - 1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{1 << 56, []byte{0x80, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}},
		{math.MaxUint64, bytes.Repeat([]byte{0xff}, 9)},
	} {
		got := putVarint(nil, tc.v)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("putVarint(%d) = % x, want % x", tc.v, got, tc.want)
		}
		r := varintReader{b: got}
		if v := r.uint(); v != tc.v || r.err != nil || r.i != len(got) {
			t.Errorf("read % x = %d (err %v, %d bytes), want %d", got, v, r.err, r.i, tc.v)
		}
	}
	r := varintReader{b: []byte{0x81, 0x80}}
	if r.uint(); r.err == nil {
		t.Error("a varint cut short read without an error")
	}
}

// Origins fall as levels deepen, in the order the parts are numbered in:
// the deepest part first, parts as deep keeping their order.
func TestJoinNumbersTheDeepestPartFirst(t *testing.T) {
	t.Parallel()
	part := func(depth int, origins uint64) Structure {
		s := Structure{v2: true, levels: make([]level, depth+1)}
		s.levels[depth].segs = []segment{{id: 1, first: 1, last: 1, origin1: 1, origin2: origins, entries: 10}}
		return s
	}
	for _, tc := range []struct {
		name  string
		parts []Structure
		want  []uint64 // the origin shift of each part
	}{
		{"same level", []Structure{part(3, 20), part(3, 27)}, []uint64{0, 20}},
		{"first shallower", []Structure{part(1, 15), part(3, 22)}, []uint64{22, 0}},
		{"first deeper", []Structure{part(3, 21), part(1, 14)}, []uint64{0, 21}},
		{"three", []Structure{part(0, 5), part(2, 7), part(1, 9)}, []uint64{16, 0, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, shifts, err := Join(tc.parts)
			if err != nil {
				t.Fatal(err)
			}
			for k, sh := range shifts {
				if sh.Origin != tc.want[k] {
					t.Errorf("part %d shifted by %d origins, want %d", k, sh.Origin, tc.want[k])
				}
			}
			if !out.originsFallWithDepth() {
				t.Errorf("joined levels %+v: origins do not fall with depth", out.levels)
			}
		})
	}
}

func TestJoinStructures(t *testing.T) {
	t.Parallel()
	seg := func(id int, o1, o2 uint64) segment {
		return segment{id: id, first: 1, last: 3, origin1: o1, origin2: o2, entries: 10}
	}
	a := Structure{cookie: [4]byte{0, 0, 0, 3}, v2: true, levels: []level{
		{segs: []segment{seg(3, 5, 5)}},
		{segs: []segment{seg(1, 1, 4)}},
	}}
	b := Structure{cookie: [4]byte{0, 0, 0, 3}, v2: true, levels: []level{
		{segs: []segment{seg(2, 3, 3), seg(1, 4, 4)}},
	}}
	got, shifts, err := Join([]Structure{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := Structure{cookie: a.cookie, v2: true, levels: []level{
		{segs: []segment{seg(3, 5, 5), seg(5, 8, 8), seg(4, 9, 9)}},
		{segs: []segment{seg(1, 1, 4)}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("joined\n%+v\nwant\n%+v", got, want)
	}
	if wantShifts := []Shift{{0, 0}, {3, 5}}; !reflect.DeepEqual(shifts, wantShifts) {
		t.Fatalf("shifts %v, want %v", shifts, wantShifts)
	}
	// A row of no tokens after a's last segment has origin 6: b's
	// origins start beyond it.
	withRow := a
	withRow.RowOrigin = 6
	if _, shifts, err := Join([]Structure{withRow, b}); err != nil || !reflect.DeepEqual(shifts, []Shift{{0, 0}, {3, 6}}) {
		t.Fatalf("shifts past a row's origin: %v, %v; want b's origins moved by 6", shifts, err)
	}

	merging := a
	merging.levels = []level{{merge: 1, segs: []segment{seg(3, 5, 5)}}, {segs: []segment{seg(1, 1, 4)}}}
	many := Structure{v2: true, levels: []level{{segs: []segment{seg(1999, 1, 1)}}}}
	legacy := b
	legacy.v2 = false
	for _, bad := range []struct {
		name  string
		parts []Structure
		want  string
	}{
		{"unfinished merge", []Structure{b, merging}, "unfinished merge"},
		{"too many segment ids", []Structure{many, a}, "over FTS5's 2000"},
		{"formats differ", []Structure{a, legacy}, "another structure format"},
		{"nothing", nil, "no parts"},
	} {
		if _, _, err := Join(bad.parts); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one saying %q", bad.name, err, bad.want)
		}
	}
}

func TestJoinAverages(t *testing.T) {
	t.Parallel()
	rec := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = putVarint(b, v)
		}
		return b
	}
	got, err := JoinAverages([][]byte{rec(10, 300), rec(5, 100000)})
	if err != nil || !bytes.Equal(got, rec(15, 100300)) {
		t.Fatalf("JoinAverages = % x, %v; want % x", got, err, rec(15, 100300))
	}
	if _, err := JoinAverages([][]byte{rec(10, 300), rec(5)}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("records of different lengths: %v", err)
	}
}

// FuzzDecodeStructure: any bytes decode or fail without a panic, and what
// decodes encodes to a record that decodes the same.
func FuzzDecodeStructure(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0})
	f.Add(append([]byte{0, 0, 0, 2}, structureV2+"\x01\x01\x05\x00\x01\x03\x01\x09\x01\x01\x00\x00\x0c"...))
	f.Add([]byte{0, 0, 0, 1, 2, 1, 0, 0, 1, 7, 1, 4, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeStructure(b)
		if err != nil {
			return
		}
		again, err := DecodeStructure(s.Encode())
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("decode(encode(s)) = %+v, want %+v", again, s)
		}
	})
}
