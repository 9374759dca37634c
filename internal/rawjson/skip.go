package rawjson

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The trusting half of the package: walking JSON text that encoding/json
// (or the scanner) has already checked, by skipping over values without
// checking them again. A string is skipped by looking for its closing
// quote with bytes.IndexByte, which does not look at each byte in Go code.
// On text that is not valid JSON these functions find something, never
// fail, and what they find is meaningless.

// ArrayItems calls fn with the text of each item of the array b, in order.
// b that is not an array calls fn for nothing.
//
// With ObjectMembers and String, it buys the decode of an imported
// transcript's content blocks: decoding them with encoding/json checked
// and scanned every tool output (tens of KB) twice more after the line's
// own decode, half of an import's CPU. BenchmarkObjectMembers (medians of
// 6): the blocks of a message with a 10 KB tool result read in 12 µs,
// against 55 µs for encoding/json's Unmarshal into structs (and
// BenchmarkImportClaude in importer). It depends on b being valid JSON, as
// a part of a line encoding/json decoded is. FuzzArrayItems holds it to
// encoding/json.
func ArrayItems(b []byte, fn func(item []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		end := skipValue(b, i)
		fn(b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// ObjectMembers calls fn with each member of the object b, in order: its
// key as written between the quotes (escapes and all), and its value's
// text. b that is not an object calls fn for nothing. A caller that wants
// encoding/json's reading keeps the last of repeated keys.
//
// What it buys and depends on is ArrayItems'. FuzzObjectMembers holds it
// to encoding/json.
func ObjectMembers(b []byte, fn func(key, value []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		kend := skipString(b, i)
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		fn(key, b[i:vend])
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// String decodes a JSON string value as encoding/json decodes it into a
// string; ok is false for any other value (null included). A string
// without escapes, of valid UTF-8, is copied; one with escapes is decoded
// by DecodeObject's decoder, which leaves to encoding/json what it leaves
// (surrogates that pair with nothing, invalid UTF-8). An import's texts
// have escapes (a newline), and encoding/json checked each of them whole
// before decoding it: 4% of an import's CPU (perf, tape import claude of
// 220 MB). It depends on v being one whole valid JSON value, as a
// member's value from ObjectMembers is. FuzzString holds it to
// encoding/json.
func String(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if s := v[1 : len(v)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	d := decoder{b: v}
	if s, ok := d.str(); ok && d.i == len(v) {
		return s, true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// skipSpace returns the index of the first byte at or after i that is not
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value that starts at i.
func skipValue(b []byte, i int) int {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++ // a number, true, false, null
	}
	return i
}

// skipString returns the index just past the string whose opening quote is
// at i, closing quote included; len(b) if it is not closed. A quote ends
// it unless an odd run of backslashes comes before it: looking for quotes
// alone, with bytes.IndexByte, skips long text many times faster than
// stepping through its escapes.
func skipString(b []byte, i int) int {
	i++
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b)
		}
		i += k
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}
