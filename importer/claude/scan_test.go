package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
)

// convertLines converts a transcript as the importer does, one line after
// the other from a line reader that reuses its buffer (so that a raw
// member kept past its line shows), with scanRecord or (slow) with
// encoding/json alone, and writes down all it made: each output, each
// error's text, what is held, the state.
func convertLines(tb testing.TB, data []byte, slow bool) string {
	tb.Helper()
	c, err := newConverter(sourcetest.Path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c.slow = slow
	var out strings.Builder
	emit := func(outs []source.Output) {
		for _, o := range outs {
			fmt.Fprintf(&out, "%+v %v %s %s %s %s %s\n", o.Session, o.Anchor, o.Entry.ID, o.Entry.Kind, o.Entry.Date, o.Entry.Payload, o.Entry.Meta)
		}
	}
	lr := tapelog.NewLineReader(bytes.NewReader(data), 1<<20, 0, 0)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		if l.TooLong > 0 || l.Blank() {
			continue
		}
		outs, err := c.Line(l)
		if err != nil {
			fmt.Fprintf(&out, "line %d: %v\n", l.No, err)
		}
		emit(outs)
		line, offset, held := c.Held()
		fmt.Fprintf(&out, "held %d %d %v\n", line, offset, held)
	}
	state, err := c.State()
	fmt.Fprintf(&out, "state %s %v\n", state, err)
	emit(c.Flush())
	return out.String()
}

// sameBothWays fails the test when scanRecord's way and encoding/json's
// convert data differently.
func sameBothWays(t *testing.T, name string, data []byte) {
	t.Helper()
	if fast, slow := convertLines(t, data, false), convertLines(t, data, true); fast != slow {
		t.Fatalf("%s: scanRecord's way made\n%s\nencoding/json's made\n%s\nof\n%s", name, fast, slow, data)
	}
}

// The one-pass decode converts every transcript as encoding/json's did:
// the golden transcripts, records of random shapes, the same written
// oddly (white space, repeated keys, keys in other cases or with escapes,
// nulls, lines cut short), and a generated corpus of Claude Code's shape.
func TestScanAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for i, data := range sourcetest.Fixtures(t, Source{}) {
		sameBothWays(t, fmt.Sprintf("fixture %d", i), data)
	}
	n := 300
	if testing.Short() {
		n = 40
	}
	for seed := range uint64(n) {
		g := sourcetest.NewGen(seed)
		lines := transcript(g)
		sameBothWays(t, fmt.Sprintf("seed %d", seed), []byte(strings.Join(lines, "\n")+"\n"))
		for i := range lines {
			lines[i] = oddly(lines[i], g.IntN(len(oddities)))
		}
		sameBothWays(t, fmt.Sprintf("seed %d, written oddly", seed), []byte(strings.Join(lines, "\n")+"\n"))
	}
	dir := t.TempDir()
	if _, err := corpus.GenerateClaude(dir, corpus.TranscriptOptions{Bytes: 1 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files++
		sameBothWays(t, path, data)
		return err
	})
	if err != nil || files == 0 {
		t.Fatalf("read the corpus: %d files, %v", files, err)
	}
}

