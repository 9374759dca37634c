package claude

import (
	"bytes"
	"encoding/json"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// A progress record ({"type": "progress", "data": {"type":
// "agent_progress", "agentId", "message": {a record}}}) repeats, in the
// parent's transcript, a record a subagent wrote: its messages are in the
// subagent's own transcript, and are not imported from here. Its usage is
// counted when that transcript is missing (Claude Code did not keep it, or
// it was deleted): ccusage 20 counts the usage of every progress record's
// inner record, by its own timestamp, once per message id and request id,
// and so does tape, with a run event in the parent's tape marked
// "usage_copy" (views.Run.Copy): where the subagent's own transcript
// gives the same usage id, its run counts instead.

// progressRecord is what a progress line's usage is read from.
type progressRecord struct {
	Data struct {
		AgentID string `json:"agentId"`
		Message struct {
			Timestamp json.RawMessage `json:"timestamp"`
			RequestID string          `json:"requestId"`
			Message   struct {
				ID    string      `json:"id"`
				Model string      `json:"model"`
				Usage *tokenUsage `json:"usage"`
			} `json:"message"`
		} `json:"message"`
	} `json:"data"`
}

// progressUsage is the run event of a progress line that carries usage,
// or none. Most progress lines carry none: they are skipped without a
// decode.
func (c *converter) progressUsage(l tapelog.RawLine, r record, s source.Session) []source.Output {
	if !bytes.Contains(l.Data, []byte(`"usage"`)) {
		return nil
	}
	var p progressRecord
	if json.Unmarshal(l.Data, &p) != nil || p.Data.Message.Message.Usage == nil {
		return nil // a usage of a shape ccusage would not count either
	}
	inner := p.Data.Message
	date, bad := source.RecordDate(inner.Timestamp, r.Timestamp)
	if bad != "" {
		date = r.Timestamp
	}
	meta := recordMeta(c.path, l, r)
	if p.Data.AgentID != "" {
		meta.Str("agent_id", p.Data.AgentID)
	}
	payload := runPayload(inner.Message.Usage, inner.Message.Model, usageID(inner.Message.ID, inner.RequestID), true)
	e := tapelog.Entry{ID: c.entryID(l, r, 0) + "/usage", Kind: tapelog.KindEvent, Payload: payload, Meta: meta.Done(), Date: date}
	return append(c.start(l, r, s), source.Output{Session: s, Entry: e})
}
