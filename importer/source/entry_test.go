package source

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"testing"
)

// TestLineIDs: an id is the tag of the file's name (the first three bytes
// of its SHA-256, in hex), the line, and the part after the first, the
// same from LineID and from a file's LineIDs, wherever the file lies.
func TestLineIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path    string
		line, k int
	}{
		{"/home/u/.codex/sessions/2025/10/29/rollout-a.jsonl", 1, 0},
		{"rollout-a.jsonl", 1234567, 0},
		{"/archived/rollout-a.jsonl", 42, 2},
		{"", 0, 1},
		{"/x/名前.jsonl", -7, 0},
	} {
		sum := sha256.Sum256([]byte(filepath.Base(tc.path)))
		want := hex.EncodeToString(sum[:3]) + ":" + strconv.Itoa(tc.line)
		if tc.k > 0 {
			want += "/" + strconv.Itoa(tc.k+1)
		}
		if got := NewLineIDs(tc.path).ID(tc.line, tc.k); got != want {
			t.Errorf("NewLineIDs(%q).ID(%d, %d) = %q, want %q", tc.path, tc.line, tc.k, got, want)
		}
		if got := LineID(tc.path, tc.line, tc.k); got != want {
			t.Errorf("LineID(%q, %d, %d) = %q, want %q", tc.path, tc.line, tc.k, got, want)
		}
	}
	if got, want := LineID("/a/rollout-a.jsonl", 3, 0), LineID("/b/rollout-a.jsonl", 3, 0); got != want {
		t.Errorf("the same file in two folders: %q and %q", got, want)
	}
}
