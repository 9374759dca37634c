package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bubLine is line id of a Bub tape file, as Bub writes it.
func bubLine(id int, kind, payload string) string {
	return fmt.Sprintf(`{"id": %d, "kind": %q, "payload": %s, "meta": {"run_id": "r%d"}, "date": "2025-06-01T08:%02d:%02d.000001+00:00"}`+"\n",
		id, kind, payload, id, id/60, id%60)
}

// bubFile is a Bub tape: an anchor, a conversation with tool calls in
// Chinese, a second anchor, and n more messages.
func bubFile(n int) string {
	var b strings.Builder
	b.WriteString(bubLine(1, "anchor", `{"name": "session/start", "state": {"owner": "human"}}`))
	b.WriteString(bubLine(2, "message", `{"role": "user", "content": "读取 main.py"}`))
	b.WriteString(bubLine(3, "tool_call", `{"calls": [{"id": "c1", "type": "function", "function": {"name": "fs.read", "arguments": "{}"}}]}`))
	b.WriteString(bubLine(4, "tool_result", `{"results": ["print('好')"]}`))
	b.WriteString(bubLine(5, "anchor", `{"name": "审查", "state": {"summary": "读过了"}}`))
	for i := range n {
		b.WriteString(bubLine(6+i, "message", fmt.Sprintf(`{"role": "assistant", "content": "第 %d 条"}`, i)))
	}
	return b.String()
}

func writeBubFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func importStatsOf(t *testing.T, stdout string) []importStats {
	t.Helper()
	var all []importStats
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var st importStats
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("output %q is not JSON: %v", line, err)
		}
		all = append(all, st)
	}
	return all
}

// tapeFolderFiles returns every file of a tape folder with its contents.
func tapeFolderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[strings.TrimPrefix(path, dir)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Import a Bub file, import it again, let it grow and import once more:
// every Bub entry is on the tape once, with its id, kind, payload, meta and
// date, in anchor folders that follow Bub's anchors.
func TestImportBubProcess(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	file := filepath.Join(dir, "abc__def.jsonl")
	writeBubFile(t, file, bubFile(3))

	steps := []struct {
		name              string
		grow              string
		imported, skipped int
		anchors           int
	}{
		{"first import", "", 8, 0, 2},
		{"again: nothing twice", "", 0, 8, 0},
		{"after the file grew", bubLine(9, "anchor", `{"name": "next", "state": {}}`) + bubLine(10, "event", `{"name": "e", "data": {}}`), 2, 8, 1},
		{"a line still being written", `{"id": 11, "kind": "mess`, 0, 10, 0},
	}
	for _, s := range steps {
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s.grow); err != nil {
			t.Fatal(err)
		}
		f.Close()
		stdout, stderr, code := runProcess(t, dir, "import", "bub", "--json", "abc__def.jsonl")
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", s.name, code, stderr)
		}
		got := importStatsOf(t, stdout)
		want := importStats{File: "abc__def.jsonl", Tape: "abc__def", Imported: s.imported, Anchors: s.anchors, Skipped: s.skipped}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: got %+v, want %+v", s.name, got, want)
		}
	}

	recs := jsonRecords(t, mustRun(t, dir, "--tape", "abc__def", "log", "--all", "--json"))
	if len(recs) != 10 {
		t.Fatalf("the tape has %d entries, want the 10 whole lines of the Bub file", len(recs))
	}
	wantAnchors := map[string]string{"1": "session/start", "5": "审查", "9": "next"}
	for i, r := range recs {
		id := fmt.Sprint(i + 1)
		if r["id"] != id {
			t.Errorf("entry %d has id %v, want %s (Bub's order and ids)", i, r["id"], id)
		}
		if want := fmt.Sprintf("2025-06-01T08:%02d:%02d.000001+00:00", (i+1)/60, (i+1)%60); r["date"] != want {
			t.Errorf("entry %s has date %v, want %s", id, r["date"], want)
		}
		if meta, _ := r["meta"].(map[string]any); meta["run_id"] != "r"+id {
			t.Errorf("entry %s has meta %v, want Bub's", id, r["meta"])
		}
		if name, ok := wantAnchors[id]; ok && (r["kind"] != "anchor" || r["anchor"] != name) {
			t.Errorf("entry %s: kind %v anchor %v, want the anchor %s", id, r["kind"], r["anchor"], name)
		}
	}
	if p, _ := recs[3]["payload"].(map[string]any); fmt.Sprint(p["results"]) != "[print('好')]" {
		t.Errorf("tool_result payload = %v, want it as Bub wrote it", recs[3]["payload"])
	}
	anchors := jsonRecords(t, mustRun(t, dir, "--tape", "abc__def", "anchors", "--json"))
	if len(anchors) != 3 || anchors[1]["folder"] != "002_审查" {
		t.Errorf("anchors = %v, want 3 folders, the second 002_审查", anchors)
	}
	// The context of the imported tape is Bub's.
	ctx := mustRun(t, dir, "--tape", "abc__def", "context", "--anchor", "session/start", "--json")
	if !strings.Contains(ctx, `{"role":"tool","content":"print('好')","tool_call_id":"c1","name":"fs.read"}`) ||
		!strings.Contains(ctx, `[Anchor created: 审查]: {\"summary\": \"读过了\"}`) {
		t.Errorf("context = %s, want the paired tool result and the anchor note", ctx)
	}
}

func TestImportBubErrorsProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		files     map[string]string
		args      []string
		code      int
		stderrHas []string
		tapes     []string // tape folders that must exist afterwards (besides main)
		entries   int      // entries of the tape "bad" afterwards, when it exists
	}{
		{"missing file", map[string]string{"a.jsonl": bubFile(0)}, []string{"a.jsonl", "nope.jsonl"}, exitWorkspace,
			[]string{"open nope.jsonl: no such file or directory", "~/.bub/tapes"}, nil, 0},
		{"bad lines", map[string]string{"bad.jsonl": bubLine(1, "message", `{"role": "user", "content": "前"}`) +
			"not json\n" + `{"id": "x", "kind": "event", "payload": {}}` + "\n" + bubLine(4, "anchor", `{"name": "", "state": {}}`) +
			bubLine(5, "message", `{"role": "user", "content": "后"}`)},
			[]string{"bad.jsonl"}, exitUsage,
			[]string{"bad.jsonl:2: line is not a JSON object", "bad.jsonl:3: \"id\" is \"x\"", "bad.jsonl:4:", "anchor name", "3 lines could not be imported"},
			[]string{"bad"}, 3},
		{"into a tape that holds other entries", map[string]string{"main.jsonl": bubFile(0)}, []string{"main.jsonl"}, exitUsage,
			[]string{"tape main holds entries and none of main.jsonl", "--tape NAME"}, nil, 0},
		{"--tape with two files", map[string]string{"a.jsonl": bubFile(0), "b.jsonl": bubFile(0)}, []string{"--tape", "x", "a.jsonl", "b.jsonl"}, exitUsage,
			[]string{"--tape names the tape of one file"}, nil, 0},
		{"a bad tape name", map[string]string{".s.jsonl": bubFile(0)}, []string{".s.jsonl"}, exitUsage,
			[]string{".s.jsonl", "starts with a dot", "--tape"}, nil, 0},
		{"a folder", nil, []string{"."}, exitUsage, []string{"is not a file"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newCLIWorkspace(t)
			mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"not from Bub"}`) // main holds an entry of its own
			for name, data := range tt.files {
				writeBubFile(t, filepath.Join(dir, name), data)
			}
			_, stderr, code := runProcess(t, dir, append([]string{"import", "bub"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			for _, want := range tt.stderrHas {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "tape: ") || strings.HasPrefix(last, "tape: warning") {
				t.Errorf("stderr ends with %q, want one error line", last)
			}
			entries, _ := os.ReadDir(filepath.Join(dir, ".tape", "tapes"))
			var got []string
			for _, e := range entries {
				if e.Name() != "main" {
					got = append(got, e.Name())
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.tapes, ",") {
				t.Errorf("tapes %v after the import, want %v", got, tt.tapes)
			}
			if len(tt.tapes) > 0 {
				recs := jsonRecords(t, mustRun(t, dir, "--tape", "bad", "log", "--all", "--json"))
				if len(recs) != tt.entries {
					t.Errorf("tape bad has %d entries, want %d (the bootstrap anchor and the good lines)", len(recs), tt.entries)
				}
			}
		})
	}
}

// A second import of an unchanged file writes nothing.
func TestImportBubTwiceLeavesFilesAlone(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	writeBubFile(t, filepath.Join(dir, "s.jsonl"), bubFile(2))
	mustRun(t, dir, "import", "bub", "s.jsonl")
	before := tapeFolderFiles(t, filepath.Join(dir, ".tape/tapes/s"))
	mustRun(t, dir, "import", "bub", "s.jsonl")
	after := tapeFolderFiles(t, filepath.Join(dir, ".tape/tapes/s"))
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("a second import changed the tape:\n%v\n%v", before, after)
	}
	for path := range after {
		fi, err := os.Stat(filepath.Join(dir, ".tape/tapes/s", path))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", path, fi.Mode(), err)
		}
	}
}

// A Bub file that was reset (ids start again with other dates) is not mixed
// into the tape imported from it before.

// A tape that holds only the bootstrap anchor tape made (after tape init)
// takes an import; a file whose first line was refused can be imported
// again once more lines came; and two imports at once import each line
// once (review).
func TestImportBubIntoFreshTapeAgainAndAtOnce(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	writeBubFile(t, filepath.Join(dir, "main.jsonl"), bubFile(3))
	if _, stderr, code := runProcess(t, dir, "import", "bub", "main.jsonl"); code != 0 {
		t.Fatalf("import into main after tape init: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(dir, "nn.jsonl")
	writeBubFile(t, bad, `{"id": 1, "kind": "anchor", "payload": {"state": {}}, "meta": {}, "date": "2025-06-01T08:00:00+00:00"}`+"\n"+
		`{"id": 2, "kind": "message", "payload": {"role": "user", "content": "二"}, "meta": {}, "date": "2025-06-01T08:00:01+00:00"}`+"\n")
	if _, _, code := runProcess(t, dir, "import", "bub", "nn.jsonl"); code != exitUsage {
		t.Fatalf("import with a refused first line: exit %d, want %d", code, exitUsage)
	}
	f, err := os.OpenFile(bad, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id": 3, "kind": "message", "payload": {"role": "user", "content": "三"}, "meta": {}, "date": "2025-06-01T08:00:02+00:00"}` + "\n")
	f.Close()
	out, stderr, _ := runProcess(t, dir, "import", "bub", "--json", "nn.jsonl")
	if !strings.Contains(out, `"imported":1`) {
		t.Errorf("import after the file grew: %s %s; want the new line imported", out, stderr)
	}

	writeBubFile(t, filepath.Join(dir, "big.jsonl"), bubFile(3000))
	done := make(chan error, 2)
	for range 2 {
		go func() {
			cmd := tapeProcess(dir, "import", "bub", "big.jsonl")
			done <- cmd.Run()
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("concurrent import: %v", err)
		}
	}
	logOut := mustRun(t, dir, "--tape", "big", "log", "--all", "--json")
	ids := map[string]int{}
	for line := range strings.Lines(logOut) {
		var rec struct{ ID string }
		json.Unmarshal([]byte(line), &rec)
		ids[rec.ID]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Fatalf("id %s imported %d times by two imports at once", id, n)
		}
	}
}
func TestImportBubResetFile(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	file := filepath.Join(dir, "s.jsonl")
	writeBubFile(t, file, bubFile(0))
	mustRun(t, dir, "import", "bub", "s.jsonl")
	writeBubFile(t, file, strings.ReplaceAll(bubFile(0), "2025-06-01", "2025-07-01"))
	_, stderr, code := runTapeStdin(t, dir, "", "import", "bub", "s.jsonl")
	if code != exitUsage || !strings.Contains(stderr, "none of s.jsonl") {
		t.Errorf("exit %d, stderr %q; want exit %d and a refusal", code, stderr, exitUsage)
	}
}

// A Bub line without a date is imported without one, keeps its place, and
// is recognised by the next import (review: it was stamped with the time of
// the import, sorted after later lines, and conflicted ever after).
func TestImportBubLineWithoutDate(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	file := filepath.Join(dir, "nd.jsonl")
	writeBubFile(t, file, `{"id": 1, "kind": "message", "payload": {"role": "user", "content": "first, no date"}, "meta": {}}`+"\n"+
		`{"id": 2, "kind": "tool_call", "payload": {"calls": []}, "meta": {}, "date": "2025-06-01T08:00:01+00:00"}`+"\n")
	for i := range 2 {
		if _, stderr, code := runProcess(t, dir, "import", "bub", "nd.jsonl"); code != 0 {
			t.Fatalf("import %d: exit %d: %s", i+1, code, stderr)
		}
	}
	out := mustRun(t, dir, "--tape", "nd", "log", "--all", "--json")
	first, second := strings.Index(out, "first, no date"), strings.Index(out, `"kind":"tool_call"`)
	if first < 0 || second < 0 || first > second {
		t.Errorf("the undated line is not first:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".tape/tapes/nd/anchors/001_session-start/messages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"date"`) {
		t.Errorf("the undated line was given a date: %s", data)
	}
}
