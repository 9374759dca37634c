package codex

import (
	"bytes"
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// chunks hands out the memory of what a converter makes a chunk at a
// time: the one-output slices most lines return, and the bytes of their
// payloads and metas. Each piece is handed out once and never written again (a slice
// of an output has no room to grow into the next), so a caller may keep
// what it is given as if it were allocated alone; a chunk is garbage when
// nothing it handed out is kept.
//
// It buys the allocations of the three things every entry has: a Codex
// line is 200 bytes, and allocating a 300-byte output, a payload and a meta
// apart for each was a fifth of the converter's time (BenchmarkConvert).
type chunks struct {
	outs  []source.Output
	bytes []byte
}

const (
	outsPerChunk = 64
	bytesChunk   = 16 << 10
)

// output is a slice of one output: e, of the session s.
func (ch *chunks) output(s source.Session, e tapelog.Entry) []source.Output {
	if len(ch.outs) == cap(ch.outs) {
		ch.outs = make([]source.Output, 0, outsPerChunk)
	}
	n := len(ch.outs)
	ch.outs = append(ch.outs, source.Output{Session: s, Entry: e})
	return ch.outs[n : n+1 : n+1]
}

// keep is a copy of b. Pieces over an eighth of a chunk are allocated
// alone.
func (ch *chunks) keep(b []byte) []byte {
	if len(b) > bytesChunk/8 {
		return bytes.Clone(b)
	}
	if len(b) > cap(ch.bytes)-len(ch.bytes) {
		ch.bytes = make([]byte, 0, bytesChunk)
	}
	n := len(ch.bytes)
	ch.bytes = append(ch.bytes, b...)
	return ch.bytes[n:len(ch.bytes):len(ch.bytes)]
}

// keep is a payload b, written in c.scratch, kept apart (chunks.keep);
// c.scratch is b's room for the next, unless b grew it past a chunk.
func (c *converter) keep(b []byte) json.RawMessage {
	c.scratch = b[:0]
	if cap(b) > bytesChunk {
		c.scratch = nil // a long tool output's: not held for the file
	}
	return c.chunks.keep(b)
}
