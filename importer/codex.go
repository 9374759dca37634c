package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Codex is the Codex CLI's rollout format: one {"timestamp", "type",
// "payload"} record a line in <codex home>/sessions/YYYY/MM/DD/
// rollout-<time>-<id>.jsonl (and bare records in the rollouts of mid
// 2025). docs/IMPORT.md has the mapping.
var Codex = &Format{
	Name: "codex",
	DefaultDirs: func(getenv func(string) string, home string) []string {
		if dir := getenv("CODEX_HOME"); dir != "" {
			return []string{filepath.Join(dir, "sessions")}
		}
		return []string{filepath.Join(home, ".codex", "sessions")}
	},
	DirsEnv: "CODEX_HOME",
	IsTranscript: func(path string) bool {
		base := filepath.Base(path)
		return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
	},
	newConverter: func(path string, state []byte) (converter, error) {
		return newCodexConverter(path, state)
	},
}

// codexFileSession is the session a rollout's name says it holds: its
// name ends in the session's id.
func codexFileSession(path string) Session {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := Session{Source: "codex", ID: stem}
	if len(stem) >= 36 && uuidRE.MatchString(stem[len(stem)-36:]) {
		s.ID = stem[len(stem)-36:]
	}
	return s
}

// codexTokens is Codex's TokenUsage.
type codexTokens struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

func (t codexTokens) minus(o codexTokens) codexTokens {
	return codexTokens{t.Input - o.Input, t.Cached - o.Cached, t.Output - o.Output, t.Reasoning - o.Reasoning, t.Total - o.Total}
}

func (t codexTokens) negative() bool {
	return t.Input < 0 || t.Cached < 0 || t.Output < 0 || t.Reasoning < 0 || t.Total < 0
}

func (t codexTokens) zero() bool { return t == codexTokens{} }

// codexState is what a Codex converter carries from line to line, and
// keeps in a checkpoint.
type codexState struct {
	Session Session      `json:"session"`
	Started bool         `json:"started"` // the session's first anchor was made
	Meta    bool         `json:"meta"`    // its session_meta was read (a later one is a parent's, replayed)
	CWD     string       `json:"cwd"`
	Model   string       `json:"model"`
	Totals  *codexTokens `json:"totals"` // the last cumulative usage
	Parent  string       `json:"parent"` // the parent session of a subagent or a fork
	Date    string       `json:"date"`   // the last timestamp read, for records without one
	// Echo holds, by role (user, assistant, reasoning), the text of the
	// last message made from one of the two records Codex writes of it (a
	// response item and an event), until the other one comes: that one is
	// the same message, and makes no entry (see echoed).
	Echo map[string]string `json:"echo,omitempty"`
}

type codexConverter struct {
	path  string
	st    codexState
	saved []byte // st before the held calls, as state() writes it
	group *codexGroup
}

func newCodexConverter(path string, state []byte) (*codexConverter, error) {
	c := &codexConverter{path: path}
	if state != nil {
		if err := json.Unmarshal(state, &c.st); err != nil {
			return nil, fmt.Errorf("read the checkpoint's state: %w", err)
		}
	}
	if c.st.Session.Source == "" {
		c.st.Session = codexFileSession(path)
	}
	return c, nil
}

