package cursor

import (
	"testing"

	"github.com/tape-dev/tape/importer/sourcetest"
)

// FuzzConverter: a checkpoint anywhere loses nothing and adds nothing,
// from the golden transcripts and mirror files, and records of odd
// shapes.
func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{},
		`{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c","content":null,"is_error":"x"}]}}`+"\n"+`{"role":"assistant","message":{"content":[7,null,{"type":"tool_use","id":"c"}]}}`+"\n",
		`{"role":{"a":1},"message":[]}`+"\n"+`[]`+"\n",
		`{"table":"cursorDiskKV","key":"bubbleId:c:b","data":{"type":2,"toolFormerData":{"status":"error","result":7}}}`+"\n"+`{"table":"cursorDiskKV","key":"composerData:c","data":null}`+"\n")
}

// A record whose members are of other shapes than the mapping reads keeps
// its text, as an event of the record or inside the entry it makes.
func TestOddShapesKeepTheirText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		lines, want []string
	}{
		{"a user's text as a string, its query the title", []string{`{"role":"user","message":{"content":"<user_query>\nhi there\n</user_query>"}}`}, []string{
			`message {"role":"user","content":"<user_query>\nhi there\n</user_query>"}`,
			`event {"data":{"title":"hi there","from":"user_query"},"name":"title"}`,
		}},
		{"a record of a role tape does not map", []string{`{"role":"system","message":{"content":"be brief"}}`}, []string{
			`event {"data":{"role":"system","message":{"content":"be brief"}},"name":"cursor/system"}`,
		}},
		{"a message that is not an object", []string{`{"role":"user","message":"hi"}`}, []string{
			`event {"data":{"role":"user","message":"hi"},"name":"cursor/user"}`,
		}},
		{"a block that is not an object, a text that is a number", []string{`{"role":"assistant","message":{"content":["hi",{"type":"text","text":5}]}}`}, []string{
			`event {"data":"hi","name":"cursor/block"}`,
			`event {"data":{"type":"text","text":5},"name":"cursor/text"}`,
		}},
		{"a call without an id", []string{`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{}}]}}`}, []string{
			`event {"data":{"type":"tool_use","name":"Read","input":{}},"name":"cursor/tool_use"}`,
		}},
		{"a failed result of blocks, with a member Cursor does not write", []string{`{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","is_error":true,"content":[{"type":"text","text":"a"},{"type":"image","data":"x"}],"ms":4}]}}`}, []string{
			`tool_result {"results":[{"tool_call_id":"c1","content":[{"type":"text","text":"a"},{"type":"image","data":"x"}],"is_error":true,"details":{"ms":4}}]}`,
		}},
		{"a result whose is_error is a string", []string{`{"role":"tool","message":{"content":[{"type":"tool_result","tool_use_id":"c1","is_error":"maybe","content":"ok"}]}}`}, []string{
			`tool_result {"results":[{"tool_call_id":"c1","content":"ok","details":{"is_error":"maybe"}}]}`,
		}},
		{"members of the record and its message Cursor does not write", []string{`{"role":"assistant","id":"r1","message":{"content":"ok","model":"m"}}`}, []string{
			`message {"role":"assistant","content":"ok"}`,
			`event {"data":{"id":"r1"},"name":"cursor/record"}`,
			`event {"data":{"model":"m"},"name":"cursor/message"}`,
		}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}
