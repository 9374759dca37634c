package codex

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// rolloutLine is a rollout line: the envelope, or a bare record of the
// rollouts before it.
type rolloutLine struct {
	RawDate    json.RawMessage `json:"timestamp"` // as written: Timestamp is what source.RecordDate reads of it
	Timestamp  string          `json:"-"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	ID         json.RawMessage `json:"id"`
	RecordType string          `json:"record_type"`
	badDate    json.RawMessage // RawDate, when it is no date
}

// payloadItem is a response item, or the part of another payload the
// mapping reads.
type payloadItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Status    string          `json:"status"`
	Action    json.RawMessage `json:"action"`
	Encrypted json.RawMessage `json:"encrypted_content"`
	// session_meta, turn_context, compacted, event_msg
	ID           string          `json:"id"`
	CWD          string          `json:"cwd"`
	Model        string          `json:"model"`
	Instructions *string         `json:"instructions"`
	Git          json.RawMessage `json:"git"`
	Source       json.RawMessage `json:"source"`
	ForkedFrom   string          `json:"forked_from_id"`
	CLIVersion   string          `json:"cli_version"`
	Originator   string          `json:"originator"`
	Message      *string         `json:"message"`
	Info         *usageInfo      `json:"info"`
}

// usageInfo is a token_count's info: the session's usage so far, and the
// last turn's.
type usageInfo struct {
	Total *tokens `json:"total_token_usage"`
	Last  *tokens `json:"last_token_usage"`
}

var envelopeTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

func (c *converter) Line(l tapelog.RawLine) ([]source.Output, error) {
	in := input{l: l} // decoded in place: a payloadItem is half a kilobyte
	fast := decodeFast(l.Data, &c.dec, &in.cl, &in.it)
	if !fast {
		var err error
		if in.cl, err = c.envelope(l); err != nil {
			return c.closeAll(), err
		}
		if in.cl.Type == "" {
			return nil, nil // the early rollouts' state records: nothing of the session
		}
	}
	cl := &in.cl
	var warn error
	if date, bad := c.dates.read(cl.RawDate, c.st.Date); bad != "" {
		cl.Timestamp, cl.badDate, warn = date, source.Trim(cl.RawDate), source.LineWarning(bad)
	} else {
		cl.Timestamp = date
	}
	c.st.Date = cl.Timestamp
	if !fast && (!slowPayload(cl.Payload, &in.it) || !envelopeTypes[cl.Type]) {
		// A payload of a shape the mapping does not know, or a record of
		// a type it does not: kept as it is, as an event.
		in.it = payloadItem{}
		if c.group != nil {
			c.group.out = append(c.group.out, c.event(&in, "codex/"+cl.Type, cl.Payload)...)
			return nil, warn
		}
		return append(c.start(&in), c.event(&in, "codex/"+cl.Type, cl.Payload)...), warn
	}
	if c.group != nil && closesGroup(cl.Type, in.it.Type) {
		return c.mapRecord(&in, c.closeGroup()), warn
	}
	return c.mapRecord(&in, nil), warn
}

// slowPayload reads a payload that decodeFast left to encoding/json into
// it; false when it is no object of payloadItem's shape. It decodes into a
// variable of its own, which escapes: it, in Line's frame, stays there on
// the fast path.
func slowPayload(payload json.RawMessage, it *payloadItem) bool {
	var p payloadItem
	if !source.IsObject(payload) || json.Unmarshal(payload, &p) != nil {
		return false
	}
	*it = p
	return true
}

// envelope reads a line that decodeFast left to encoding/json: its
// envelope, or what stands for one in the rollouts before it. An error is
// a bad line; a Type of "" a record of nothing of the session (the early
// rollouts' state records).
func (c *converter) envelope(l tapelog.RawLine) (rolloutLine, error) {
	var cl rolloutLine
	err := json.Unmarshal(l.Data, &cl)
	switch {
	case err != nil && !source.IsTypeError(err):
		return cl, fmt.Errorf("not a JSON record: %v", source.JSONReason(err))
	case !source.IsObject(l.Data):
		return cl, errors.New("not a JSON object")
	case err != nil:
		// An object of a shape the mapping does not know: kept whole.
		cl = rolloutLine{RawDate: cl.RawDate, Type: "record", Payload: l.Data}
	case cl.RecordType != "":
		return rolloutLine{}, nil // nothing of the session
	case cl.Payload != nil && envelopeTypes[cl.Type]:
	case cl.Type == "" && cl.ID != nil:
		cl.Type, cl.Payload = "session_meta", l.Data // the early rollouts' first line
	case cl.Type != "" && cl.Payload == nil:
		cl.Type, cl.Payload = "response_item", l.Data // the early rollouts' bare items
	case cl.Type == "":
		cl.Type, cl.Payload = "record", l.Data
	}
	return cl, nil
}

// input is one line being mapped.
type input struct {
	l  tapelog.RawLine
	cl rolloutLine
	it payloadItem
}

// closesGroup reports whether a record ends a run of tool calls: anything
// but another call, reasoning, and events other than messages.
func closesGroup(lineType, itemType string) bool {
	switch lineType {
	case "event_msg":
		return itemType == "user_message" || itemType == "agent_message"
	case "response_item":
		return !isCall(itemType) && itemType != "reasoning"
	}
	return true
}

func isCall(t string) bool {
	return t == "function_call" || t == "custom_tool_call" || t == "local_shell_call" || t == "web_search_call"
}

// mapRecord maps one line, appending what it makes to out.
func (c *converter) mapRecord(in *input, out []source.Output) []source.Output {
	out = append(out, c.start(in)...)
	var o []source.Output
	switch in.cl.Type {
	case "session_meta":
		o = c.sessionMeta(in)
	case "turn_context":
		if in.it.Model != "" {
			c.st.Model = in.it.Model
		}
		o = c.event(in, "codex/turn_context", in.cl.Payload)
	case "compacted":
		state := map[string]any{"source": "codex"}
		if in.it.Message != nil {
			state["summary"] = *in.it.Message
		}
		payload := source.MustJSON(map[string]any{"name": "compact", "state": state})
		o = []source.Output{{Session: c.st.Session, Anchor: true, Entry: c.entry(in, 0, tapelog.KindAnchor, payload)}}
	case "event_msg":
		o = c.eventMsg(in)
	default:
		o = c.responseItem(in)
	}
	if c.group != nil {
		c.group.out = append(c.group.out, o...)
		return out
	}
	if out == nil {
		return o // most lines: no copy of what they make
	}
	return append(out, o...)
}
