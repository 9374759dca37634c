package rawjson

// Quotes follows JSON text a byte at a time and says which bytes belong
// to strings. The scanners that look only at brackets and commas outside
// strings (MCP's depth count and its search for a member's end, serve's
// pretty printer for text too deep for encoding/json) share it rather than
// each keep the escape rule. It checks nothing: on text that is not JSON
// it still answers, as the JSON lexer would have read the bytes so far.
type Quotes struct{ in, escaped bool }

// Step takes the next byte and reports whether it is part of a string,
// its two quotes included.
func (q *Quotes) Step(b byte) bool {
	switch {
	case q.escaped:
		q.escaped = false
	case q.in:
		switch b {
		case '\\':
			q.escaped = true
		case '"':
			q.in = false
		}
	case b == '"':
		q.in = true
	default:
		return false
	}
	return true
}

// In reports whether the bytes taken so far end inside a string: after an
// opening quote, true; after the closing one, false.
func (q *Quotes) In() bool { return q.in }
