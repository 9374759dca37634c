package log

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseEntry(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    Entry // Payload and Meta compared as JSON text
		wantErr string
	}{
		{name: "envelope", line: `{"id":"01J","kind":"message","payload":{"role":"user","content":"hi"},"meta":{"a":1},"date":"2026-01-02T03:04:05.5Z"}`,
			want: Entry{ID: "01J", Kind: "message", Payload: json.RawMessage(`{"role":"user","content":"hi"}`), Meta: json.RawMessage(`{"a":1}`), Date: "2026-01-02T03:04:05.5Z"}},
		{name: "bub integer id", line: `{"id": 12, "kind": "tool_call", "payload": {"calls": []}, "meta": {}, "date": "2025-01-15T10:30:00.123456+00:00"}`,
			want: Entry{ID: "12", Kind: "tool_call", Payload: json.RawMessage(`{"calls": []}`), Meta: json.RawMessage(`{}`), Date: "2025-01-15T10:30:00.123456+00:00"}},
		{name: "missing id and date", line: `{"kind":"event","payload":{"name":"x"}}`,
			want: Entry{Kind: "event", Payload: json.RawMessage(`{"name":"x"}`)}},
		{name: "bare chat message", line: `{"role":"user","content":"你好"}`,
			want: Entry{Kind: "message", Payload: json.RawMessage(`{"role":"user","content":"你好"}`)}},
		{name: "unknown kind kept", line: `{"kind":"handoff_note","payload":{}}`,
			want: Entry{Kind: "handoff_note", Payload: json.RawMessage(`{}`)}},
		{name: "byte order mark", line: "\xef\xbb\xbf{\"kind\":\"event\",\"payload\":{}}",
			want: Entry{Kind: "event", Payload: json.RawMessage(`{}`)}},
		{name: "null meta", line: `{"kind":"event","payload":{},"meta":null}`,
			want: Entry{Kind: "event", Payload: json.RawMessage(`{}`)}},
		{name: "crlf", line: "{\"kind\":\"event\",\"payload\":{}}\r\n",
			want: Entry{Kind: "event", Payload: json.RawMessage(`{}`)}},
		{name: "not json", line: `hello`, wantErr: "not a JSON object"},
		{name: "array", line: `[1,2]`, wantErr: "not a JSON object"},
		{name: "null", line: `null`, wantErr: "not a JSON object"},
		{name: "truncated", line: `{"kind":"event","payl`, wantErr: "invalid JSON"},
		{name: "invalid utf8", line: "{\"kind\":\"event\",\"payload\":{\"t\":\"\xff\"}}", wantErr: "not valid UTF-8"},
		{name: "raw NUL", line: "{\"kind\":\"event\",\"payload\":{\"t\":\"a\x00b\"}}", wantErr: "invalid JSON"},
		{name: "no kind no role", line: `{"payload":{}}`, wantErr: `no "kind"`},
		{name: "kind not a string", line: `{"kind":3,"payload":{}}`, wantErr: `"kind" is not a non-empty string`},
		{name: "two objects interleaved", line: `{"kind":"event","payload":{"a":1}}{"kind":"ev`, wantErr: "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEntry([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("ParseEntry(%q) error = %v, want one containing %q", tt.line, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseEntry(%q): %v", tt.line, err)
			}
			if got.ID != tt.want.ID || got.Kind != tt.want.Kind || got.Date != tt.want.Date ||
				string(got.Payload) != string(tt.want.Payload) || string(got.Meta) != string(tt.want.Meta) {
				t.Errorf("ParseEntry(%q) =\n %+v\nwant\n %+v", tt.line, got, tt.want)
			}
		})
	}
}

