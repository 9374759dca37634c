package rawjson

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is the nesting the scanner follows before it gives up and
// leaves the text to encoding/json (whose own limit is 10,000).
const maxDepth = 500

// scanner checks JSON text, byte by byte, by RFC 8259's grammar: the
// validating half of the package (SplitObject, IsCompactObject). It
// checks no UTF-8; its callers have.
type scanner struct {
	b []byte
	i int
	// compact says white space between tokens is an error where it
	// stands: not skipped, it is no token, and the scan fails there.
	compact bool
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) space() {
	for s.i < len(s.b) && !s.compact {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		s.i++
		return s.str()
	case c == '{':
		s.i++
		return s.object(depth)
	case c == '[':
		s.i++
		return s.array(depth)
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	}
	return false
}

func (s *scanner) object(depth int) bool {
	s.space()
	if s.eat('}') {
		return true
	}
	for {
		if !s.eat('"') || !s.str() {
			return false
		}
		s.space()
		if !s.eat(':') {
			return false
		}
		s.space()
		if !s.value(depth + 1) {
			return false
		}
		s.space()
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
		s.space()
	}
}

func (s *scanner) array(depth int) bool {
	s.space()
	if s.eat(']') {
		return true
	}
	for {
		if !s.value(depth + 1) {
			return false
		}
		s.space()
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
		s.space()
	}
}

// str reads the rest of a string whose opening quote was read, up to and
// including its closing quote. It reads eight bytes at a time, and goes
// straight to the first of them that is a quote, a backslash or a
// control character (special); it looks at the last few bytes of the
// text one by one.
//
// It buys most of what checking a line costs: strings are most of a
// transcript's bytes (tools' output), and SplitObject and
// IsCompactObject spent most of their time here, a byte at a time.
// BenchmarkIsCompactObject (medians of 6, interleaved runs of the two
// builds): a 16 KB payload in 9.0 µs against 45 µs byte by byte;
// BenchmarkSplitObject's tool call line in 0.86 µs against 1.16 µs. It
// depends on nothing about b. FuzzSplitObject and
// FuzzCompactObject hold it to encoding/json.
func (s *scanner) str() bool {
	for s.i < len(s.b) {
		for s.i+8 <= len(s.b) {
			m := special(binary.LittleEndian.Uint64(s.b[s.i:]))
			if m != 0 {
				s.i += bits.TrailingZeros64(m) / 8
				break
			}
			s.i += 8
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			if !s.escape() {
				return false
			}
		case c < 0x20:
			return false
		default:
			s.i++
		}
	}
	return false
}

// special flags the bytes of x (read little-endian) that are a quote, a
// backslash or below 0x20, by the bit tricks of "Bit Twiddling Hacks"
// (Sean Eron Anderson): (v - 0x01...) &^ v & 0x80... flags the zero
// bytes of v, and (x - n*0x01...) &^ x & 0x80... the bytes of x below n
// (n <= 128). The lowest byte flagged is the first such byte; bytes above
// it may be flagged wrongly (a borrow), so only the lowest is read.
func special(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

func (s *scanner) escape() bool {
	s.i++ // the backslash
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i++
		return true
	case 'u':
		if s.i+4 >= len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+1 : s.i+5] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 5
		return true
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.digits() == 0:
		return false
	}
	if s.eat('.') && s.digits() == 0 {
		return false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

func (s *scanner) word(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}
