package bub

import (
	"errors"
	"slices"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestContextSpan(t *testing.T) {
	t.Parallel()
	anchors := []tapelog.Anchor{
		{Folder: "001_session-start", Seq: 1, Name: "session/start"},
		{Folder: "002_2", Seq: 2, Name: "2"},
		{Folder: "003_plan", Seq: 3, Name: "plan"},
		{Folder: "004_review", Seq: 4, Name: "review"},
	}
	for _, c := range []struct {
		anchor  string
		all     bool
		folders []string
		after   string
	}{
		{"", false, []string{"004_review"}, "004_review"},
		{"", true, []string{"001_session-start", "002_2", "003_plan", "004_review"}, ""},
		{"plan", false, []string{"003_plan", "004_review"}, "003_plan"},
		{"2", false, []string{"002_2", "003_plan", "004_review"}, "002_2"}, // a name before a seq
		{"3", false, []string{"003_plan", "004_review"}, "003_plan"},
		{"001_session-start", false, []string{"001_session-start", "002_2", "003_plan", "004_review"}, "001_session-start"},
	} {
		s, err := ContextSpan(anchors, c.anchor, c.all)
		if err != nil || !slices.Equal(s.Folders, c.folders) || s.After != c.after {
			t.Errorf("ContextSpan(%q, %v) = %+v, %v; want %v after %q", c.anchor, c.all, s, err, c.folders, c.after)
		}
	}
	if _, err := ContextSpan(anchors, "nope", false); !errors.Is(err, tapelog.ErrNoAnchor) {
		t.Errorf("ContextSpan(nope) = %v, want ErrNoAnchor", err)
	}
	entries := []tapelog.Entry{
		{ID: "a3", Kind: tapelog.KindAnchor, Pos: tapelog.Position{Folder: "003_plan"}},
		{ID: "m", Kind: tapelog.KindMessage, Pos: tapelog.Position{Folder: "003_plan"}},
		{ID: "a4", Kind: tapelog.KindAnchor, Pos: tapelog.Position{Folder: "004_review"}},
	}
	var ids []string
	for _, e := range (Span{After: "003_plan"}).Trim(entries) {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"m", "a4"}) {
		t.Errorf("Trim = %v, want [m a4]", ids)
	}
}
