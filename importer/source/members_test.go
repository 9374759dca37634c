package source

import (
	"strings"
	"testing"
)

func TestLineMembers(t *testing.T) {
	cases := []struct {
		line, want, err string
	}{
		{`{"type":"a","id":"1"}`, `type="a" id="1"`, ""},
		{`{"type":"a","id":"1","type":"b"}`, `id="1" type="b"`, ""}, // the last of a repeated key, as encoding/json
		{`{"k":"` + "\xff" + `"}`, `k="` + "\uFFFD" + `"`, ""},      // invalid UTF-8 read as U+FFFD
		{`[1,2]`, "", "not a JSON object"},
		{`null`, "", "not a JSON object"},
		{`{"a":`, "", "not a JSON record"},
	}
	for _, tc := range cases {
		members, err := LineMembers([]byte(tc.line), nil)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("LineMembers(%q) = %v, want the error %q", tc.line, err, tc.err)
			}
			continue
		}
		var got []string
		for _, m := range members {
			got = append(got, string(m.Key)+"="+string(m.Value))
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("LineMembers(%q) = %q, %v; want %q", tc.line, strings.Join(got, " "), err, tc.want)
		}
	}
	if s, ok := StringValue([]byte(`"x\u00e9"`)); !ok || s != "xé" {
		t.Errorf(`StringValue("x\u00e9") = %q, %v`, s, ok)
	}
	if _, ok := StringValue([]byte(`12`)); ok {
		t.Error("StringValue(12) read a number as a string")
	}
}

// TestObjectOf: a nested object's keys decoded, each once (the last), as
// encoding/json reads them; what MembersObject then writes is that object.
func TestObjectOf(t *testing.T) {
	got := string(MembersObject(ObjectOf([]byte(` {"a\"b":1,"\u0061":2,"a":3} `)), nil))
	if want := `{"a\"b":1,"a":3}`; got != want {
		t.Errorf("ObjectOf, then MembersObject = %s, want %s", got, want)
	}
	if ObjectOf([]byte(`[1]`)) != nil {
		t.Error("ObjectOf of a list is not nil")
	}
}
