package views

import "strings"

// Base64 in a string is data, not words: a screenshot pasted into a
// session comes as a data: URL (data:image/png;base64,iVBOR...), and a
// tool's output may hold any base64. writeText leaves it out of the text
// that search and titles read, writing base64Cut in its place, and keeps
// the words around it.
//
// A blob is:
//   - the payload of a base64 data: URL, whatever its length: the run of
//     base64 characters after ";base64," in "data:MEDIA;base64,";
//   - any other run of at least minBase64Run base64 characters (A-Z, a-z,
//     0-9, + / and base64url's - _, = padding) with no other character
//     in it, that holds an upper-case letter, a lower-case one and a
//     digit, as base64 of any data that long does: a long run of lower
//     case or a snake_case name is kept (a path of that length with no
//     dot in it, /A1/b2/..., would be cut).
//
// Base64 wrapped in lines (76 characters, as MIME and PEM write it) is
// kept: its lines are shorter than a blob.
const minBase64Run = 256

// base64Cut stands for a blob: a mark for a person, and no word for
// search (a separator to both tokenizers).
const base64Cut = "…"

// base64DataURL is what precedes a data: URL's base64 payload, and
// maxMediaType how far before it "data:" may be (the media type and its
// parameters: image/svg+xml;charset=utf-8).
const (
	base64DataURL = ";base64,"
	maxMediaType  = 128
)

var isBase64Char = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
	}
	return t
}()

// writeText appends s to b without its base64 blobs.
func writeText(b *strings.Builder, s string) {
	if len(s) < minBase64Run && !strings.Contains(s, base64DataURL) {
		b.WriteString(s)
		return
	}
	f := blobFinder{s: s, run: -1}
	last := 0
	for {
		start, end := f.next(last)
		if start < 0 {
			break
		}
		b.WriteString(s[last:start])
		b.WriteString(base64Cut)
		last = end
	}
	b.WriteString(s[last:])
}

// blobFinder finds the blobs of s in order. It keeps the next long run
// it found, so that many data: URLs before it do not each look for it
// again.
type blobFinder struct {
	s             string
	run, runEnd   int  // the next long run at or after the last asked for; run -1 when not looked for
	noRun         bool // there is none
	noDataURL     bool // no data: URL payload is left
	dataURLSearch int  // where to look for the next data: URL from
}

// next returns the first blob that starts at or after from: its start
// and end, or -1.
func (f *blobFinder) next(from int) (start, end int) {
	if !f.noRun && f.run < from {
		f.run, f.runEnd = longRun(f.s, from)
		f.noRun = f.run < 0
	}
	ds, de := -1, -1
	if !f.noDataURL {
		ds, de = f.dataURL(from)
	}
	switch {
	case ds >= 0 && (f.noRun || ds < f.run):
		return ds, de
	case !f.noRun:
		return f.run, f.runEnd
	}
	return -1, -1
}

// dataURL finds the first payload of a base64 data: URL at or after from.
func (f *blobFinder) dataURL(from int) (start, end int) {
	s := f.s
	for i := max(from, f.dataURLSearch); ; {
		k := strings.Index(s[i:], base64DataURL)
		if k < 0 {
			f.noDataURL = true
			return -1, -1
		}
		start = i + k + len(base64DataURL)
		end = start
		for end < len(s) && isBase64Char[s[end]] {
			end++
		}
		head := s[max(0, i+k-maxMediaType) : i+k]
		if d := strings.LastIndex(head, "data:"); end > start && d >= 0 && !strings.ContainsAny(head[d:], " \t\r\n\"'<>") {
			f.dataURLSearch = end
			return start, end
		}
		i = start
	}
}

// longRun finds the first run of s, at or after from, of at least
// minBase64Run base64 characters with upper case, lower case and a digit
// in it. It looks at every minBase64Run-th byte, and at the bytes around
// it only when it is a base64 character, so that text of words costs a
// few reads per minBase64Run bytes: a run that long that starts before
// a byte that is not base64 ends before it.
func longRun(s string, from int) (start, end int) {
	for i := from; i+minBase64Run <= len(s); {
		probe := i + minBase64Run - 1
		if !isBase64Char[s[probe]] {
			i = probe + 1
			continue
		}
		start = probe
		for start > i && isBase64Char[s[start-1]] {
			start--
		}
		end = probe + 1
		for end < len(s) && isBase64Char[s[end]] {
			end++
		}
		if end-start >= minBase64Run && mixed(s[start:end]) {
			return start, end
		}
		i = end + 1
	}
	return -1, -1
}

// mixed reports whether s holds an upper-case letter, a lower-case one
// and a digit.
func mixed(s string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(s) && !(upper && lower && digit); i++ {
		c := s[i]
		upper = upper || 'A' <= c && c <= 'Z'
		lower = lower || 'a' <= c && c <= 'z'
		digit = digit || '0' <= c && c <= '9'
	}
	return upper && lower && digit
}
