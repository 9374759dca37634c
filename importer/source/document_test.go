package source

import (
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// A held document closes at a line starting with "}", or at its last
// member's end, whose "}" it adds; a member that goes on, or a nested
// one, does not close it.
func TestHeldDocument(t *testing.T) {
	for _, tc := range []struct {
		name          string
		lines         []string
		closed, atEnd bool
		buf           string
	}{
		{"last member", []string{`  "a": 1,`, `  "b": [`, `    2`, `  ]`}, true, true, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}"},
		{"closing brace", []string{`  "a": 1,`, `}`}, true, false, "{\n  \"a\": 1,\n}\n"},
		{"still open", []string{`  "a": {`, `    "b": 1`}, false, false, "{\n  \"a\": {\n    \"b\": 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := OpenDocument(tapelog.RawLine{No: 3, Offset: 10}, []byte("s"))
			var closed, atEnd bool
			for i, l := range tc.lines {
				closed, atEnd = d.Add([]byte(l))
				if closed && i < len(tc.lines)-1 {
					t.Fatalf("closed at line %d of %d", i+1, len(tc.lines))
				}
			}
			if closed != tc.closed || atEnd != tc.atEnd || string(d.Buf) != tc.buf || d.Line != 3 || d.Offset != 10 {
				t.Errorf("closed %v, at its end %v, %q; want %v, %v, %q", closed, atEnd, d.Buf, tc.closed, tc.atEnd, tc.buf)
			}
		})
	}
	// A long document grows its buffer by doubling, never losing a line.
	d := OpenDocument(tapelog.RawLine{}, nil)
	for range 10000 {
		d.Add([]byte(`  "k": "` + strings.Repeat("x", 100) + `",`))
	}
	if n := strings.Count(string(d.Buf), "\n"); n != 10001 {
		t.Errorf("%d lines held, want 10001", n)
	}
}
