package codex

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// readPartsJSON is what readParts was before it read by rawjson: each
// value by encoding/json.
func readPartsJSON(raw json.RawMessage) (parts []part, ok bool) {
	raw = source.Trim(raw)
	if len(raw) == 0 {
		return nil, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return []part{{text: s}}, true
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	for _, item := range items {
		p, ok := readPartJSON(item)
		if !ok {
			return nil, false
		}
		parts = append(parts, p)
	}
	return parts, true
}

// checkReaders fails unless the readers by rawjson read the JSON value raw
// as encoding/json reads it, each where the converter may call it.
func checkReaders(t *testing.T, raw []byte) {
	t.Helper()
	if !json.Valid(raw) {
		return // the converter reads only parts of lines that decoded
	}
	wantParts, wantOK := readPartsJSON(raw)
	var names lineDecoder
	for range 2 { // the second time, the parts' types are read before
		gotParts, gotOK := readParts(raw, &names)
		if gotOK != wantOK || !reflect.DeepEqual(gotParts, wantParts) {
			t.Fatalf("readParts(%s) = %+v %v, want %+v %v", raw, gotParts, gotOK, wantParts, wantOK)
		}
	}
	if got, want := failed(raw, &names), failedJSON(raw); got != want {
		t.Fatalf("failed(%s) = %v, want %v", raw, got, want)
	}
	if got, want := argText(raw), mapArgText(raw); got != want {
		t.Fatalf("argText(%s) = %q, want %q", raw, got, want)
	}
	if source.IsObject(raw) {
		gotText, gotOK := eventText(nil, raw)
		wantText, wantOK := eventTextJSON(raw)
		if gotText != wantText || gotOK != wantOK {
			t.Fatalf("eventText(%s) = %q %v, want %q %v", raw, gotText, gotOK, wantText, wantOK)
		}
	}
}

// readerValues are the values of a line the readers may read: the
// payload, and each of its members, and theirs, to some depth.
func readerValues(line []byte) [][]byte {
	_, it, ok := slowDecode(line)
	if !ok {
		return nil
	}
	values := [][]byte{}
	var walk func(v []byte, depth int)
	walk = func(v []byte, depth int) {
		values = append(values, v)
		if depth == 0 {
			return
		}
		rawjson.ObjectMembers(v, func(_, v []byte) { walk(v, depth-1) })
		rawjson.ArrayItems(v, func(v []byte) { walk(v, depth-1) })
		if s, ok := rawjson.String(v); ok && json.Valid([]byte(s)) {
			walk([]byte(s), depth-1) // an output: JSON in a string
		}
	}
	for _, v := range []json.RawMessage{it.Content, it.Summary, it.Output, it.Arguments, it.Input} {
		if len(v) > 0 {
			walk(v, 3)
		}
	}
	var cl rolloutLine
	if json.Unmarshal(line, &cl) == nil {
		values = append(values, cl.Payload)
	}
	return values
}

// oddOutputs are outputs and contents the golden rollouts do not hold:
// failures, and shapes the readers leave to encoding/json.
var oddOutputs = []string{
	`"{\"success\":false}"`, `{"success":false}`, `{"success":true,"metadata":{"exit_code":2}}`,
	`"{\"metadata\":{\"exit_code\":0.0},\"metadata\":{\"x\":1}}"`, `"{\"metadata\":{\"exit_code\":3},\"metadata\":null}"`,
	`"{\"metadata\":{\"exit_code\":-0}}"`, `"{\"metadata\":{\"exit_code\":1e400}}"`, `"{\"metadata\":{\"exit_code\":\"1\"}}"`,
	`"{\"Success\":false}"`, `"{\"succ\\u0065ss\":false}"`, `"{\"ſuccess\":false}"`, `"{\"success\":0}"`, `"{\"success\":null}"`,
	`"{\"metadata\":{\"EXIT_CODE\":1}}"`, `"{\"metadata\":[1]}"`, `"{\"metadata\":5}"`, `"\u00a0{\"success\":false}"`,
	`" \t{\"success\":false} "`, `"{\"success\":false"`, `"null"`, `null`, `""`, `"plain text"`, `7`, `[{"success":false}]`,
	`[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"u"}]`, `[{"TEXT":"a"}]`, `[{"te\u0078t":"a"}]`,
	`[{"text":"a","text":null}]`, `[{"text":"a","image_url":"u"}]`, `[{"type":"input_image","text":"a"}]`, `[{"text":5}]`,
	`[{"type":null,"text":"\ud800 x"}]`, `[]`, `[null]`, `["a"]`, `{"text":"t"}`, `{"text":null}`, `{"Text":"t"}`, `{"text":1}`,
	`{"message":"m","text":"t","text":"u"}`,
}

func TestReadersAgreeWithEncodingJSON(t *testing.T) {
	for _, l := range goldenLines(t) {
		for _, v := range readerValues(l) {
			checkReaders(t, v)
		}
	}
	for _, v := range oddOutputs {
		checkReaders(t, []byte(v))
	}
	// Each reader's answers: not only the same as encoding/json's, but
	// the ones the converter relies on.
	for _, tc := range []struct {
		output string
		want   bool
	}{{`"{\"success\":false}"`, true}, {`"{\"metadata\":{\"exit_code\":2}}"`, true}, {`"{\"metadata\":{\"exit_code\":0}}"`, false}, {`"ok"`, false}} {
		if got := failed([]byte(tc.output), nil); got != tc.want {
			t.Errorf("failed(%s) = %v, want %v", tc.output, got, tc.want)
		}
	}
}

// FuzzReaders: the readers by rawjson read any JSON value as encoding/json
// reads it.
func FuzzReaders(f *testing.F) {
	for _, l := range goldenLines(f) {
		for _, v := range readerValues(l) {
			f.Add(v)
		}
	}
	for _, v := range oddOutputs {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkReaders(t, raw) })
}
