package claude

import (
	"encoding/json"

	"github.com/tape-dev/tape/internal/rawjson"
)

// decodeBlocks reads a content's blocks from the array text raw, as
// encoding/json would decode it into []block (the last of repeated
// keys wins; a member of another type than the field's is left out).
//
// It exists because decoding the blocks with encoding/json checked and
// scanned every tool output (tens of KB) twice more after the line's own
// decode: half of an import's CPU was encoding/json
// (BenchmarkImportClaude). It skips over values with rawjson's scanning
// functions instead, and depends on raw being valid JSON, a part of a line
// encoding/json decoded. FuzzBlocksAsEncodingJSON checks that it reads
// blocks as encoding/json does.
func decodeBlocks(raw []byte) []block {
	var blocks []block
	rawjson.ArrayItems(raw, func(item []byte) {
		var b block
		// A block that is not an object, or a member of another type than
		// its field's, is odd: the mapping keeps it as written.
		b.odd = item[0] != '{' && string(item) != "null"
		rawjson.ObjectMembers(item, func(key, v []byte) {
			str := func(dst *string) {
				if s, ok := rawjson.String(v); ok {
					*dst = s
				} else if string(v) != "null" {
					b.odd = true
				}
			}
			strp := func(dst **string) {
				if s, ok := rawjson.String(v); ok {
					*dst = &s
				} else if string(v) == "null" {
					*dst = nil
				} else {
					b.odd = true
				}
			}
			rawv := func(dst *json.RawMessage) { *dst = json.RawMessage(v) }
			switch string(key) {
			case "type":
				str(&b.Type)
			case "text":
				strp(&b.Text)
			case "thinking":
				strp(&b.Thinking)
			case "signature":
				str(&b.Signature)
			case "id":
				str(&b.ID)
			case "name":
				str(&b.Name)
			case "input":
				rawv(&b.Input)
			case "tool_use_id":
				str(&b.ToolUseID)
			case "content":
				rawv(&b.Content)
			case "is_error":
				switch string(v) {
				case "true":
					b.IsError = true
				case "false":
					b.IsError = false
				case "null":
				default:
					b.odd = true
				}
			case "source":
				rawv(&b.Source)
			}
		})
		blocks = append(blocks, b)
	})
	return blocks
}
