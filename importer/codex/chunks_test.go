package codex

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// What chunks hand out is the caller's, as if allocated alone: appending
// to a piece, or writing over it, changes no other piece, across chunks.
func TestChunksHandOutPiecesApart(t *testing.T) {
	var ch chunks
	s := source.Session{Source: "codex", ID: "s"}
	var outs [][]source.Output
	var kept [][]byte
	for i := range 3 * outsPerChunk {
		o := ch.output(s, tapelog.Entry{ID: fmt.Sprint(i)})
		if len(o) != 1 || cap(o) != 1 {
			t.Fatalf("output %d: len %d, cap %d; want a slice of one, without room", i, len(o), cap(o))
		}
		outs = append(outs, o)
		_ = append(o, source.Output{Entry: tapelog.Entry{ID: "appended"}})
		piece := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i*37%(bytesChunk/4))
		k := ch.keep(piece)
		if !bytes.Equal(k, piece) || cap(k) != len(k) && len(piece) <= bytesChunk/8 {
			t.Fatalf("keep %d: %d bytes, cap %d; want its %d bytes, without room in a chunk", i, len(k), cap(k), len(piece))
		}
		_ = append(k, "appended"...)
		kept = append(kept, k)
	}
	for i, o := range outs {
		if o[0].Entry.ID != fmt.Sprint(i) || o[0].Session != s {
			t.Fatalf("output %d became %+v", i, o[0])
		}
		if want := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i*37%(bytesChunk/4)); !bytes.Equal(kept[i], want) {
			t.Fatalf("piece %d became %q", i, kept[i])
		}
	}
}
