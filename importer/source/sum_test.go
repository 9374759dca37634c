package source

import "testing"

// ShortSum is the first 8 hex digits of SHA-256: the ids and tape names
// on users' tapes depend on it staying so.
func TestShortSum(t *testing.T) {
	for in, want := range map[string]string{"abc": "ba7816bf", "": "e3b0c442"} {
		if got := ShortSum([]byte(in)); got != want {
			t.Errorf("ShortSum(%q) = %s, want %s", in, got, want)
		}
	}
}