// codexLine is a rollout line: the envelope, or a bare record of the
// rollouts before it.
type codexLine struct {
	RawDate    json.RawMessage `json:"timestamp"` // as written: Timestamp is what recordDate reads of it
	Timestamp  string          `json:"-"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	ID         json.RawMessage `json:"id"`
	RecordType string          `json:"record_type"`
	badDate    json.RawMessage // RawDate, when it is no date
}

// codexItem is a response item, or the part of another payload the
// mapping reads.
type codexItem struct {
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
	Info         *struct {
		Total *codexTokens `json:"total_token_usage"`
		Last  *codexTokens `json:"last_token_usage"`
	} `json:"info"`
}

var codexEnvelope = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

func (c *codexConverter) line(l tapelog.RawLine) ([]Output, error) {
	var cl codexLine
	err := json.Unmarshal(l.Data, &cl)
	switch {
	case err != nil && !isTypeError(err):
		return c.closeAll(), fmt.Errorf("not a JSON record: %v", jsonReason(err))
	case !isObject(l.Data):
		return c.closeAll(), errors.New("not a JSON object")
	case err != nil:
		// An object of a shape the mapping does not know: kept whole.
		cl = codexLine{RawDate: cl.RawDate, Type: "record", Payload: l.Data}
	case cl.RecordType != "":
		return nil, nil // the early rollouts' state records: nothing of the session
	case cl.Payload != nil && codexEnvelope[cl.Type]:
	case cl.Type == "" && cl.ID != nil:
		cl.Type, cl.Payload = "session_meta", l.Data // the early rollouts' first line
	case cl.Type != "" && cl.Payload == nil:
		cl.Type, cl.Payload = "response_item", l.Data // the early rollouts' bare items
	case cl.Type == "":
		cl.Type, cl.Payload = "record", l.Data
	}
	var warn error
	if date, bad := recordDate(cl.RawDate, c.st.Date); bad != "" {
		cl.Timestamp, cl.badDate, warn = date, trimJSON(cl.RawDate), lineWarning(bad)
	} else {
		cl.Timestamp = date
	}
	c.st.Date = cl.Timestamp
	var it codexItem
	if !isObject(cl.Payload) || json.Unmarshal(cl.Payload, &it) != nil || !codexEnvelope[cl.Type] {
		// A payload of a shape the mapping does not know, or a record of
		// a type it does not: kept as it is, as an event.
		in := codexIn{l: l, cl: cl}
		if c.group != nil {
			c.group.out = append(c.group.out, c.event(in, "codex/"+cl.Type, cl.Payload)...)
			return nil, warn
		}
		return append(c.start(in), c.event(in, "codex/"+cl.Type, cl.Payload)...), warn
	}
	in := codexIn{l: l, cl: cl, it: it}
	if c.group != nil && closesGroup(cl.Type, it.Type) {
		out := c.closeGroup()
		return append(out, c.record(in)...), warn
	}
	return c.record(in), warn
}

// codexIn is one line being mapped.
type codexIn struct {
	l  tapelog.RawLine
	cl codexLine
	it codexItem
}

// closesGroup reports whether a record ends a run of tool calls: anything
// but another call, reasoning, and events other than messages.
func closesGroup(lineType, itemType string) bool {
	switch lineType {
	case "event_msg":
		return itemType == "user_message" || itemType == "agent_message"
	case "response_item":
		return !isCodexCall(itemType) && itemType != "reasoning"
	}
	return true
}

func isCodexCall(t string) bool {
	return t == "function_call" || t == "custom_tool_call" || t == "local_shell_call" || t == "web_search_call"
}

// record maps one line.
func (c *codexConverter) record(in codexIn) []Output {
	out := c.start(in)
	var o []Output
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
		payload := mustJSON(map[string]any{"name": "compact", "state": state})
		o = []Output{{Session: c.st.Session, Anchor: true, Entry: c.entry(in, 0, tapelog.KindAnchor, payload)}}
	case "event_msg":
		o = c.eventMsg(in)
	default:
		o = c.responseItem(in)
	}
	if c.group != nil {
		c.group.out = append(c.group.out, o...)
		return out
	}
	return append(out, o...)
}

// start makes the first anchor of the session's tape, before its first
// entry.
func (c *codexConverter) start(in codexIn) []Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	state := map[string]any{"source": "codex", "session_id": c.st.Session.ID, "file": c.path}
	if in.cl.Type == "session_meta" {
		if in.it.ID != "" {
			c.st.Session.ID, state["session_id"] = in.it.ID, in.it.ID
		}
		if in.it.CWD != "" {
			state["cwd"] = in.it.CWD
		}
		var git codexGit
		if json.Unmarshal(in.it.Git, &git) == nil {
			for k, v := range map[string]string{"git_branch": git.Branch, "git_commit": git.Commit, "repository_url": git.Repo} {
				if v != "" {
					state[k] = v
				}
			}
		}
		for k, v := range map[string]string{"cli_version": in.it.CLIVersion, "originator": in.it.Originator} {
			if v != "" {
				state[k] = v
			}
		}
		if p := codexParent(in.it); p != "" {
			c.st.Parent, state["parent_session"] = p, p
		}
	}
	payload := mustJSON(map[string]any{"name": "session/start", "state": state})
	e := tapelog.Entry{ID: c.st.Session.ID, Kind: tapelog.KindAnchor, Payload: payload,
		Meta: metaOf(c.path, in.l.No, "", "", nil).Done(), Date: in.cl.Timestamp}
	return []Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}

// codexGit is what the first anchor keeps of a session_meta's git.
type codexGit struct {
	Branch string `json:"branch"`
	Commit string `json:"commit_hash"`
	Repo   string `json:"repository_url"`
}

// codexSource is what the first anchor keeps of a session_meta's source:
// the parent of a subagent (a source may also be a string, "cli").
type codexSource struct {
	Subagent struct {
		ThreadSpawn struct {
			Parent string `json:"parent_thread_id"`
		} `json:"thread_spawn"`
	} `json:"subagent"`
}

// codexParent is the session a subagent's or a fork's rollout came from.
func codexParent(it codexItem) string {
	if it.ForkedFrom != "" {
		return it.ForkedFrom
	}
	var src codexSource
	if json.Unmarshal(it.Source, &src) == nil {
		return src.Subagent.ThreadSpawn.Parent
	}
	return ""
}

// codexMetaRead reports whether the first anchor can hold what a
// session_meta's git and source say: each absent, or an object of the
// shape Codex writes; a source may also be a string (the kind of client,
// "cli", which the anchor does not keep).
func codexMetaRead(it codexItem) bool {
	readable := func(raw json.RawMessage, v any) bool {
		raw = trimJSON(raw)
		return len(raw) == 0 || string(raw) == "null" || raw[0] == '{' && json.Unmarshal(raw, v) == nil
	}
	src := trimJSON(it.Source)
	return readable(it.Git, &codexGit{}) && (len(src) > 0 && src[0] == '"' || readable(src, &codexSource{}))
}

// sessionMeta maps the session's header: its instructions become a
// system entry. A second header is a parent's, replayed: an event.
func (c *codexConverter) sessionMeta(in codexIn) []Output {
	if c.st.Meta {
		return c.event(in, "codex/session_meta", in.cl.Payload)
	}
	c.st.Meta = true
	if in.it.CWD != "" {
		c.st.CWD = "" // the first entry's meta names it
	}
	var out []Output
	if in.it.Instructions != nil && *in.it.Instructions != "" {
		payload := mustJSON(map[string]any{"content": *in.it.Instructions})
		out = append(out, Output{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindSystem, payload)})
	}
	if !codexMetaRead(in.it) {
		// A git or source the anchor cannot hold: the header is kept
		// whole too.
		payload := mustJSON(map[string]any{"name": "codex/session_meta", "data": rawOrNull(in.cl.Payload)})
		out = append(out, Output{Session: c.st.Session, Entry: c.entry(in, len(out), tapelog.KindEvent, payload)})
	}
	return out
}

// entry is the k-th entry made from a line.
func (c *codexConverter) entry(in codexIn, k int, kind string, payload json.RawMessage) tapelog.Entry {
	return c.entryMeta(in, k, kind, payload, false)
}

// entryMeta is entry for a message that may be synthetic: written for the
// model, not by a person. Its meta names the working directory the line
// names, when it changed.
func (c *codexConverter) entryMeta(in codexIn, k int, kind string, payload json.RawMessage, synthetic bool) tapelog.Entry {
	m := metaOf(c.path, in.l.No, "", "", in.cl.badDate)
	if cwd := in.it.CWD; cwd != "" && cwd != c.st.CWD {
		m.Str("cwd", cwd)
		c.st.CWD = cwd
	}
	if synthetic {
		m.True("synthetic")
	}
	return tapelog.Entry{ID: lineID(c.path, in.l.No, k), Kind: kind, Payload: payload, Meta: m.Done(), Date: in.cl.Timestamp}
}

// isInjected reports whether the text of a user message is context Codex
// writes for the model (the environment, AGENTS.md) rather than what the
// user typed.
func isInjected(text string) bool {
	text = strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// event keeps a record as an event named after its type.
func (c *codexConverter) event(in codexIn, name string, data json.RawMessage) []Output {
	payload := mustJSON(map[string]any{"name": name, "data": rawOrNull(data)})
	return []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindEvent, payload)}}
}

// codexEchoes are the events that hold a message Codex may also write as
// a response item, by the role of that message.
var codexEchoes = map[string]string{"user_message": "user", "agent_message": "assistant", "agent_reasoning": "reasoning"}

func (c *codexConverter) eventMsg(in codexIn) []Output {
	role, echo := codexEchoes[in.it.Type]
	switch {
	case in.it.Type == "token_count":
		return c.tokenCount(in)
	case !echo:
		return c.kept(in)
	}
	text, ok := codexEventText(in.it, in.cl.Payload)
	if !ok {
		return c.kept(in) // no text where the mapping reads it: kept whole
	}
	if c.echoed(role, true, text) {
		return nil
	}
	if role == "reasoning" {
		data := rawjson.NewObject().Str("summary", text).Done()
		return []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindEvent, rawjson.NewObject().Str("name", "reasoning").Raw("data", data).Done())}}
	}
	payload := rawjson.NewObject().Str("role", role).Str("content", text).Done()
	return []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindMessage, payload)}}
}

// echoed reports whether a message is the second of the two records Codex
// writes of one message (an event, and a response item, in either order):
// the text of the one before of the same role, from the other kind of
// record, not yet echoed. A rollout
// that holds only one of them (some Codex versions write only the event)
// loses nothing, and a person who says the same thing twice is heard
// twice.
func (c *codexConverter) echoed(role string, fromEvent bool, text string) bool {
	if c.st.Echo == nil {
		c.st.Echo = map[string]string{}
	}
	from := "item\x00"
	if fromEvent {
		from = "event\x00"
	}
	if last, ok := c.st.Echo[role]; ok && !strings.HasPrefix(last, from) && last[strings.IndexByte(last, 0)+1:] == text {
		delete(c.st.Echo, role)
		return true
	}
	c.st.Echo[role] = from + text
	return false
}

// tokenCount turns Codex's cumulative usage into what the turn added: a
// run event, unless nothing was added (Codex repeats the event).
func (c *codexConverter) tokenCount(in codexIn) []Output {
	info := in.it.Info
	if info == nil || info.Total == nil && info.Last == nil {
		return nil
	}
	var added codexTokens
	switch {
	case info.Total != nil && c.st.Totals == nil:
		added = *info.Total
	case info.Total != nil:
		added = info.Total.minus(*c.st.Totals)
		if added.negative() && info.Last != nil {
			added = *info.Last // the totals started over
		}
	default:
		added = *info.Last
	}
	if info.Total != nil {
		t := *info.Total
		c.st.Totals = &t
	}
	if added.zero() || added.negative() {
		return nil
	}
	data := map[string]any{"status": "ok", "model": c.st.Model, "usage": map[string]any{
		"input_tokens":            added.Input - min(added.Cached, added.Input),
		"cache_read_input_tokens": min(added.Cached, added.Input),
		"output_tokens":           added.Output,
		"reasoning_output_tokens": added.Reasoning,
		"total_tokens":            added.Input + added.Output,
	}}
	if info.Total != nil {
		// A subagent's or a fork's rollout replays its parent's history,
		// usage and all: the same moment and totals count once.
		t := info.Total
		data["usage_id"] = fmt.Sprintf("codex:%s:%d:%d:%d:%d", in.cl.Timestamp, t.Input, t.Cached, t.Output, t.Reasoning)
	}
	payload := mustJSON(map[string]any{"name": "run", "data": data})
	return []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindEvent, payload)}}
}

// responseItem maps a response item: messages, reasoning, tool calls and
// their outputs.
func (c *codexConverter) responseItem(in codexIn) []Output {
	it := in.it
	switch {
	case it.Type == "message":
		return c.message(in)
	case it.Type == "reasoning":
		summary, ok := codexText(it.Summary)
		text, ok2 := codexText(it.Content)
		if !ok || !ok2 {
			return c.kept(in) // a summary or content of a shape the mapping cannot read
		}
		if c.echoed("reasoning", false, summary) {
			return nil
		}
		data := rawjson.NewObject().Str("summary", summary)
		if text != "" {
			data.Str("content", text)
		}
		if len(it.Encrypted) > 0 && string(it.Encrypted) != "null" {
			data.Raw("encrypted_content", it.Encrypted)
		}
		return []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindEvent, rawjson.NewObject().Str("name", "reasoning").Raw("data", data.Done()).Done())}}
	case isCodexCall(it.Type):
		c.call(in)
		return nil
	case it.CallID != "" && strings.HasSuffix(it.Type, "_output"):
		res := map[string]any{"tool_call_id": it.CallID, "content": rawOrNull(it.Output)}
		if codexFailed(it.Output) {
			res["is_error"] = true
		}
		payload := mustJSON(map[string]any{"results": []any{res}})
		return []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindToolResult, payload)}}
	}
	return c.kept(in)
}

// kept keeps a record the mapping does not turn into anything else as an
// event of its payload, named after the payload's type (the line's, for a
// payload without one).
func (c *codexConverter) kept(in codexIn) []Output {
	name := in.it.Type
	if name == "" {
		name = in.cl.Type
	}
	return c.event(in, "codex/"+name, in.cl.Payload)
}

// message maps a message item: user and assistant text as chat messages,
// developer and system text as system entries.
func (c *codexConverter) message(in codexIn) []Output {
	parts, ok := codexParts(in.it.Content)
	if !ok {
		return c.kept(in) // a content of a shape the mapping cannot read
	}
	var texts []string
	var chat []any
	for _, p := range parts {
		if p.isImg {
			chat = append(chat, map[string]any{"type": "image_url", "image_url": map[string]any{"url": p.image}})
			continue
		}
		texts = append(texts, p.text)
		chat = append(chat, map[string]any{"type": "text", "text": p.text})
	}
	var content any = strings.Join(texts, "\n")
	if len(chat) != len(texts) {
		content = chat // an image among the parts: keep them apart
	}
	text := strings.Join(texts, "\n")
	kind, role := tapelog.KindMessage, in.it.Role
	if (role == "user" || role == "assistant") && c.echoed(role, false, text) {
		return nil
	}
	var payload json.RawMessage
	switch role {
	case "developer", "system":
		kind = tapelog.KindSystem
		payload = mustJSON(map[string]any{"content": content})
	default:
		if role == "" {
			role = "assistant"
		}
		payload = mustJSON(map[string]any{"role": role, "content": content})
	}
	synthetic := role == "user" && isInjected(text)
	return []Output{{Session: c.st.Session, Entry: c.entryMeta(in, 0, kind, payload, synthetic)}}
}

// codexFailed reports whether a call's output says it failed: a shell
// command's output whose metadata has a non-zero exit code, or an object
// with "success": false.
func codexFailed(output json.RawMessage) bool {
	var s string
	if json.Unmarshal(output, &s) == nil {
		output = json.RawMessage(s)
	}
	var o struct {
		Success  *bool `json:"success"`
		Metadata struct {
			ExitCode *float64 `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal(output, &o) != nil {
		return false
	}
	return o.Success != nil && !*o.Success || o.Metadata.ExitCode != nil && *o.Metadata.ExitCode != 0
}

