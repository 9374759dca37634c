package web

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// FuzzParsePlace: a live stream's place, as a browser sends it back in
// Last-Event-ID, is read back as it was written, nothing else is a
// place, and a place written holds no line break or NUL, whatever its
// id holds.
func FuzzParsePlace(f *testing.F) {
	for _, s := range []string{"002_review/3/m4", "001_a/0/", "../x/1/y", "001_a/-1/x", "001_a//", "/3/x", "001_a/3/004_b/file.jsonl:4", "999_z/12345678901234567890/x", "001_a/0/x",
		"001_a/3/x%0Adata:%20%3Cmeta%3E", "001_a/3/%zz", "001_a/3/x\ndata: y\r\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if written := (place{folder: "001_a", offset: 1, id: s}).String(); strings.ContainsAny(written, "\r\n\x00") {
			t.Fatalf("the place of id %q is written %q", s, written)
		}
		p, ok := parsePlace(s)
		if !ok {
			return
		}
		if _, _, valid := tapelog.ParseFolderName(p.folder); !valid || p.offset < 0 {
			t.Fatalf("parsePlace(%q) = %+v, which is no place", s, p)
		}
		back, ok := parsePlace(p.String())
		if !ok || back != p {
			t.Fatalf("parsePlace(%q) = %+v, whose String %q reads back as %+v, %v", s, p, p.String(), back, ok)
		}
	})
}

// FuzzChatEscapes: whatever a payload holds, the chat it makes renders
// without a panic, and no text of it reaches the page as markup.
func FuzzChatEscapes(f *testing.F) {
	for _, seed := range []struct{ kind, payload string }{
		{"message", `{"role":"user","content":"<script>alert(1)</script>"}`},
		{"tool_call", `{"calls":[{"id":"c","type":"function","function":{"name":"<b>x</b>","arguments":"{\"a\":\"\\\"><img src=x onerror=alert(1)>\"}"}}]}`},
		{"tool_result", `{"results":[{"tool_call_id":"c","content":"<iframe src=javascript:alert(1)>"}]}`},
		{"event", `{"name":"thinking","data":{"thinking":"</details><script>x</script>"}}`},
		{"event", `{"name":"run","data":{"model":"<i>m</i>","usage":{"input_tokens":1}}}`},
		{"anchor", `{"name":"<svg onload=alert(1)>","state":{"k":"<script>"}}`},
		{"error", `{"kind":"api","message":"<script>"}`},
		{"<odd kind>", `["<script>"]`},
	} {
		f.Add(seed.kind, seed.payload, "id<1>")
	}
	s, err := New(nil, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind, payload, id string) {
		if !json.Valid([]byte(payload)) {
			return
		}
		c := newChat("demo")
		items := c.add([]tapelog.Entry{
			{ID: id, Kind: kind, Payload: json.RawMessage(payload), Date: "2026-11-20T09:00:00Z"},
			{ID: id + "r", Kind: "tool_result", Payload: json.RawMessage(`{"results":[` + payload + `]}`)},
		})
		c.finish()
		var b bytes.Buffer
		for _, it := range items {
			if err := s.pages["tape"].ExecuteTemplate(&b, "item", it); err != nil {
				t.Fatal(err)
			}
		}
		page := b.String()
		for _, tag := range []string{"<script", "<img", "<iframe", "<svg", "<b>", "<i>"} {
			if strings.Contains(page, tag) {
				t.Fatalf("kind %q, payload %s: the page holds %s:\n%s", kind, payload, tag, page)
			}
		}
	})
}

// FuzzIndent: indent keeps JSON as written: what it does not fold is the
// same document, indented as json.Indent does to flatDepth, and what it
// writes stays within its limit (and a closing line's indentation).
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"[\"]"}],"c":{}}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `"x"`, ` [ 1 , 2 ] `, `{"a": nope}`} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, raw string, limit int) {
		limit = 1 + min(max(limit, 0), 1<<16)
		got, folded := indent(json.RawMessage(raw), limit)
		if len(got) > limit+2*flatDepth+1 || folded < 0 || folded > len(raw) {
			t.Fatalf("indent(%q, %d) = %d bytes, %d folded", raw, limit, len(got), folded)
		}
		if folded > 0 || !json.Valid([]byte(raw)) {
			return
		}
		var want, back bytes.Buffer
		if err := json.Compact(&want, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		if err := json.Compact(&back, []byte(got)); err != nil || back.String() != want.String() {
			t.Fatalf("indent(%q) = %q, which is another document (%v)", raw, got, err)
		}
		if depth(raw) <= flatDepth {
			want.Reset()
			_ = json.Indent(&want, []byte(raw), "", "  ")
			if got != strings.TrimRight(want.String(), " \t\r\n") { // json.Indent keeps trailing space
				t.Fatalf("indent(%q) = %q; json.Indent writes %q", raw, got, want.String())
			}
		}
	})
}

// depth is how deep raw JSON nests.
func depth(raw string) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, c := range []byte(raw) {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '[' || c == '{'):
			d++
			most = max(most, d)
		case !inString && (c == ']' || c == '}'):
			d--
		}
	}
	return most
}
