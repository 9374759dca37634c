package views

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// blob is n bytes of random data in base64, as an image's would be.
func blob(n int, enc *base64.Encoding) string {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	return enc.EncodeToString(data)
}

func TestWriteTextCutsBase64(t *testing.T) {
	long := blob(300, base64.StdEncoding) // 400 characters
	tests := []struct {
		name, in, want string
	}{
		{"words", "the build failed: exit 2", "the build failed: exit 2"},
		{"a data: URL, words around it", "see data:image/png;base64," + long + " zorblax", "see data:image/png;base64,… zorblax"},
		{"a short data: URL", `<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`, `<img src="data:image/gif;base64,…">`},
		{"a data: URL with parameters", "data:image/svg+xml;charset=utf-8;base64,PHN2Zz4=", "data:image/svg+xml;charset=utf-8;base64,…"},
		{"base64 that is no data: URL's payload, short", "the flag ;base64,abc stays", "the flag ;base64,abc stays"},
		{"a long run in a tool's output", "$ base64 shot.png\n" + long + "\n$ echo done", "$ base64 shot.png\n…\n$ echo done"},
		{"base64url, a JWT's part", "token " + blob(300, base64.RawURLEncoding) + ".sig", "token ….sig"},
		{"one short of a blob", "x " + long[:minBase64Run-1] + " y", "x " + long[:minBase64Run-1] + " y"},
		{"a long run of lower case", strings.Repeat("abcdefgh", 40), strings.Repeat("abcdefgh", 40)},
		{"a long path with a dot", strings.Repeat("/usr/Lib2", 20) + ".d" + strings.Repeat("/usr/Lib2", 20), strings.Repeat("/usr/Lib2", 20) + ".d" + strings.Repeat("/usr/Lib2", 20)},
		{"wrapped in lines, as MIME writes it", wrap(long, 76), wrap(long, 76)},
		{"two blobs", long + " and " + long + " end", "… and … end"},
		{"Chinese around a blob", "截图 data:image/jpeg;base64," + long + " 错误", "截图 data:image/jpeg;base64,… 错误"},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeText(&b, tt.in)
		if got := b.String(); got != tt.want {
			t.Errorf("%s: writeText(%.80q...) = %.120q, want %.120q", tt.name, tt.in, got, tt.want)
		}
		if got, want := b.String(), naiveWriteText(tt.in); got != want {
			t.Errorf("%s: writeText = %.120q, the naive reading %.120q", tt.name, got, want)
		}
	}
}

func wrap(s string, n int) string {
	var lines []string
	for len(s) > n {
		lines, s = append(lines, s[:n]), s[n:]
	}
	return strings.Join(append(lines, s), "\n")
}

// A Claude image block's data is left out whole, and so is a data: URL
// in the OpenAI shape the importer writes: the words of the message stay.
func TestWriteStringsImages(t *testing.T) {
	long := blob(3000, base64.StdEncoding)
	for _, payload := range []string{
		`{"role":"user","content":[{"type":"text","text":"why is the zorblax red"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + long + `"}}]}`,
		`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + long + `"}},{"type":"text","text":"why is the zorblax red"}]}`,
	} {
		text := MessageText([]byte(payload))
		if !strings.Contains(text, "why is the zorblax red") || strings.Contains(text, long[100:140]) || len(text) > 200 {
			t.Errorf("the message's text: %.300q", text)
		}
	}
}

// naiveWriteText is writeText's rule, read byte by byte: every maximal
// run of base64 characters that is a data: URL's payload, or long and
// mixed, is cut.
func naiveWriteText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isBase64Char[s[i]] {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64Char[s[j]] {
			j++
		}
		run := s[i:j]
		dataURL := false
		if strings.HasSuffix(s[:i], base64DataURL) {
			head := s[max(0, i-len(base64DataURL)-maxMediaType) : i-len(base64DataURL)]
			d := strings.LastIndex(head, "data:")
			dataURL = d >= 0 && !strings.ContainsAny(head[d:], " \t\r\n\"'<>")
		}
		if dataURL || len(run) >= minBase64Run && mixed(run) {
			b.WriteString(base64Cut)
		} else {
			b.WriteString(run)
		}
		i = j
	}
	return b.String()
}

// FuzzWriteText holds writeText, which skips through text, to the rule
// read byte by byte.
func FuzzWriteText(f *testing.F) {
	f.Add("see data:image/png;base64," + blob(300, base64.StdEncoding) + " zorblax")
	f.Add(";base64,data:x;base64,abc;base64,AAAA data:;base64,=")
	f.Add(strings.Repeat("Ab1", 90) + " " + strings.Repeat("ab1", 90))
	f.Add(strings.Repeat("a", 255) + "B1" + strings.Repeat("+", 300))
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		writeText(&b, s)
		if got, want := b.String(), naiveWriteText(s); got != want {
			t.Fatalf("writeText(%q) = %q, byte by byte %q", s, got, want)
		}
	})
}

// BenchmarkWriteText is the cost of looking for base64 in the text of a
// long tool output, which has none.
func BenchmarkWriteText(b *testing.B) {
	text := strings.Repeat("FAIL: TestFlush (0.01s)\n    store_test.go:42: got 3 entries, want 4; the index is behind\n", 2000)
	b.SetBytes(int64(len(text)))
	var out strings.Builder
	for b.Loop() {
		out.Reset()
		writeText(&out, text)
	}
}