// codexGroup is a run of tool calls, held until a record that is not a
// call comes: the calls of one response, written one line each, become
// one tool_call entry.
type codexGroup struct {
	line    int
	offset  int64
	out     []Output // the tool_call entry first, then what was written between the calls
	calls   []any
	results []Output // a web search's outcome, which has no output item
}

// call adds a tool call to the held group.
func (c *codexConverter) call(in codexIn) {
	it := in.it
	if c.group == nil {
		c.saved = mustJSON(c.st) // encoded now: the held lines change st
		c.group = &codexGroup{line: in.l.No, offset: in.l.Offset}
		c.group.out = []Output{{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindToolCall, nil)}}
	}
	g := c.group
	id := it.CallID
	var call map[string]any
	switch it.Type {
	case "function_call":
		var args string
		if json.Unmarshal(it.Arguments, &args) != nil {
			args = string(it.Arguments)
		}
		call = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": it.Name, "arguments": args}}
	case "custom_tool_call":
		var input string
		if json.Unmarshal(it.Input, &input) != nil {
			input = string(it.Input)
		}
		call = map[string]any{"id": id, "type": "custom", "custom": map[string]any{"name": it.Name, "input": input}}
	default: // local_shell_call, web_search_call
		name := strings.TrimSuffix(it.Type, "_call")
		if id == "" {
			id = lineID(c.path, in.l.No, 0) // web searches carry no id in a rollout
		}
		call = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(rawOrNull(trimJSON(it.Action)))}}
		if it.Type == "web_search_call" {
			res := map[string]any{"tool_call_id": id, "content": it.Status}
			if it.Status != "" && it.Status != "completed" {
				res["is_error"] = true
			}
			g.results = append(g.results, Output{Session: c.st.Session, Entry: c.entry(in, 1, tapelog.KindToolResult, mustJSON(map[string]any{"results": []any{res}}))})
		}
	}
	g.calls = append(g.calls, call)
}

// closeGroup emits the held calls.
func (c *codexConverter) closeGroup() []Output {
	g := c.group
	c.group = nil
	g.out[0].Entry.Payload = mustJSON(map[string]any{"calls": g.calls})
	return append(g.out, g.results...)
}

func (c *codexConverter) closeAll() []Output {
	if c.group == nil {
		return nil
	}
	return c.closeGroup()
}

func (c *codexConverter) held() (int, int64, bool) {
	if c.group == nil {
		return 0, 0, false
	}
	return c.group.line - 1, c.group.offset, true
}

func (c *codexConverter) flush() []Output { return c.closeAll() }

func (c *codexConverter) state() ([]byte, error) {
	if c.group != nil {
		return c.saved, nil
	}
	return json.Marshal(c.st)
}
