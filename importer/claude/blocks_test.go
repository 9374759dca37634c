package claude

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
)

// FuzzBlocksAsEncodingJSON checks decodeBlocks against encoding/json: on
// any array of blocks that encoding/json decodes into []block
// without an error, both find the same blocks. (Keys that differ from a
// field's name only by case, or are written with escapes, which
// encoding/json matches and no transcript writes, are left out.)
// foldedKey reports whether a block of raw has a key that encoding/json
// matches to a field only by folding its case.
func foldedKey(raw string) bool {
	var items []map[string]json.RawMessage
	_ = json.Unmarshal([]byte(raw), &items)
	fields := "type text thinking signature id name input tool_use_id content is_error source"
	for _, m := range items {
		for k := range m {
			if low := strings.ToLower(k); low != k && strings.Contains(" "+fields+" ", " "+low+" ") || strings.ContainsRune(k, 'ſ') || strings.ContainsRune(k, 'K') {
				return true
			}
		}
	}
	return false
}

func FuzzBlocksAsEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`[{"type":"text","text":"a \"quoted\" word\\"}]`,
		`[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x\n"}],"is_error":true},{"type":"image","source":{"type":"base64","data":"AA=="}}]`,
		`[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls \\\\"}}, {"type":"thinking","thinking":null,"signature":"s"}]`,
		` [ { "type" : "text" , "text" : "spaced" , "type" : "last" } ] `,
		`[{"content":null,"input":7,"is_error":false}]`,
		`[]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want []block
		if json.Unmarshal([]byte(raw), &want) != nil || !strings.HasPrefix(strings.TrimSpace(raw), "[") {
			return
		}
		if strings.Contains(raw, `\`) || foldedKey(raw) {
			return
		}
		got := decodeBlocks([]byte(strings.TrimSpace(raw)))
		if len(want) == 0 && len(got) == 0 {
			return
		}
		for i := range want { // encoding/json keeps a RawMessage as written, white space and all
			want[i].Input, want[i].Content, want[i].Source = source.Trim(want[i].Input), source.Trim(want[i].Content), source.Trim(want[i].Source)
		}
		for i := range got {
			got[i].Input, got[i].Content, got[i].Source = source.Trim(got[i].Input), source.Trim(got[i].Content), source.Trim(got[i].Source)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeBlocks(%s)\n got %+v\nwant %+v", raw, got, want)
		}
	})
}
