package wording

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 entries", 1: "1 entry", 2: "2 entries", 1000: "1000 entries"} {
		if got := Plural(n, "entry", "entries"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"  hello\n\tworld  ", 0, "hello world"},
		{"hello world", 11, "hello world"},
		{"hello world", 10, "hello wor…"},
		{"hello world", 6, "hello…"},
		{"hello world", 7, "hello …"},
		{"hello\n\n world", 8, "hello w…"},
		{"错误很多 真的", 4, "错误很…"},
		{"ab", 1, "…"},
		{"a", 1, "a"},
		{"\u00a0x\u2028y", 0, "x y"}, // Unicode white space folds too
		{"", 5, ""},
	} {
		if got := OneLine(tc.s, tc.n); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// OneLine cut to n is the whole text folded and then cut, however long.
func FuzzOneLine(f *testing.F) {
	f.Add("a  b\nc", 3)
	f.Add("错误 ab", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 50
		folded := strings.Join(strings.Fields(s), " ")
		if !utf8.ValidString(s) {
			return // Fields and range read invalid bytes alike, but the cut's arithmetic is about runes
		}
		want := folded
		if n > 0 && utf8.RuneCountInString(folded) > n {
			want = string([]rune(folded)[:n-1]) + "…"
		}
		if got := OneLine(s, n); got != want {
			t.Fatalf("OneLine(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}

func TestDollars(t *testing.T) {
	t.Parallel()
	for usd, want := range map[float64]string{0: "$0.00", 0.004: "<$0.01", 0.005: "$0.01", 0.0657: "$0.07", 30: "$30.00", 1234.567: "$1,234.57", 1e6: "$1,000,000.00"} {
		if got := Dollars(usd); got != want {
			t.Errorf("Dollars(%v) = %q; want %q", usd, got, want)
		}
	}
}

func TestHoursMinutes(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0m", -time.Minute: "0m", 45*time.Minute + 59*time.Second: "45m",
		3*time.Hour + 7*time.Minute: "3h 07m", 27 * time.Hour: "27h 00m"} {
		if got := HoursMinutes(d); got != want {
			t.Errorf("HoursMinutes(%v) = %q, want %q", d, got, want)
		}
	}
}

// What a transcript holds reaches a terminal escaped where it could act
// on it: control characters, and the bidi overrides that show a name as
// another (issue 29 found U+202E printed raw in doctor's lines).
func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text, 中文", "plain text, 中文"},
		{"a\x1b]0;title\x07b", `a\x1b]0;title\x07b`},
		{"tab\there", `tab\x09here`},
		{"evil\u202Etxt.exe", `evil\u202etxt.exe`},
		{"iso\u2066late\u2069", `iso\u2066late\u2069`},
		{"line\u2028sep", `line\u2028sep`},
		{"שלום\u200F world", "שלום\u200F world"}, // a right-to-left mark is text
		{"👩\u200D💻", "👩\u200D💻"},                 // a joiner is part of an emoji
		{"\u00ADsoft", "\u00ADsoft"},             // a soft hyphen
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
