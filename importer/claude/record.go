package claude

import (
	"encoding/json"
	"errors"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// record is the part of a transcript line the mapping reads
// (scanRecord). Its raw members, but CompactMetadata, may be parts of the
// line, valid only while the line is converted.
type record struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	ParentUUID       *string         `json:"parentUuid"`
	SessionID        string          `json:"sessionId"`
	AgentID          string          `json:"agentId"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsAPIError       bool            `json:"isApiErrorMessage"`
	RawDate          json.RawMessage `json:"timestamp"` // as written: Timestamp is what source.RecordDate reads of it
	Timestamp        string          `json:"-"`
	CWD              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	Version          string          `json:"version"`
	RequestID        string          `json:"requestId"`
	Message          message         `json:"message"`
	CompactMetadata  json.RawMessage `json:"compactMetadata"` // compact_boundary
	AITitle          string          `json:"aiTitle"`
	CustomTitle      string          `json:"customTitle"`
	unknown          bool            // of a shape the mapping does not read: an event
	badDate          json.RawMessage // RawDate, when it is no date
}

// detached is r without the parts of its line that scanRecord leaves in
// it (the raw date, the content and its blocks' raw members): a record
// held past its line, whose buffer the reader reuses, keeps only what it
// owns. CompactMetadata is copied by scanRecord.
func (r record) detached() record {
	r.RawDate, r.badDate = nil, nil
	r.Message.RawContent, r.Message.Content = nil, content{}
	return r
}

type message struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	RawContent json.RawMessage `json:"content"` // see content
	Usage      *tokenUsage     `json:"usage"`
	Content    content         `json:"-"`
}

// content is a message's content: a string, or a list of blocks.
type content struct {
	Text   *string
	Blocks []block
	Raw    json.RawMessage // as written
}

// content reads a message's content, which the line's decode checked:
// its blocks are found by skipping over their values (decodeBlocks), so a
// tool's output, the bulk of a transcript, is not scanned again.
func (m *message) decodeContent() error {
	b := source.Trim(m.RawContent)
	m.Content = content{Raw: b}
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		s, _ := rawjson.String(b)
		m.Content.Text = &s
	case b[0] == '[':
		m.Content.Blocks = decodeBlocks(b)
	default:
		return errors.New(`"message.content" is neither text nor a list of blocks`)
	}
	return nil
}

// rawBlocks is the content's blocks as written, for the few a mapping
// keeps whole: parts of Raw, which the line's decode checked.
func (c *content) rawBlocks() []json.RawMessage {
	var raw []json.RawMessage
	rawjson.ArrayItems(c.Raw, func(item []byte) { raw = append(raw, item) })
	return raw
}

type tokenUsage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
}

func (u tokenUsage) total() int64 { return u.Input + u.Output + u.CacheCreation + u.CacheRead }

// block is one content block.
type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  *string         `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    json.RawMessage `json:"source"`
	// odd: the block is not an object, or a member the mapping reads is
	// of another type (a text that is a number, an id that is an object):
	// it is kept as written (decodeBlocks).
	odd bool
}

// envelopeKeys are the keys of a line that its entry's meta carries (or
// that say which session it belongs to); an event made of a record keeps
// the others.
var envelopeKeys = []string{"parentUuid", "logicalParentUuid", "isSidechain", "userType", "entrypoint", "cwd", "sessionId",
	"version", "gitBranch", "slug", "uuid", "timestamp", "type", "agentId", "promptId"}
