package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// slowDecode is what Line read of a line before decodeFast: the envelope
// and the payload, each by encoding/json; ok is false where Line keeps the
// line as an event or a bad line instead.
func slowDecode(line []byte) (cl rolloutLine, it payloadItem, ok bool) {
	if json.Unmarshal(line, &cl) != nil || cl.RecordType != "" || cl.Payload == nil || !envelopeTypes[cl.Type] {
		return cl, it, false
	}
	if len(bytes.TrimSpace(cl.Payload)) == 0 || bytes.TrimSpace(cl.Payload)[0] != '{' || json.Unmarshal(cl.Payload, &it) != nil {
		return cl, it, false
	}
	return cl, it, true
}

// checkDecodeFast fails unless decodeFast, where it takes a line, reads
// it as encoding/json does; it reports whether it took it.
func checkDecodeFast(t *testing.T, ld *lineDecoder, line []byte) bool {
	t.Helper()
	var cl rolloutLine
	var it payloadItem
	ok := decodeFast(line, ld, &cl, &it)
	if !ok {
		return false
	}
	wantCl, wantIt, wantOK := slowDecode(line)
	if !wantOK {
		t.Fatalf("decodeFast took %s, which encoding/json does not decode as an envelope and payload", line)
	}
	if !reflect.DeepEqual(cl, wantCl) || !reflect.DeepEqual(it, wantIt) {
		t.Fatalf("decodeFast(%s)\n = %+v %+v\nwant %+v %+v", line, cl, it, wantCl, wantIt)
	}
	return true
}

// goldenLines are the lines of the golden rollouts, and variants of each
// that decodeFast must leave to encoding/json or read as it reads them.
func goldenLines(t testing.TB) [][]byte {
	files, err := filepath.Glob("../../testdata/import/codex/src/*/*/*/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden rollouts: %v", err)
	}
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			lines = append(lines, l)
			for _, v := range [][2]string{
				{`"type":`, `"TYPE":`},            // a key matched by folding its case
				{`"payload":`, `"Payload":`},      // the same, of the envelope
				{`"call_id":`, `"call\u005fid":`}, // a key with an escape
				{`"name":"`, `"name":7,"x":"`},    // a member of another type
				{`"input_tokens":`, `"input_tokens":1.5,"a":`},
				{`"message":"`, `"message":null,"m":"`},
				{`"info":{`, `"info":null,"i":{`},
				{`"info":{`, `"info":{"last_token_usage":{"output_tokens":3}},"info":{`}, // an info written twice: the second read into the first
				{`"total_token_usage":{`, `"total_token_usage":{"input_tokens":9},"total_token_usage":null,"total_token_usage":{`}, // a usage anew after a null
				{`"model":"`, `"model":null,"model2":"`},
				{`"timestamp":"`, `"timestamp":null,"t":"`},
				{`"payload":{`, `"payload":{"type":"a"},"payload":{`}, // repeated: the last counts
				{`"type":"`, `"type":"x","type":"`},
				{`{"timestamp"`, `{"record_type":"state","timestamp"`},
			} {
				if m := bytes.Replace(l, []byte(v[0]), []byte(v[1]), 1); !bytes.Equal(m, l) {
					lines = append(lines, m)
				}
			}
		}
	}
	// A usage written again after a null, without the members of the
	// first: read anew, as encoding/json reads it.
	return append(lines, []byte(`{"timestamp":"2025-10-29T02:00:00.000Z","type":"event_msg","payload":{"type":"token_count",`+
		`"info":{"total_token_usage":{"input_tokens":9},"total_token_usage":null,"total_token_usage":{"output_tokens":1}}}}`))
}

func TestDecodeFastAgreesWithEncodingJSON(t *testing.T) {
	took := 0
	var ld lineDecoder // one for all: the names of each line are those of the lines before
	for _, l := range goldenLines(t) {
		if checkDecodeFast(t, &ld, l) {
			took++
		}
	}
	// Most lines of the current layout take the fast path: else it buys
	// nothing.
	if took < 40 {
		t.Errorf("decodeFast took %d lines of the golden rollouts; want most of them", took)
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, l := range goldenLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var ld lineDecoder
		for range 2 { // the second time, its names are read before
			checkDecodeFast(t, &ld, line)
		}
	})
}
