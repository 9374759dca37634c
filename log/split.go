package log

import "bytes"

// member is one member of a JSON object as splitObject finds it.
type member struct {
	key   []byte // as written between the quotes (splitObject takes only keys without escapes)
	value []byte // the value's JSON text
}

// maxSplitDepth is the nesting splitObject follows before it leaves the
// line to encoding/json (whose own limit is 10,000).
const maxSplitDepth = 500

// splitObject splits a line holding one JSON object into its members, in
// one pass that also checks that the whole line is valid JSON. It gives up
// (ok false) on anything unusual: a line that is not valid JSON or not an
// object, a key with an escape, deep nesting. parseLine then takes the
// path of encoding/json, which decides and explains. The line must be
// valid UTF-8, as parseLine checks first.
//
// It exists because parseLine runs for every line of every rebuild, and
// encoding/json reads a line twice (it checks it, then decodes it) and
// builds a map: a third of the rebuild's parsing time. FuzzSplitObject
// checks it against encoding/json.
func splitObject(line []byte, members []member) ([]member, bool) {
	s := scanner{b: line}
	s.space()
	if !s.eat('{') {
		return nil, false
	}
	s.space()
	if s.eat('}') {
		return members, s.end()
	}
	for {
		if !s.eat('"') {
			return nil, false
		}
		start := s.i
		if !s.str() {
			return nil, false
		}
		key := line[start : s.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, false
		}
		s.space()
		if !s.eat(':') {
			return nil, false
		}
		s.space()
		start = s.i
		if !s.value(1) {
			return nil, false
		}
		members = append(members, member{key: key, value: line[start:s.i]})
		s.space()
		if s.eat('}') {
			return members, s.end()
		}
		if !s.eat(',') {
			return nil, false
		}
		s.space()
	}
}

// lookup returns the value of the last member named key, as encoding/json
// keeps the last of repeated names.
func lookup(members []member, key string) ([]byte, bool) {
	for i := len(members) - 1; i >= 0; i-- {
		if string(members[i].key) == key {
			return members[i].value, true
		}
	}
	return nil, false
}

// plainString returns the text of a JSON string without escapes.
func plainString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || bytes.IndexByte(value, '\\') >= 0 {
		return "", false
	}
	return string(value[1 : len(value)-1]), true
}

// scanner checks JSON text, byte by byte, by RFC 8259's grammar.
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

// compactObject reports whether raw is one valid JSON object with no
// white space between its tokens: what json.Compact would return
// unchanged. raw must be valid UTF-8.
//
// It exists because every append compacts its payload, and an import
// appends payloads its converters wrote compact: json.Compact scanned and
// copied each one again (BenchmarkImportClaude; FuzzCompactObject checks
// it against json.Compact). It stops at the first white space between
// tokens, so a payload that is not compact (Python's json.dumps writes
// ", " and ": ") costs little more than json.Compact alone
// (BenchmarkNormalizeObject).
func compactObject(raw []byte) bool {
	s := scanner{b: raw, compact: true}
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	s.i++
	return s.object(1) && s.i == len(raw)
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxSplitDepth {
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
// including its closing quote.
func (s *scanner) str() bool {
	for s.i < len(s.b) {
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
