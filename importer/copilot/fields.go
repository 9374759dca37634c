package copilot

import (
	"bytes"
	"encoding/json"

	"github.com/tape-dev/tape/internal/rawjson"
)

// The members of a line that the mappings read, as written: parts of the
// line, valid while it is (what an entry keeps of them is copied).

// envelope is a line of events.jsonl: {"type", "data", "id",
// "timestamp", "parentId", "agentId"}.
type envelope struct {
	Type      string
	Data      json.RawMessage
	ID        string
	Timestamp json.RawMessage
	ParentID  string
	AgentID   string
}

// readEnvelope reads the envelope of a line that is one JSON object. ok
// is false when a member of it is of another type than Copilot writes
// (an id that is a number, no type): the line is then kept whole.
func readEnvelope(members func(fn func(key, value []byte))) (ev envelope, ok bool) {
	ok = true
	str := func(v []byte, to *string) {
		if s, isStr := rawjson.String(v); isStr {
			*to = s
		} else if string(v) != "null" {
			ok = false
		}
	}
	members(func(key, v []byte) {
		switch memberName(key) {
		case "type":
			str(v, &ev.Type)
		case "data":
			ev.Data = v
		case "id":
			str(v, &ev.ID)
		case "timestamp":
			ev.Timestamp = v
		case "parentId":
			str(v, &ev.ParentID)
		case "agentId":
			str(v, &ev.AgentID)
		}
	})
	return ev, ok && ev.Type != ""
}

// memberName is a member's name as written between its quotes, decoded.
func memberName(key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key)
	}
	s, _ := rawjson.String(append(append([]byte{'"'}, key...), '"'))
	return s
}

// fields are the members of an event's data that the mappings read, as
// written: one walk serves every type, and a member of another type than
// Copilot writes is no error, but a reason to keep the data whole.
type fields struct {
	// session.start, session.resume, session.context_changed
	SessionID, Version, Producer, SelectedModel, Context json.RawMessage
	// messages
	Content, Transformed, Attachments, Source, Autopilot, Name, Metadata          json.RawMessage
	ReasoningText, Opaque, Encrypted, ToolRequests, Citations, ServerTools, Title json.RawMessage
	// tools
	ToolCallID, ToolName, Arguments, Success, Result, Error, Telemetry, ParentCall json.RawMessage
	// session.compaction_complete, session.shutdown, session.error
	Summary, ModelMetrics, ErrorType, Message json.RawMessage
}

// readFields reads the members of data, an object, that the mappings read.
func readFields(data []byte) fields {
	var f fields
	rawjson.ObjectMembers(data, func(key, v []byte) {
		if p := f.member(memberName(key)); p != nil {
			*p = v
		}
	})
	return f
}

// member is where f keeps the data member called name; nil for one the
// mappings do not read.
func (f *fields) member(name string) *json.RawMessage {
	switch name {
	case "sessionId":
		return &f.SessionID
	case "copilotVersion":
		return &f.Version
	case "producer":
		return &f.Producer
	case "selectedModel":
		return &f.SelectedModel
	case "context":
		return &f.Context
	case "content":
		return &f.Content
	case "transformedContent":
		return &f.Transformed
	case "attachments":
		return &f.Attachments
	case "source":
		return &f.Source
	case "isAutopilotContinuation":
		return &f.Autopilot
	case "name":
		return &f.Name
	case "metadata":
		return &f.Metadata
	case "reasoningText":
		return &f.ReasoningText
	case "reasoningOpaque":
		return &f.Opaque
	case "encryptedContent":
		return &f.Encrypted
	case "toolRequests":
		return &f.ToolRequests
	case "citations":
		return &f.Citations
	case "serverTools":
		return &f.ServerTools
	case "title":
		return &f.Title
	case "toolCallId":
		return &f.ToolCallID
	case "toolName":
		return &f.ToolName
	case "arguments":
		return &f.Arguments
	case "success":
		return &f.Success
	case "result":
		return &f.Result
	case "error":
		return &f.Error
	case "toolTelemetry":
		return &f.Telemetry
	case "parentToolCallId":
		return &f.ParentCall
	case "summaryContent":
		return &f.Summary
	case "modelMetrics":
		return &f.ModelMetrics
	case "errorType":
		return &f.ErrorType
	case "message":
		return &f.Message
	}
	return nil
}
