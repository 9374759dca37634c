package source

import (
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestTapeName(t *testing.T) {
	for _, tc := range []struct {
		s         Session
		long, end bool
		want      string
	}{
		{Session{Source: "claude", ID: "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12"}, false, false, "claude-5d7e6b2e"},
		{Session{Source: "codex", ID: "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"}, false, true, "codex-62a89cd5"},
		{Session{Source: "claude", ID: "5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12", Agent: "a3f9c21b0d4e5f607"}, false, false, "claude-5d7e6b2e-agent-a3f9c21b"},
		{Session{Source: "x", ID: "ab"}, false, false, "x-ab"},
		{Session{Source: "x", ID: "../"}, false, false, "x-x"},
	} {
		if got := TapeName(tc.s, tc.long, tc.end); got != tc.want {
			t.Errorf("TapeName(%+v, %v, %v) = %q, want %q", tc.s, tc.long, tc.end, got, tc.want)
		}
	}
}

// The long name is the short one and a sum of the session's key: two
// sessions with the same short name get two long ones.
func TestTapeNameLong(t *testing.T) {
	a := Session{Source: "claude", ID: "5d7e6b2e-0000-4000-8000-000000000001"}
	b := Session{Source: "claude", ID: "5d7e6b2e-0000-4000-8000-000000000002"}
	la, lb := TapeName(a, true, false), TapeName(b, true, false)
	if !strings.HasPrefix(la, TapeName(a, false, false)+"-") || len(la) != len("claude-5d7e6b2e-12345678") || la == lb {
		t.Fatalf("long names %q and %q", la, lb)
	}
	if err := tapelog.ValidateTapeName(la); err != nil {
		t.Fatal(err)
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12":  true,
		"5D7E6B2E-1A3C-4F0E-9B8A-2C4D6E8F0A12":  true,
		"5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a1":   false,
		"rollout-5d7e6b2e-1a3c-4f0e-9b8a-2c4d6": false,
		"":                                      false,
	} {
		if got := IsUUID(s); got != want {
			t.Errorf("IsUUID(%q) = %v, want %v", s, got, want)
		}
	}
}
