package log

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// SelectTape is the one scope rule: a named tape must exist, but for a
// writer; with none named, the default tape, else every tape for a reader
// of every tape; an empty default beside other tapes is not the default.
func TestSelectTape(t *testing.T) {
	ws := newTestWorkspace(t) // tape init: an empty main
	other := mustTape(t, ws, "other")
	if _, err := other.Append(context.Background(), Entry{Kind: KindMessage, Payload: json.RawMessage(`{"role":"user","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	name := func(tp *Tape) string {
		if tp == nil {
			return "<every tape>"
		}
		defer tp.Close()
		return tp.Name()
	}
	for _, c := range []struct {
		name    string
		reach   Reach
		want    string
		missing bool // a *NoTapeError
	}{
		{"other", OneTape, "other", false},
		{"other", AnyTapes, "other", false},
		{"nope", OneTape, "", true},
		{"nope", AnyTapes, "", true},
		{"nope", NewTape, "nope", false},
		{"", OneTape, "main", false},          // main exists: a one-tape reader reads it
		{"", AnyTapes, "<every tape>", false}, // main holds no entry beside other
		{"", NewTape, "main", false},
	} {
		tp, err := ws.SelectTape(c.name, c.reach)
		var nt *NoTapeError
		if c.missing {
			if !errors.As(err, &nt) || !errors.Is(err, ErrNoTape) || nt.Name != c.name || !nt.Named {
				t.Errorf("SelectTape(%q, %d) = %v, want a *NoTapeError for a named tape", c.name, c.reach, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("SelectTape(%q, %d): %v", c.name, c.reach, err)
			continue
		}
		if got := name(tp); got != c.want {
			t.Errorf("SelectTape(%q, %d) = %s, want %s", c.name, c.reach, got, c.want)
		}
	}
	for _, bad := range []string{"../x", "/etc", "a/b", ".hidden"} {
		if _, err := ws.SelectTape(bad, NewTape); !errors.Is(err, ErrBadName) {
			t.Errorf("SelectTape(%q) = %v, want ErrBadName", bad, err)
		}
	}
}

// With no default tape and none named, a one-tape reader is told so.
func TestSelectTapeNoDefault(t *testing.T) {
	ws := openHandMade(t, map[string]string{"tapes/s1/anchors/001_session-start/anchor.json": `{"kind":"anchor","payload":{"name":"session/start"}}` + "\n"})
	_, err := ws.SelectTape("", OneTape)
	var nt *NoTapeError
	if !errors.As(err, &nt) || nt.Named || nt.Name != "main" {
		t.Fatalf("SelectTape(\"\", OneTape) = %v, want a *NoTapeError for the default tape", err)
	}
	if tp, err := ws.SelectTape("", AnyTapes); tp != nil || err != nil {
		t.Fatalf("SelectTape(\"\", AnyTapes) = %v, %v, want every tape", tp, err)
	}
}

func TestWithSummary(t *testing.T) {
	for _, c := range []struct {
		state, summary, want string
		err                  error
	}{
		{"", "", "", nil},
		{`{"b":1,"a":2}`, "", `{"b":1,"a":2}`, nil},
		{"", "done", `{"summary":"done"}`, nil},
		{`{"b":1}`, "done", `{"b":1,"summary":"done"}`, nil},
		{`[]`, "", "", ErrStateNotObject},
		{`null`, "x", "", ErrStateNotObject},
		{`{"summary":"a"}`, "b", "", ErrSummaryTwice},
	} {
		got, err := WithSummary(json.RawMessage(c.state), c.summary)
		if !errors.Is(err, c.err) || string(got) != c.want {
			t.Errorf("WithSummary(%s, %q) = %s, %v; want %s, %v", c.state, c.summary, got, err, c.want, c.err)
		}
		if c.err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("WithSummary(%s, %q): %v is not an ErrInvalid", c.state, c.summary, err)
		}
	}
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for s, want := range map[string]time.Time{
		"":                     {},
		"2026-11-20":           time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		"2026-11-20T10:00:00Z": time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC),
		"90m":                  now.Add(-90 * time.Minute),
		"3d":                   now.Add(-72 * time.Hour),
		"1w":                   now.Add(-7 * 24 * time.Hour),
	} {
		if got, err := ParseWhen(s, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-2h", "3x"} {
		if _, err := ParseWhen(bad, now); err == nil {
			t.Errorf("ParseWhen(%q) took it", bad)
		}
	}
}
