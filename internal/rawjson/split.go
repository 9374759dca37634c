package rawjson

import "bytes"

// Member is one member of a JSON object as SplitObject finds it.
type Member struct {
	Key   []byte // as written between the quotes (SplitObject takes only keys without escapes)
	Value []byte // the value's JSON text
}

// SplitObject splits a line holding one JSON object into its members,
// appended to members, in one pass that also checks that the whole line
// is valid JSON. It gives up (ok false) on anything unusual: a line that
// is not valid JSON or not an object, a key with an escape, nesting deeper
// than maxDepth. The caller then takes the path of encoding/json, which
// decides and explains.
//
// It buys a third of a rebuild's parsing time: log's parseLine runs for
// every line of every rebuild, and encoding/json reads a line twice (it
// checks it, then decodes it) and builds a map. BenchmarkSplitObject
// (medians of 6): a tool call line in 0.40 µs, against 4.3 µs for
// encoding/json's Unmarshal into a map of raw members (and
// BenchmarkParseLine in log). It depends on the line being valid UTF-8,
// which it does not check (parseLine checks it first). FuzzSplitObject
// holds it to encoding/json.
func SplitObject(line []byte, members []Member) ([]Member, bool) {
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
		members = append(members, Member{Key: key, Value: line[start:s.i]})
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

// SplitObjectIn is SplitObject, which also splits, in the same pass, the
// value of the member named key when it is an object: its members are
// appended to inner, those of the last member so named (as encoding/json
// keeps the last), none when that one is not an object. It gives up where
// SplitObject gives up, on the line or on the value of any member named
// key that is an object.
//
// It buys the second reading of a record's payload: a reader that wants
// the members of a line and of its payload walked the payload again
// (ObjectMembers) after SplitObject had checked it. Codex's converter
// (BenchmarkConvert in importer/codex) reads every rollout line so. It
// depends on what SplitObject depends on. FuzzSplitObjectIn holds it to
// SplitObject.
func SplitObjectIn(line []byte, members []Member, key string, inner []Member) (_, _ []Member, ok bool) {
	s := scanner{b: line}
	s.space()
	if !s.eat('{') {
		return nil, nil, false
	}
	members, inner, ok = s.members(members, 1, key, inner)
	if !ok || !s.end() {
		return nil, nil, false
	}
	return members, inner, true
}

// members reads the members of an object whose opening brace was read,
// through its closing brace, appending them to members; their values are
// at depth. (SplitObject's loop is this one without key and inner, kept
// apart so that the rebuild's parser does not pay for them.) The members of the value of a member named key (when key is
// not "") that is an object are appended to inner, after those of any
// member so named before are dropped.
func (s *scanner) members(members []Member, depth int, key string, inner []Member) (_, _ []Member, ok bool) {
	s.space()
	if s.eat('}') {
		return members, inner, true
	}
	for {
		if !s.eat('"') {
			return nil, nil, false
		}
		start := s.i
		if !s.str() {
			return nil, nil, false
		}
		k := s.b[start : s.i-1]
		if bytes.IndexByte(k, '\\') >= 0 {
			return nil, nil, false
		}
		s.space()
		if !s.eat(':') {
			return nil, nil, false
		}
		s.space()
		start = s.i
		switch {
		case key != "" && string(k) == key && s.eat('{'):
			// An object's members, as object(depth) would read them, kept.
			if inner, _, ok = s.members(inner[:0], depth+1, "", nil); !ok {
				return nil, nil, false
			}
		case key != "" && string(k) == key:
			inner = inner[:0]
			fallthrough
		default:
			if !s.value(depth) {
				return nil, nil, false
			}
		}
		members = append(members, Member{Key: k, Value: s.b[start:s.i]})
		s.space()
		if s.eat('}') {
			return members, inner, true
		}
		if !s.eat(',') {
			return nil, nil, false
		}
		s.space()
	}
}

// Lookup returns the value of the last member named key, as encoding/json
// keeps the last of repeated names.
func Lookup(members []Member, key string) ([]byte, bool) {
	for i := len(members) - 1; i >= 0; i-- {
		if string(members[i].Key) == key {
			return members[i].Value, true
		}
	}
	return nil, false
}

// PlainString returns the text of a JSON string value without escapes; ok
// is false for a string with escapes and for any other value, which the
// caller decodes with encoding/json. It depends on value being one whole
// JSON value (a member's value from SplitObject), and does not check its
// UTF-8.
func PlainString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || bytes.IndexByte(value, '\\') >= 0 {
		return "", false
	}
	return string(value[1 : len(value)-1]), true
}
