package remote

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"
)

func TestTSQuery(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"flush", `'flush'`},
		{"Flush Timeout", `'flush' & 'timeout'`},
		{`"database transaction"`, `('database' <-> 'transaction')`},
		{"ret*", `'ret':*`},
		{"错误", `'错误'`},
		{"错", `'错':*`},
		{"发生了错误", `('发生' <-> '生了' <-> '了错' <-> '错误')`},
		{"naïve Café", `'naive' & 'cafe'`},
		{"it's", `('it' <-> 's')`},
		{`a\b`, `('a' <-> 'b')`},
		{"fix_42 /usr/bin", `('fix' <-> '42') & ('usr' <-> 'bin')`},
		{"NEAR( a:b -x AND", `'near' & ('a' <-> 'b') & 'x' & 'and'`},
	} {
		got, ok := tsQuery(tc.query)
		if !ok || got != tc.want {
			t.Errorf("tsQuery(%q) = %q, %v; want %q", tc.query, got, ok, tc.want)
		}
	}
	for _, q := range []string{"", "  ", `""`, "*", "!?"} {
		if got, ok := tsQuery(q); ok {
			t.Errorf("tsQuery(%q) = %q; want no query", q, got)
		}
	}
}

func TestSearchVector(t *testing.T) {
	v := searchVector("TestFlush fails: 发生了错误 in TestFlush", "Test Flush")
	got := v.String()
	for _, lexeme := range []string{"'testflush':1A,9A", "'flush':11B", "'错误':6A", "'误':7A", "'发生':3A"} {
		if !strings.Contains(got, lexeme) {
			t.Errorf("searchVector = %s; want %s in it", got, lexeme)
		}
	}
	checkVector(t, v)
	if v := searchVector("", ""); v.Valid {
		t.Errorf("the vector of no text is %s, want NULL", v.String())
	}
}

// A text far over PostgreSQL's bounds gives a vector within them.
func TestSearchVectorBounds(t *testing.T) {
	var b strings.Builder
	for i := range 100000 {
		b.WriteString("the word")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteString(" ")
	}
	b.WriteString(strings.Repeat("long", 1000))
	v := searchVector(b.String(), "")
	checkVector(t, v)
	size := 0
	for _, l := range v.Lexemes {
		size += len(l.Word) + 8
	}
	if size > maxVectorBytes || !slices.ContainsFunc(v.Lexemes, func(l pgtype.TSVectorLexeme) bool { return l.Word == "the" }) {
		t.Errorf("vector of %d lexemes, about %d bytes", len(v.Lexemes), size)
	}
}

// checkVector checks what PostgreSQL's binary input of a tsvector
// requires: lexemes sorted and unique, none empty or over 2,047 bytes, at
// most 256 positions each, strictly increasing, from 1 to 16,383.
func checkVector(t *testing.T, v pgtype.TSVector) {
	t.Helper()
	for i, l := range v.Lexemes {
		if l.Word == "" || len(l.Word) > maxLexemeBytes || !utf8.ValidString(l.Word) {
			t.Errorf("lexeme %q", l.Word)
		}
		if i > 0 && v.Lexemes[i-1].Word >= l.Word {
			t.Errorf("lexemes out of order: %q then %q", v.Lexemes[i-1].Word, l.Word)
		}
		if len(l.Positions) == 0 || len(l.Positions) > 256 {
			t.Errorf("lexeme %q has %d positions", l.Word, len(l.Positions))
		}
		for j, p := range l.Positions {
			if p.Position < 1 || p.Position > maxPosition || j > 0 && p.Position <= l.Positions[j-1].Position {
				t.Errorf("lexeme %q: positions %v", l.Word, l.Positions)
				break
			}
		}
	}
}

func FuzzSearchVector(f *testing.F) {
	for _, s := range []string{"TestFlush 发生了错误", "naïve café", "a\u0301b", "ー", "㌔メ", "x\x00y", "\xff\xfe"} {
		f.Add(s, "Test Flush")
	}
	f.Fuzz(func(t *testing.T, text, parts string) {
		checkVector(t, searchVector(text, parts))
	})
}

// A query's tsquery is the text ::tsquery reads as tape means it: terms
// joined by &, each a lexeme or a parenthesized <-> chain, every lexeme
// quoted with its quotes and backslashes escaped.
func FuzzTSQuery(f *testing.F) {
	for _, s := range []string{"flush", `"a b"`, "ret*", "错", "it's", `a\'b`, `"unbalanced`, "NEAR(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		q, ok := tsQuery(query)
		if !ok {
			return
		}
		for _, term := range strings.Split(q, " & ") {
			if strings.HasPrefix(term, "(") != strings.HasSuffix(term, ")") {
				t.Fatalf("tsQuery(%q) = %q: unbalanced term %q", query, q, term)
			}
			for _, lexeme := range strings.Split(strings.Trim(term, "()"), " <-> ") {
				lexeme = strings.TrimSuffix(lexeme, ":*")
				if len(lexeme) < 3 || lexeme[0] != '\'' || lexeme[len(lexeme)-1] != '\'' {
					t.Fatalf("tsQuery(%q) = %q: lexeme %q not quoted", query, q, lexeme)
				}
				body := lexeme[1 : len(lexeme)-1]
				for i := 0; i < len(body); i++ {
					switch body[i] {
					case '\\':
						i++
					case '\'':
						t.Fatalf("tsQuery(%q) = %q: an unescaped quote in %q", query, q, lexeme)
					}
				}
			}
		}
	})
}
