package log

import (
	"path"
	"strings"
	"testing"
)

// A fork id that passes validation names exactly one folder inside forks/.
func FuzzValidateForkID(f *testing.F) {
	for _, s := range []string{"01JD8Z5N0QF3KJ6W2M1T7XG4BC", "", ".", "..", "../main", "a/b", `a\b`, ".merged-x", "分支", " x", "x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if ValidateForkID(id) != nil {
			return
		}
		p := path.Join(forksDir, id)
		if path.Dir(p) != forksDir || path.Base(p) != id || strings.HasPrefix(id, ".") {
			t.Errorf("valid fork id %q names %q, not one folder of %s", id, p, forksDir)
		}
	})
}

// A merge journal that parses names a file two levels inside anchors/.
func FuzzParseMergeState(f *testing.F) {
	for _, s := range []string{
		`{"base":"001_session-start","file":"messages.jsonl"}`,
		`{"base":"002_审查","file":"events.jsonl"}`,
		`{"base":"../x","file":"messages.jsonl"}`,
		`{"base":"001_a/../../b","file":"x.jsonl"}`,
		`{"base":"001_a","file":"../../config.json"}`,
		`{"base":"001_a","file":".jsonl"}`,
		`{}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseMergeState(data)
		if err != nil {
			return
		}
		p := path.Join(anchorsDir, st.Base, st.File)
		if path.Dir(path.Dir(p)) != anchorsDir || path.Base(p) != st.File || strings.HasPrefix(st.File, ".") {
			t.Errorf("journal %q names %q, outside one anchor folder", data, p)
		}
	})
}
