package views

import (
	"encoding/json"
	"slices"
	"testing"
)

// decodeResults is what Results said when it was encoding/json's.
func decodeResults(payload []byte) ([]json.RawMessage, bool) {
	var p struct {
		Results *[]json.RawMessage `json:"results"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Results == nil {
		return nil, false
	}
	return *p.Results, true
}

func TestResults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		payload string
		want    []string
		ok      bool
	}{
		{`{"results":["a", {"b": [1, 2]} ,3]}`, []string{`"a"`, `{"b": [1, 2]}`, `3`}, true},
		{`{"results":[]}`, []string{}, true},
		{`{"RESULTS":["x"],"other":1}`, []string{`"x"`}, true},
		{`{"r\u0065sults":["x"]}`, []string{`"x"`}, true},
		{`{"results":["x"],"results":["y"]}`, []string{`"y"`}, true},
		{`{"results":["x"],"results":null}`, nil, false},
		{`{"results":5,"results":["y"]}`, nil, false},
		{`{"results":"no"}`, nil, false},
		{`["results"]`, nil, false},
		{`{}`, nil, false},
	} {
		got, ok := Results(json.RawMessage(tc.payload))
		if ok != tc.ok || !slices.Equal(strs(got), tc.want) {
			t.Errorf("Results(%s) = %q, %v; want %q, %v", tc.payload, strs(got), ok, tc.want, tc.ok)
		}
	}
}

func strs(raws []json.RawMessage) []string {
	if raws == nil {
		return nil
	}
	out := []string{}
	for _, r := range raws {
		out = append(out, string(r))
	}
	return out
}

// FuzzArrayMember: on valid JSON, Results reads what encoding/json reads.
func FuzzArrayMember(f *testing.F) {
	f.Add(`{"results":["a",{"b":[1,"]"]}, 3 ]}`)
	f.Add(`{"Results":null,"results":[true]}`)
	f.Add(`{"re\u0073ults":[],"x":{"results":1}}`)
	f.Add(`{"ReſultS":[1]}`)
	f.Fuzz(func(t *testing.T, payload string) {
		if !json.Valid([]byte(payload)) {
			return
		}
		got, ok := Results(json.RawMessage(payload))
		want, wantOK := decodeResults([]byte(payload))
		if ok != wantOK || !slices.Equal(strs(got), strs(want)) {
			t.Fatalf("Results(%s) = %q, %v; encoding/json reads %q, %v", payload, strs(got), ok, strs(want), wantOK)
		}
	})
}
