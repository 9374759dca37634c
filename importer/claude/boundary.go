package claude

import (
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// boundary is a compaction's boundary, held until the line after it
// says whether it is the summary.
type boundary struct {
	line   int
	offset int64
	rec    record
	sess   source.Session
	meta   json.RawMessage
	after  []source.Output // metadata lines written between the two
}

// compactSummary is the text of a compaction's summary, when r is one
// that the anchor of its boundary can hold whole: its text, or its parts.
// A summary with tool results, or with no content, is not: it is mapped
// as any user line is.
func compactSummary(r record) (any, bool) {
	if r.Type != "user" || !r.IsCompactSummary {
		return nil, false
	}
	text, parts, results := userContent(&r.Message.Content)
	switch {
	case text != nil:
		return *text, true
	case len(parts) > 0 && len(results) == 0:
		return parts, true
	}
	return nil, false
}

// closeBoundary makes the anchor of the phase a compaction starts: its
// state holds the summary when next is it.
func (c *converter) closeBoundary(next record) []source.Output {
	b := c.bound
	c.bound = nil
	state := map[string]any{"source": "claude"}
	if b.rec.CompactMetadata != nil {
		state["compact"] = b.rec.CompactMetadata
	}
	if summary, ok := compactSummary(next); ok {
		state["summary"] = summary
	}
	bl := tapelog.RawLine{No: b.line, Offset: b.offset}
	out := c.start(bl, b.rec, b.sess)
	payload := source.MustJSON(map[string]any{"name": "compact", "state": state})
	e := tapelog.Entry{ID: c.entryID(bl, b.rec, 0), Kind: tapelog.KindAnchor, Payload: payload, Meta: b.meta, Date: b.rec.Timestamp}
	out = append(out, source.Output{Session: b.sess, Entry: e, Anchor: true})
	return append(out, b.after...)
}