// oddities are ways of writing a record's line that encoding/json reads
// alike or not at all, each a rewrite of the line's text.
var oddities = []func(string) string{
	func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, `":`, `" : `), `,"`, ` , "`) },
	func(s string) string { return strings.Replace(s, `{"`, `{"type":null,"uuid":7,"`, 1) },
	func(s string) string { return strings.Replace(s, `"type":`, `"TYPE":`, 1) },
	func(s string) string { return strings.Replace(s, `"uuid":`, `"\u0075uid":`, 1) },
	func(s string) string { return strings.Replace(s, `"role":`, `"Role":`, 1) },
	func(s string) string { return strings.Replace(s, `"sessionId":`, `"ſessionId":`, 1) },
	func(s string) string { return strings.Replace(s, `"input_tokens":`, `"input_tokens":1.5,"x":`, 1) },
	func(s string) string {
		return strings.Replace(s, `"message":`, `"message":{"usage":null,"id":"m0"},"message":`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"message":{`, `"message":{"usage":{"output_tokens":99},`, 1)
	},
	func(s string) string { return strings.Replace(s, `"content":`, `"content":null,"cOntent":`, 1) },
	func(s string) string { return s[:len(s)/2] },
	func(s string) string {
		return strings.Replace(s, `"timestamp":`, `"timestamp":{"a":[1,2]},"timestamp":`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `{`, `{"isMeta":1,"gitBranch":null,"k\u00e9":"\xff",`, 1)
	},
	func(s string) string { return "[" + s + "]" },
	func(s string) string { return s },
}

func oddly(line string, k int) string { return oddities[k](line) }

// FuzzScanAsEncodingJSON holds the one-pass decode to encoding/json on
// any transcript: the same entries, errors, held lines and state.
func FuzzScanAsEncodingJSON(f *testing.F) {
	for _, data := range sourcetest.Fixtures(f, Source{}) {
		f.Add(data)
	}
	g := sourcetest.NewGen(1)
	for k := range oddities {
		f.Add([]byte(oddly(strings.Join(transcript(g), "\n"), k) + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameBothWays(t, "fuzzed", data) })
}

// addOddLines seeds f with the lines of a transcript of seed, each made
// odd in every way oddities has.
func addOddLines(f *testing.F, seed uint64) {
	g := sourcetest.NewGen(seed)
	for k := range oddities {
		for _, line := range transcript(g) {
			f.Add(oddly(line, k))
		}
	}
}

// FuzzScanRecord holds scanRecord to json.Unmarshal into a record, line
// by line: where it reads a line, the same record, and a mismatch where
// encoding/json's error is a type error; and where it does not, a line
// encoding/json refuses or one of the keys it leaves to encoding/json.
func FuzzScanRecord(f *testing.F) {
	addOddLines(f, 2)
	f.Fuzz(func(t *testing.T, line string) {
		var want, got record
		err := json.Unmarshal([]byte(line), &want)
		_, mismatch, ok := scanRecord([]byte(line), nil, &got)
		if !ok {
			if err == nil && !strings.Contains(line, `\`) && !folded(line) && !strings.ContainsFunc(line, func(r rune) bool { return r > 127 }) && depth(line) < 400 {
				t.Fatalf("scanRecord left %s to encoding/json, which reads it", line)
			}
			return
		}
		if err != nil && !source.IsTypeError(err) {
			t.Fatalf("scanRecord read %s, which encoding/json refuses: %v", line, err)
		}
		if mismatch != (err != nil) {
			t.Fatalf("scanRecord(%s): mismatch %v, encoding/json's error %v", line, mismatch, err)
		}
		// A raw member as encoding/json keeps it: the value's text.
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanRecord(%s)\n got %+v\nwant %+v", line, got, want)
		}
	})
}

// folded reports whether line may hold a field's name in another case:
// more of it, quoted, in the line in lower case than in the line.
func folded(line string) bool {
	lower := strings.ToLower(line)
	for _, fields := range [][]string{recordFields, messageFields, usageFields} {
		for _, f := range fields {
			q := `"` + f + `"`
			if strings.Count(lower, strings.ToLower(q)) > strings.Count(line, q) {
				return true
			}
		}
	}
	return false
}

// depth is how deep the brackets of s nest, strings and all.
func depth(s string) int {
	d, most := 0, 0
	for _, c := range s {
		switch c {
		case '{', '[':
			d++
			most = max(most, d)
		case '}', ']':
			d--
		}
	}
	return most
}

// FuzzEventData holds eventData to eventPayloadJSON on any object.
func FuzzEventData(f *testing.F) {
	addOddLines(f, 3)
	f.Fuzz(func(t *testing.T, line string) {
		members, ok := rawjson.SplitObject([]byte(line), nil)
		if !ok {
			return
		}
		got, ok := eventData("claude/x", members)
		if !ok {
			return
		}
		if want := eventPayloadJSON("claude/x", []byte(line)); !bytes.Equal(got, want) {
			t.Fatalf("eventData(%s)\n got %s\nwant %s", line, got, want)
		}
	})
}

// BenchmarkConvertLines converts one transcript of about 1.5 MB, in
// Claude Code's shape, both ways: "scan" (scanRecord) and "encoding-json"
// (every line decoded by encoding/json, the decode before scanRecord; the
// rest of the mapping is the same). The ratio of their MB/s is what the
// one-pass decode buys the conversion:
//
//	go test ./importer/claude -run '^$' -bench ConvertLines -benchtime 20x -count 6
func BenchmarkConvertLines(b *testing.B) {
	data := oneTranscript(b)
	for _, way := range []struct {
		name string
		slow bool
	}{{"scan", false}, {"encoding-json", true}} {
		b.Run(way.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				convertOnce(b, data, way.slow)
			}
		})
	}
}

// oneTranscript is the largest transcript of a generated corpus of
// about 4 MB.
func oneTranscript(b *testing.B) []byte {
	dir := b.TempDir()
	if _, err := corpus.GenerateClaude(dir, corpus.TranscriptOptions{Bytes: 4 << 20, Seed: 11}); err != nil {
		b.Fatal(err)
	}
	var data []byte
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got, err := os.ReadFile(path)
		if len(got) > len(data) {
			data = got
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// convertOnce converts data as the importer does, and drops what it made.
func convertOnce(b *testing.B, data []byte, slow bool) {
	c, err := newConverter(sourcetest.Path, nil)
	if err != nil {
		b.Fatal(err)
	}
	c.slow = slow
	lr := tapelog.NewLineReader(bytes.NewReader(data), tapelog.DefaultMaxLineBytes, 0, 0)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		if !l.Blank() {
			c.Line(l)
		}
	}
	c.Flush()
}

// resultsPayload writes what an Object per result in a rawjson.Array
// wrote, the way before it.
func TestResultsPayloadAsObjects(t *testing.T) {
	t.Parallel()
	for _, results := range [][]block{
		{{ToolUseID: "t1", Content: json.RawMessage(`"out"`)}},
		{{ToolUseID: "a \"q\" \u2028 <b>", Content: json.RawMessage(` [{"type":"text","text":"x"}] `), IsError: true}, {ToolUseID: "", Content: nil}},
		{{ToolUseID: "t3", Content: json.RawMessage(`null`)}, {ToolUseID: "t4", Content: json.RawMessage(`{"k":1}`), IsError: true}, {ToolUseID: "t5", Content: json.RawMessage(" ")}},
	} {
		var objects [][]byte
		for _, b := range results {
			res := rawjson.NewObject().Str("tool_call_id", b.ToolUseID).Raw("content", source.Trim(b.Content))
			if b.IsError {
				res.True("is_error")
			}
			objects = append(objects, res.Done())
		}
		want := rawjson.NewObject().Raw("results", rawjson.Array(objects...)).Done()
		if got := resultsPayload(results); !bytes.Equal(got, want) {
			t.Errorf("resultsPayload(%+v)\n got %s\nwant %s", results, got, want)
		}
	}
}

// scanRecord reads every field of record, message and tokenUsage that
// encoding/json reads, and its lists of names hold them all: a field
// added to the structs and not to scanRecord fails here.
func TestScanReadsEveryField(t *testing.T) {
	t.Parallel()
	lists := map[reflect.Type][]string{
		reflect.TypeFor[record](): recordFields, reflect.TypeFor[message](): messageFields, reflect.TypeFor[tokenUsage](): usageFields,
	}
	for typ, names := range lists {
		var tags []string
		for f := range typ.Fields() {
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && tag != "-" {
				tags = append(tags, tag)
			}
		}
		if !reflect.DeepEqual(tags, names) {
			t.Errorf("%v's fields are %q; scanRecord's list %q", typ, tags, names)
		}
	}
	for _, line := range everyField(reflect.TypeFor[record](), nil) {
		var want, got record
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		if _, mismatch, ok := scanRecord([]byte(line), nil, &got); !ok || mismatch || !reflect.DeepEqual(got, want) {
			t.Errorf("scanRecord(%s): ok %v, mismatch %v\n got %+v\nwant %+v", line, ok, mismatch, got, want)
		}
	}
}

// everyField is a line for each field of typ that encoding/json reads,
// nested in the members of path, with a value of the field's type.
func everyField(typ reflect.Type, path []string) []string {
	var lines []string
	for f := range typ.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			ft = ft.Elem()
		}
		var value string
		switch {
		case ft == reflect.TypeFor[json.RawMessage]():
			value = `{"raw":[1,"x"]}`
		case ft.Kind() == reflect.Struct:
			lines = append(lines, everyField(ft, append(slices.Clone(path), tag))...)
			continue
		case ft.Kind() == reflect.Bool:
			value = "true"
		case ft.Kind() == reflect.Int64:
			value = "42"
		default:
			value = `"v of ` + tag + `"`
		}
		line := `{"` + tag + `":` + value + `}`
		for i := len(path) - 1; i >= 0; i-- {
			line = `{"` + path[i] + `":` + line + `}`
		}
		lines = append(lines, line)
	}
	return lines
}

// runPayload writes what source.MustJSON wrote of the run event's maps,
// the way before it.
func TestRunPayloadAsMaps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		u                     tokenUsage
		model, msgID, request string
	}{
		{tokenUsage{1, 2, 3, 4}, "claude-sonnet-4-5", "msg_1", "req_1"},
		{tokenUsage{0, 0, 0, 0}, "", "", "req_1"},
		{tokenUsage{-5, 1 << 62, 7, 0}, `a "<b>&" ` + "\u2028\xff", "msg_2", ""},
	} {
		data := map[string]any{"status": "ok", "model": tc.model, "usage": map[string]any{
			"input_tokens": tc.u.Input, "output_tokens": tc.u.Output,
			"cache_creation_input_tokens": tc.u.CacheCreation, "cache_read_input_tokens": tc.u.CacheRead,
		}}
		if tc.msgID != "" {
			id := tc.msgID
			if tc.request != "" {
				id += ":" + tc.request
			}
			data["usage_id"] = id
		}
		for _, copied := range []bool{false, true} {
			if copied {
				data["usage_copy"] = true
			}
			want := source.MustJSON(map[string]any{"name": "run", "data": data})
			if got := runPayload(&tc.u, tc.model, usageID(tc.msgID, tc.request), copied); !bytes.Equal(got, want) {
				t.Errorf("runPayload(%+v, copied %v)\n got %s\nwant %s", tc, copied, got, want)
			}
		}
	}
}
