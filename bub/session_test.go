package bub

import (
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

func TestSessionTape(t *testing.T) {
	t.Parallel()
	// Values computed with Python's hashlib, as Bub computes them.
	got, err := SessionTape("/nonexistent/proj", "会话-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "be7c02414bd38019__f247c92535cc0807"; got != want {
		t.Errorf("SessionTape = %q, want %q", got, want)
	}
	if tapelog.ValidateTapeName(got) != nil {
		t.Errorf("session tape name %q is not a valid tape name", got)
	}
}

func TestFileTape(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/home/u/.bub/tapes/abc__def.jsonl": "abc__def",
		"review.jsonl":                      "review",
		"notes.txt":                         "notes.txt",
		"dir/.jsonl":                        "",
	} {
		if got := FileTape(path); got != want {
			t.Errorf("FileTape(%q) = %q, want %q", path, got, want)
		}
	}
}
