package copilot

import (
	"bytes"
	"encoding/json"
)

// A JSON number may be too large for a float64 (1e700): valid JSON, which
// the one pass over a line takes, but no value encoding/json, or a tape's
// reader, decodes. Copilot, writing from JavaScript, never writes one; a
// line that holds one is a bad line, and a document that does is kept as
// text, so that no entry holds a number nothing can read.

// hugeNumber reports whether the valid JSON text b holds a number that a
// float64 cannot hold. Only a number written with an exponent of three
// digits or more, or with 300 digits or more, can be one: the text
// between its strings is looked at for those (strings are skipped whole,
// by their quotes), and encoding/json decides the few that are.
func hugeNumber(b []byte) bool {
	if !mayBeHuge(b) {
		return false
	}
	var v any
	return json.Unmarshal(b, &v) != nil
}

// mayBeHuge reports whether the text of valid JSON b, outside its
// strings, holds an exponent of three digits or more, or a run of 300
// digits or more.
func mayBeHuge(b []byte) bool {
	for len(b) > 0 {
		q := bytes.IndexByte(b, '"')
		if q < 0 {
			q = len(b)
		}
		if suspect(b[:q]) {
			return true
		}
		if q == len(b) {
			return false
		}
		b = b[q+1:]
		// The string's end: the next quote not escaped.
		for {
			e := bytes.IndexByte(b, '"')
			if e < 0 {
				return false
			}
			n := 0
			for n < e && b[e-1-n] == '\\' {
				n++
			}
			b = b[e+1:]
			if n%2 == 0 {
				break
			}
		}
	}
	return false
}

// suspect reports whether JSON text without strings holds an exponent of
// three digits or more, or 300 digits in a row.
func suspect(t []byte) bool {
	run := 0
	for i, c := range t {
		switch {
		case c >= '0' && c <= '9':
			if run++; run >= 300 {
				return true
			}
			continue
		case c == 'e' || c == 'E':
			j := i + 1
			if j < len(t) && (t[j] == '+' || t[j] == '-') {
				j++
			}
			if j+2 < len(t) && isDigit(t[j]) && isDigit(t[j+1]) && isDigit(t[j+2]) {
				return true
			}
		}
		run = 0
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
