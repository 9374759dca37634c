package source

import (
	"encoding/json"
	"testing"
)

// FuzzNamedData holds NamedData to what MustJSON writes of the map it
// replaces, for any name and any valid JSON data (empty for null).
func FuzzNamedData(f *testing.F) {
	for _, s := range [][2]string{{"claude/block", `{"type": "x", "b":[1, 2]}`}, {"codex/session_meta", ""}, {"<&>\u2028\xff", `"a\u2029<"`}} {
		f.Add(s[0], []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if len(data) > 0 && !json.Valid(data) {
			return // a part of a line that decoded: valid
		}
		want := MustJSON(map[string]any{"name": name, "data": OrNull(Trim(data))})
		if got := NamedData(name, data); string(got) != string(want) {
			t.Fatalf("NamedData(%q, %q) = %s, want %s", name, data, got, want)
		}
	})
}
