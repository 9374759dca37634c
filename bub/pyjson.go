package bub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// PythonJSON re-encodes a JSON value as Python's json.dumps(value,
// ensure_ascii=False) writes it, which is what Bub puts in the messages it
// sends: ", " and ": " between items, keys in the order they were written,
// non-ASCII text kept, floats in Python's repr. A model sees these bytes, so
// matching them keeps a context built by tape identical to Bub's.
func PythonJSON(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := pyValue(dec, &b); err != nil {
		return "", err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("bub: more than one JSON value")
	}
	return b.String(), nil
}

func pyValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("bub: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		return pyContainer(dec, b, t)
	case string:
		pyString(b, t)
	case json.Number:
		b.WriteString(pyNumber(t))
	case bool:
		b.WriteString(map[bool]string{true: "true", false: "false"}[t])
	case nil:
		b.WriteString("null")
	}
	return nil
}

// pyContainer writes an object or an array whose opening delimiter open
// was just read.
func pyContainer(dec *json.Decoder, b *strings.Builder, open json.Delim) error {
	isObject := open == '{'
	b.WriteRune(rune(open))
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if isObject {
			key, err := dec.Token()
			if err != nil {
				return fmt.Errorf("bub: %w", err)
			}
			pyString(b, key.(string))
			b.WriteString(": ")
		}
		if err := pyValue(dec, b); err != nil {
			return err
		}
	}
	closing, err := dec.Token()
	if err != nil {
		return fmt.Errorf("bub: %w", err)
	}
	b.WriteRune(rune(closing.(json.Delim)))
	return nil
}

// pyString writes s quoted as Python's json module does with
// ensure_ascii=False: only the quote, the backslash and C0 controls are
// escaped.
func pyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// pyNumber writes a JSON number as Python reads and writes it back: an
// integer as written, a number with a fraction or an exponent as a float
// repr (1.50 -> 1.5, 1e3 -> 1000.0, 1e-7 -> 1e-07).
func pyNumber(n json.Number) string {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0"
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // out of range: Python reads it as inf
		if strings.HasPrefix(s, "-") {
			return "-Infinity"
		}
		return "Infinity"
	}
	exp := strconv.FormatFloat(f, 'e', -1, 64)
	decpt, _ := strconv.Atoi(exp[strings.IndexByte(exp, 'e')+1:])
	if decpt < -4 || decpt >= 16 {
		return exp
	}
	fixed := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(fixed, ".") {
		fixed += ".0"
	}
	return fixed
}
