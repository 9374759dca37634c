package log

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// A line ended with TornMark is read as what comes before the mark: the
// entry it is, a torn write (not complete JSON) skipped without a report,
// or a bad line. Lines keep their numbers, so the ids derived from them do
// not move. The mark elsewhere in a line is no mark.
func TestReadTornMark(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/main/anchors/001_start/messages.jsonl": strings.Join([]string{
			`{"role":"user","content":"one"}`,
			`{"role":"user","content":"torn` + TornMark,
			`{"role":"user","content":"whole"}` + TornMark,
			`{"role":"user","content":"crlf` + TornMark + "\r",
			"{\"kind\":\"message\",\"payload\":{\"content\":\"\xe4\xbd" + TornMark,
			`{"no":"kind"}` + TornMark,
			`[1,2]` + TornMark,
			TornMark,
			`{"role":"user","content":"` + TornMark + `"}`,
			`{"role":"user"` + TornMark + `,"content":"x"}`,
			`{"role":"user"}`,
		}, "\n") + "\n",
	})
	got, bad := readAll(t, mustTape(t, ws, "main"))
	var read []string
	for _, e := range got[1:] {
		read = append(read, e.ID)
	}
	want := []string{"001_start/messages.jsonl:1", "001_start/messages.jsonl:3", "001_start/messages.jsonl:9", "001_start/messages.jsonl:11"}
	if strings.Join(read, " ") != strings.Join(want, " ") {
		t.Errorf("entries read %q, want %q", read, want)
	}
	var badLines []int
	for _, le := range bad {
		badLines = append(badLines, le.Line)
	}
	if want := []int{6, 7, 10}; !slices.Equal(badLines, want) {
		t.Errorf("bad lines %v (%v), want %v: complete JSON that is no entry, and a mark inside a line", badLines, bad, want)
	}
	if whole := got[2]; string(whole.Payload) != `{"role":"user","content":"whole"}` || whole.Pos.Length != len(whole.Payload) {
		t.Errorf("the whole line before a mark read as %s (length %d)", whole.Payload, whole.Pos.Length)
	}
}

func TestParseEntryTornMark(t *testing.T) {
	for _, tt := range []struct {
		line    string
		kind    string // the entry's, or "" for an error
		wantErr error
	}{
		{`{"kind":"event","payload":{}}` + TornMark + "\n", "event", nil},
		{`{"kind":"event","payl` + TornMark + "\n", "", ErrTornLine},
		{`{"kind":"event","payl` + TornMark + "\r\n", "", ErrTornLine},
		{`{"kind":1}` + TornMark, "", ErrInvalid},
		{TornMark + "\n", "", ErrBlankLine},
	} {
		e, err := ParseEntry([]byte(tt.line))
		if e.Kind != tt.kind || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
			t.Errorf("ParseEntry(%q) = %q, %v; want %q, %v", tt.line, e.Kind, err, tt.kind, tt.wantErr)
		}
	}
	if !errors.Is(ErrTornLine, ErrBlankLine) {
		t.Error("ErrTornLine does not wrap ErrBlankLine: callers that skip blank lines would stop at a torn one")
	}
}

// FuzzTornMark checks the mark's promise on any line: a line that is an
// entry reads the same with the mark after it, and every cut of it that is
// not complete JSON, ended with the mark, is a torn write.
func FuzzTornMark(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s), uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, line []byte, cut uint) {
		if bytes.ContainsAny(line, "\n") {
			return
		}
		want, err := ParseEntry(line)
		if err != nil {
			return
		}
		got, err := ParseEntry(append(bytes.Clone(line), TornMark...))
		if err != nil || got.Kind != want.Kind || got.ID != want.ID || !bytes.Equal(got.Payload, want.Payload) {
			t.Fatalf("ParseEntry(%q + mark) = %+v, %v; want %+v", line, got, err, want)
		}
		part := line[:int(cut%uint(len(line)+1))]
		if tornWrite(part) {
			if _, err := ParseEntry(append(bytes.Clone(part), TornMark...)); !errors.Is(err, ErrTornLine) && !errors.Is(err, ErrBlankLine) {
				t.Fatalf("ParseEntry(%q + mark) = %v; want a torn line", part, err)
			}
		}
	})
}
