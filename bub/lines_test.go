package bub

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestParseLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line string
		wantID     string
		wantErr    string // "" for success
	}{
		{"entry", `{"id": 3, "kind": "message", "payload": {"role": "user", "content": "你好"}, "meta": {}, "date": "2025-06-01T08:00:01.5+00:00"}`, "3", ""},
		{"no meta no date", `{"id": 0, "kind": "event", "payload": {}}` + "\n", "0", ""},
		{"not JSON", `{"id": 1, "kind"`, "", "invalid JSON"},
		{"bare chat message", `{"role": "user", "content": "hi"}`, "", `no "kind"`},
		{"string id", `{"id": "7", "kind": "event", "payload": {}}`, "", "not an integer"},
		{"float id", `{"id": 1.5, "kind": "event", "payload": {}}`, "", "not an integer"},
		{"no id", `{"kind": "event", "payload": {}}`, "", `"id" is missing`},
		{"payload not an object", `{"id": 1, "kind": "event", "payload": [1]}`, "", "not a JSON object"},
		{"no payload", `{"id": 1, "kind": "event"}`, "", `"payload" is missing`},
		{"meta not an object", `{"id": 1, "kind": "event", "payload": {}, "meta": 3}`, "", `"meta" is not`},
		{"bad date", `{"id": 1, "kind": "event", "payload": {}, "date": "yesterday"}`, "", "not a date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseLine([]byte(tt.line))
			if tt.wantErr == "" {
				if err != nil || e.ID != tt.wantID {
					t.Errorf("got id %q, %v; want id %q", e.ID, err, tt.wantID)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := ParseLine([]byte("  \n")); !errors.Is(err, tapelog.ErrBlankLine) {
		t.Errorf("blank line: %v, want ErrBlankLine", err)
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	file := `{"id": 1, "kind": "anchor", "payload": {"name": "session/start", "state": {}}}` + "\n" +
		"\n" +
		`not json` + "\n" +
		`{"id": 2, "kind": "message", "payload": {"content": "中"}}` + "\n" +
		`{"id": 3, "kind": "mess` // Bub is still writing this line
	var got []string
	for l, err := range Lines(context.Background(), strings.NewReader(file), "t.jsonl") {
		if err != nil {
			var le *tapelog.LineError
			if !errors.As(err, &le) {
				t.Fatalf("not a LineError: %v", err)
			}
			got = append(got, "bad:"+strconv.Itoa(le.Line)+":"+strconv.FormatInt(le.Offset, 10))
			continue
		}
		got = append(got, l.Entry.ID+"@"+strconv.Itoa(l.Line))
	}
	want := "1@1 bad:3:80 2@4"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	// The last line, once whole, is read even without its newline.
	n := 0
	for _, err := range Lines(context.Background(), strings.NewReader(`{"id": 3, "kind": "event", "payload": {}}`), "t.jsonl") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("a whole last line without newline: %d entries, want 1", n)
	}
}

// FuzzParseLine: any line either fails with a reason or gives an entry
// that a tape can hold: an integer id, a kind, an object payload.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"id": 1, "kind": "anchor", "payload": {"name": "a", "state": {}}, "meta": {}, "date": "2025-06-01T08:00:00+00:00"}`,
		`{"id": 2, "kind": "tool_result", "payload": {"results": ["好"]}}`,
		`{"id": "x", "kind": "k", "payload": {}}`, `{"role": "user"}`, `null`, `{"id": 1e3, "kind": "k", "payload": {}}`, "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, err := ParseLine([]byte(line))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a reason")
			}
			return
		}
		if _, perr := strconv.ParseInt(e.ID, 10, 64); perr != nil || e.Kind == "" || !opensObject(e.Payload) {
			t.Fatalf("ParseLine(%q) = id %q kind %q payload %q", line, e.ID, e.Kind, e.Payload)
		}
	})
}

// A line over the cap is read through without being kept, and the lines
// around it are read whole (second review: the reader held any line in
// memory, several times over).
func TestReadCapped(t *testing.T) {
	t.Parallel()
	br := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nnext\ntail"), 16)
	type got struct {
		line    string
		tooLong int64
	}
	var all []got
	for {
		line, tooLong, err := readCapped(br, 10)
		if len(line) > 0 || tooLong > 0 {
			all = append(all, got{string(line), tooLong})
		}
		if err != nil {
			break
		}
	}
	want := []got{{"short\n", 0}, {"", 101}, {"next\n", 0}, {"tail", 0}}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Errorf("readCapped: %v, want %v", all, want)
	}
}