func TestParseEntryBlank(t *testing.T) {
	for _, line := range []string{"", "   ", "\t\r\n"} {
		if _, err := ParseEntry([]byte(line)); !errors.Is(err, ErrBlankLine) {
			t.Errorf("ParseEntry(%q) error = %v, want ErrBlankLine", line, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2025, 1, 15, 10, 30, 0, 123456000, time.UTC)
	for _, s := range []string{
		"2025-01-15T10:30:00.123456Z",
		"2025-01-15T10:30:00.123456+00:00",
		"2025-01-15T18:30:00.123456+08:00",
		"2025-01-15T10:30:00.123456",
		"2025-01-15 10:30:00.123456",
	} {
		got, err := ParseTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseTime("yesterday"); err == nil {
		t.Error("ParseTime(\"yesterday\") succeeded, want an error")
	}
	if got := FormatTime(want); got != "2025-01-15T10:30:00.123456Z" {
		t.Errorf("FormatTime = %q", got)
	}
}

// FuzzParseEntry checks that no line crashes the parser and that what it
// accepts is an entry a writer can write back.
func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"kind":"message","payload":{"role":"user","content":"hi"},"meta":{},"date":"2025-01-15T10:30:00+00:00"}`,
		`{"role":"user","content":"错误"}`, `{"kind":"x"}`, `[]`, `null`, "{\"kind\":\"\xff\"}", `{"kind":"a","id":{"x":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseEntry(line)
		if err != nil {
			return
		}
		if e.Kind == "" {
			t.Fatalf("ParseEntry(%q) accepted an entry without a kind", line)
		}
		if e.Payload != nil && !json.Valid(e.Payload) {
			t.Fatalf("ParseEntry(%q) payload %q is not valid JSON", line, e.Payload)
		}
	})
}

// FuzzReadFile writes arbitrary bytes as a tape file and reads the tape: the
// reader must not crash, must return every line that parses, and report
// every other non-blank complete line, each exactly once.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte("{\"kind\":\"event\",\"payload\":{}}\nbad\n\n{\"role\":\"user\",\"content\":\"x\"}\n{\"torn"))
	f.Add([]byte("\xff\xfe\n{}\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := filepath.Join(t.TempDir(), DirName)
		writeTestFile(t, filepath.Join(dir, "tapes/t/anchors/001_a/x.jsonl"), string(data))
		ws, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		tp := mustTape(t, ws, "t")
		var good, bad int
		for e, err := range tp.All(context.Background()) {
			var le *LineError
			switch {
			case errors.As(err, &le):
				bad++
			case err != nil:
				t.Fatal(err)
			case e.Pos.File == "x.jsonl":
				good++
			}
		}
		wantGood, wantBad := 0, 0
		complete := data[:bytes.LastIndexByte(data, '\n')+1]
		for line := range bytes.Lines(complete) {
			if _, err := ParseEntry(line); err == nil {
				wantGood++
			} else if !errors.Is(err, ErrBlankLine) {
				wantBad++
			}
		}
		if good != wantGood || bad != wantBad {
			t.Fatalf("read %d entries and %d bad lines, want %d and %d, from %q", good, bad, wantGood, wantBad, data)
		}
	})
}

func TestLineReader(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", 200) + `"}`
	data := "{\"n\":1}\n" + long + "\n\r\n{\"n\":3}\r\n{\"torn"
	lr := newLineReader(strings.NewReader(data), 100)
	type got struct {
		text    string
		no      int
		offset  int64
		tooLong int64
	}
	want := []got{
		{`{"n":1}`, 1, 0, 0},
		{"", 2, 8, int64(len(long))},
		{"", 3, int64(9 + len(long)), 0},
		{`{"n":3}`, 4, int64(11 + len(long)), 0},
	}
	var lines []got
	for {
		line, err := lr.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		lines = append(lines, got{string(line.data), line.no, line.offset, line.tooLong})
	}
	if len(lines) != len(want) {
		t.Fatalf("lines = %+v, want %+v (the torn tail left unread)", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
}

// A LineReader leaves the tail after the last newline unread, and says
// what it is (Tail): whole when it is within the cap, its length alone
// when it is over; nothing for a file that ends with a newline.
func TestLineReaderTail(t *testing.T) {
	for _, tc := range []struct {
		data, tail string
		n          int64
	}{
		{"{\"n\":1}\n{\"torn", `{"torn`, 6},
		{`[{"role":"user","content":"修复"}]`, `[{"role":"user","content":"修复"}]`, 36},
		{"{\"n\":1}\n" + strings.Repeat("x", 150), "", 150},
		{"{\"n\":1}\n", "", 0},
		{"", "", 0},
	} {
		lr := NewLineReader(strings.NewReader(tc.data), 100, 0, 0)
		for {
			if _, err := lr.Next(); err != nil {
				break
			}
		}
		if tail, n := lr.Tail(); string(tail) != tc.tail || n != tc.n || tail == nil && tc.tail != "" {
			t.Errorf("Tail of %q = %q, %d; want %q, %d", tc.data, tail, n, tc.tail, tc.n)
		}
	}
}

// FuzzParseWhen: a bound given as a duration ago is never after now, and
// one given as a date is that date; anything else is an error, never a
// panic.
func FuzzParseWhen(f *testing.F) {
	for _, s := range []string{"2026-11-22T10:00:00Z", "2h", "3d", "1.5w", "-2h", "1e400d", "d", "", "yesterday"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseWhen(s, now)
		if err != nil || s == "" {
			return
		}
		if date, derr := ParseTime(s); derr == nil {
			if !got.Equal(date) {
				t.Fatalf("ParseWhen(%q) = %v, want the date %v", s, got, date)
			}
			return
		}
		if got.After(now) {
			t.Fatalf("ParseWhen(%q) = %v, after now (%v)", s, got, now)
		}
	})
}

func TestIOReasonLeavesOutThePath(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "statat", Path: "tapes/main/anchors/001_start/l.jsonl", Err: errors.New("path escapes from parent")}, "path escapes from parent"},
		{fmt.Errorf("open: %w", &fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}), "permission denied"},
		{&os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.ENOENT}, "no such file or directory"},
		{errors.New("not a regular file"), "not a regular file"},
	} {
		if got := IOReason(tc.err); got != tc.want {
			t.Errorf("IOReason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
