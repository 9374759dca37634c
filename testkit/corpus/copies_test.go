package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRewriteIDs(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for _, id := range []string{
		"5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12",
		"msg_01XFDUDYJgAACzvnptvVoYEL", "req_011CSHaR", "toolu_01A09q90qw90lq917835lq9", "call_abc12345",
		"agent-a3f9c21b0d4e5f607", `"agentId":"a3f9c21b0d4e5f607"`,
	} {
		a, b, again := string(RewriteIDs(0, []byte(id))), string(RewriteIDs(1, []byte(id))), string(RewriteIDs(0, []byte(id)))
		if a == id || b == id || a == b || a != again || len(a) != len(id) || len(b) != len(id) {
			t.Errorf("%s: copy 0 %s, copy 1 %s, copy 0 again %s; want two new ids of its length, each the same every time", id, a, b, again)
		}
		if uuid.MatchString(id) && !uuid.MatchString(a) {
			t.Errorf("%s: %s is no UUID", id, a)
		}
		if p, _, ok := strings.Cut(id, "_"); ok && !strings.HasPrefix(a, p+"_") {
			t.Errorf("%s: %s lost its prefix", id, a)
		}
	}
	if file, field := RewriteIDs(1, []byte("agent-a3f9c21b0d4e5f607")), RewriteIDs(1, []byte(`"agentId":"a3f9c21b0d4e5f607"`)); string(file[len("agent-"):]) != string(field[len(`"agentId":"`):len(field)-1]) {
		t.Errorf("a subagent's id in its file name (%s) and in its records (%s) differ", file, field)
	}
	text := `the message_count of a callback; "id":"x"; 8 tests passed in 12 s`
	if got := string(RewriteIDs(3, []byte(text))); got != text {
		t.Errorf("text without ids changed: %q", got)
	}
	line := []byte(`{"sessionId":"5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12","parent":"5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12"}`)
	var got struct{ SessionID, Parent string }
	if err := json.Unmarshal(RewriteIDs(2, line), &got); err != nil || got.SessionID != got.Parent {
		t.Errorf("an id twice in a line: %+v, %v; want it rewritten the same", got, err)
	}
}

// Copies of the importer's sample transcripts: n files for each, as many
// valid JSON lines as the originals have (they have bad lines on purpose),
// and not one id of the originals left.
func TestCopyTranscripts(t *testing.T) {
	for _, src := range []string{"../../testdata/import/claude/src", "../../testdata/import/codex/src"} {
		dst := t.TempDir()
		st, err := CopyTranscripts(src, dst, 3)
		if err != nil {
			t.Fatal(err)
		}
		var originals [][]byte
		files, valid := 0, 0
		err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files++
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				originals = append(originals, idPattern.FindAll(data, -1)...)
				valid += validLines(data)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if st.Files != 3*files || len(originals) == 0 {
			t.Fatalf("%s: %d files written of %d, %d ids in the originals", src, st.Files, files, len(originals))
		}
		copiedValid := 0
		err = filepath.WalkDir(dst, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			copiedValid += validLines(data)
			for _, id := range originals {
				if bytes.Contains(data, id) || strings.Contains(path, string(id)) {
					t.Errorf("%s holds the original id %s", path, id)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if copiedValid != 3*valid {
			t.Errorf("%s: %d valid JSON lines in the copies, want %d", src, copiedValid, 3*valid)
		}
	}
}

func validLines(data []byte) int {
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if json.Valid(line) {
			n++
		}
	}
	return n
}
