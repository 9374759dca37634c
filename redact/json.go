package redact

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
)

// separator goes between the strings of a JSON value scanned together:
// a newline on each side of a NUL, so that each string ends as a text
// does (most rules want a space, a quote or the end after a token, and a
// newline is a space), and no rule's secret spans it but gitleaks'
// private-key rule and this package's (which stops at a NUL); a finding
// that spans one anyway makes the strings be scanned one by one.
const separator = "\n\x00\n"

// JSON returns the JSON value raw with every secret in its strings (keys
// and values) replaced by [REDACTED:<kind>], and what was found; raw
// itself when nothing was. Everything else is kept byte for byte: the
// order of members, numbers, spacing. Strings are found in one pass over
// the bytes, at any depth; those that are JSON texts themselves are read
// as JSON too, down to maxNesting levels.
func (r *Redactor) JSON(raw []byte) ([]byte, []Finding) {
	spans, texts := stringsOf(raw)
	if len(spans) == 0 {
		return raw, nil
	}
	found := r.FindAll(withNested(texts, maxNesting))
	if len(found) == 0 {
		return raw, nil
	}
	return rewriteJSON(raw, spans, texts, NewReplacer(found, Forms), maxNesting), found
}

// stringsOf are the string tokens of a JSON text and what each decodes to.
func stringsOf(raw []byte) ([][2]int, []string) {
	spans := stringSpans(raw)
	texts := make([]string, len(spans))
	for i, s := range spans {
		texts[i] = decodeString(raw[s[0]:s[1]])
	}
	return spans, texts
}

// rewriteJSON is raw with found replaced in its strings: each string that
// is a JSON text (or JSON lines) rewritten as one, down to depth levels,
// so that a secret it holds under escapes of its own (\u0026, \/) goes
// too, then each string as text; a string that changed is encoded again.
func rewriteJSON(raw []byte, spans [][2]int, texts []string, rep *Replacer, depth int) []byte {
	out := make([]byte, 0, len(raw))
	last := 0
	for i, s := range spans {
		t := texts[i]
		if depth > 0 {
			t = rewriteNested(t, rep, depth-1)
		}
		t = rep.Replace(t)
		if t == texts[i] {
			continue
		}
		out = append(out, raw[last:s[0]]...)
		out = rawjson.AppendString(out, t)
		last = s[1]
	}
	if last == 0 {
		return raw
	}
	return append(out, raw[last:]...)
}

// rewriteNested is t rewritten as JSON when it is a JSON text or JSON
// lines (a line at a time); t itself otherwise.
func rewriteNested(t string, rep *Replacer, depth int) string {
	rewrite := func(doc string) string {
		spans, texts := stringsOf([]byte(doc))
		return string(rewriteJSON([]byte(doc), spans, texts, rep, depth))
	}
	switch {
	case !startsJSON(t):
		return t
	case json.Valid([]byte(t)):
		return rewrite(t)
	}
	var b strings.Builder
	for line := range strings.Lines(t) {
		body := strings.TrimSuffix(line, "\n")
		if l := strings.TrimSpace(body); startsJSON(l) && json.Valid([]byte(l)) {
			body = rewrite(body)
		}
		b.WriteString(body)
		if strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// startsJSON reports whether t, past its blanks, starts as an object or
// an array does.
func startsJSON(t string) bool {
	t = strings.TrimLeft(t, " \t\r\n")
	return t != "" && (t[0] == '{' || t[0] == '[')
}

// maxNesting bounds how deep JSON() looks into strings that are JSON
// texts themselves (a tool call's arguments; a result that is a JSON
// document): a secret inside is scanned as it reads there, not with the
// escapes of each level around it.
const maxNesting = 3

// withNested is texts and the strings of those that are JSON texts, or
// JSON lines (an MCP resource's entries), down to depth levels.
func withNested(texts []string, depth int) []string {
	all := texts
	if depth == 0 {
		return all
	}
	for _, t := range texts {
		for _, doc := range jsonDocs(t) {
			_, inner := stringsOf([]byte(doc))
			all = append(all, withNested(inner, depth-1)...)
		}
	}
	return all
}

// jsonDocs are the JSON objects and arrays t is: itself, or its lines.
func jsonDocs(t string) []string {
	if !startsJSON(t) {
		return nil
	}
	if json.Valid([]byte(t)) {
		return []string{t}
	}
	var docs []string
	for line := range strings.Lines(t) {
		if l := strings.TrimSpace(line); startsJSON(l) && json.Valid([]byte(l)) {
			docs = append(docs, l)
		}
	}
	return docs
}

// FindAll is the secrets of texts, each text on its own: no secret spans
// two. They are scanned in one pass, a NUL and a newline between them,
// and one by one when a finding spans that.
func (r *Redactor) FindAll(texts []string) []Finding {
	found := r.Find(strings.Join(texts, separator))
	if !spansStrings(found) {
		return found
	}
	found = nil
	for _, t := range texts {
		found = append(found, r.Find(t)...)
	}
	return Dedupe(found)
}

func spansStrings(found []Finding) bool {
	for _, f := range found {
		if strings.Contains(f.Secret, "\x00") {
			return true
		}
	}
	return false
}

// stringSpans are the byte ranges of the string tokens of a JSON text,
// quotes included. A string left open runs to the end.
func stringSpans(raw []byte) [][2]int {
	var spans [][2]int
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		start := i
		for i++; i < len(raw) && raw[i] != '"'; i++ {
			if raw[i] == '\\' {
				i++
			}
		}
		end := min(i+1, len(raw))
		spans = append(spans, [2]int{start, end})
		i = end - 1
	}
	return spans
}

// decodeString is the text of a JSON string token; one that does not
// decode is taken as written, between its quotes.
func decodeString(tok []byte) string {
	inner := tok[1:]
	if len(inner) > 0 && inner[len(inner)-1] == '"' {
		inner = inner[:len(inner)-1]
	}
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	if len(tok) >= 2 && tok[len(tok)-1] == '"' {
		if s, ok := rawjson.String(tok); ok {
			return s
		}
	}
	return string(inner)
}
