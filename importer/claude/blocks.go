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
		var d fieldDecoder
		rawjson.ObjectMembers(item, func(key, v []byte) {
			switch string(key) {
			case "type":
				d.str(v, &b.Type)
			case "text":
				d.strPtr(v, &b.Text)
			case "thinking":
				d.strPtr(v, &b.Thinking)
			case "signature":
				d.str(v, &b.Signature)
			case "id":
				d.str(v, &b.ID)
			case "name":
				d.str(v, &b.Name)
			case "input":
				b.Input = json.RawMessage(v)
			case "tool_use_id":
				d.str(v, &b.ToolUseID)
			case "content":
				b.Content = json.RawMessage(v)
			case "is_error":
				d.boolean(v, &b.IsError)
			case "source":
				b.Source = json.RawMessage(v)
			}
		})
		b.odd = b.odd || d.mismatch
		blocks = append(blocks, b)
	})
	return blocks
}
