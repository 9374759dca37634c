package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Claude is Claude Code's transcript format: one JSON record a line in
// <config>/projects/<project>/<session>.jsonl, subagents in
// <session>/subagents/agent-<id>.jsonl (or agent-<id>.jsonl beside the
// sessions, in Claude Code 2.0). docs/IMPORT.md has the mapping.
var Claude = &Format{
	Name: "claude",
	DefaultDirs: func(getenv func(string) string, home string) []string {
		if dirs := getenv("CLAUDE_CONFIG_DIR"); dirs != "" {
			var out []string
			for _, d := range strings.Split(dirs, ",") {
				if d = strings.TrimSpace(d); d != "" {
					out = append(out, filepath.Join(d, "projects"))
				}
			}
			return out
		}
		return []string{filepath.Join(home, ".claude", "projects")}
	},
	DirsEnv: "CLAUDE_CONFIG_DIR",
	IsTranscript: func(path string) bool {
		return strings.HasSuffix(path, ".jsonl")
	},
	newConverter: func(path string, state []byte) (converter, error) {
		return newClaudeConverter(path, state)
	},
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// claudeFileSession is the session a transcript's name says it holds: a
// session file is named by its id, a subagent's file agent-<id>.jsonl,
// under <session>/subagents/ since Claude Code 2.1.
func claudeFileSession(path string) Session {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := Session{Source: "claude"}
	if agent, ok := strings.CutPrefix(stem, "agent-"); ok {
		s.Agent = agent
		if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" {
			if id := filepath.Base(filepath.Dir(dir)); uuidRE.MatchString(id) {
				s.ID = id
			}
		}
		return s
	}
	if uuidRE.MatchString(stem) {
		s.ID = stem // else the first line's sessionId (session)
	}
	return s
}

// claudeState is what a Claude converter carries from line to line, and
// keeps in a checkpoint.
type claudeState struct {
	Session Session         `json:"session"` // the file's session, once known
	Started map[string]bool `json:"started"` // sessions whose first anchor was made, by sessionKey
	CWD     string          `json:"cwd"`     // the last working directory put in a meta
	Branch  string          `json:"branch"`  // and git branch
	// Date is the last timestamp read: a record without one (a title, a
	// snapshot) takes it, so that it sorts where it was written.
	Date string `json:"date"`
}

// claudeConverter converts one Claude Code transcript.
type claudeConverter struct {
	path  string
	st    claudeState
	saved []byte      // st before the first held line, as state() writes it
	turn  *claudeTurn // the assistant turn being read (held)
	bound *claudeBoundary
}

func newClaudeConverter(path string, state []byte) (*claudeConverter, error) {
	c := &claudeConverter{path: path}
	if state != nil {
		if err := json.Unmarshal(state, &c.st); err != nil {
			return nil, fmt.Errorf("read the checkpoint's state: %w", err)
		}
	}
	if c.st.Started == nil {
		c.st.Started = map[string]bool{}
	}
	if c.st.Session.Source == "" {
		c.st.Session = claudeFileSession(path)
	}
	return c, nil
}

// claudeRecord is the part of a transcript line the mapping reads.
type claudeRecord struct {
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
	RawDate          json.RawMessage `json:"timestamp"` // as written: Timestamp is what recordDate reads of it
	Timestamp        string          `json:"-"`
	CWD              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	Version          string          `json:"version"`
	RequestID        string          `json:"requestId"`
	Message          claudeMessage   `json:"message"`
	CompactMetadata  json.RawMessage `json:"compactMetadata"` // compact_boundary
	AITitle          string          `json:"aiTitle"`
	CustomTitle      string          `json:"customTitle"`
	unknown          bool            // of a shape the mapping does not read: an event
	badDate          json.RawMessage // RawDate, when it is no date
}

type claudeMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	RawContent json.RawMessage `json:"content"` // see content
	Usage      *claudeUsage    `json:"usage"`
	Content    claudeContent   `json:"-"`
}

// claudeContent is a message's content: a string, or a list of blocks.
type claudeContent struct {
	Text   *string
	Blocks []claudeBlock
	Raw    json.RawMessage // as written
}

// content reads a message's content, which the line's decode checked:
// its blocks are found by skipping over their values (jsonscan.go), so a
// tool's output, the bulk of a transcript, is not scanned again.
func (m *claudeMessage) content() error {
	b := trimJSON(m.RawContent)
	m.Content = claudeContent{Raw: b}
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
// keeps whole.
func (c *claudeContent) rawBlocks() []json.RawMessage {
	var raw []json.RawMessage
	_ = json.Unmarshal(c.Raw, &raw) // it decoded as blocks already
	return raw
}

type claudeUsage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
}

func (u claudeUsage) total() int64 { return u.Input + u.Output + u.CacheCreation + u.CacheRead }

// claudeBlock is one content block.
type claudeBlock struct {
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

func (c *claudeConverter) line(l tapelog.RawLine) ([]Output, error) {
	var r claudeRecord
	err := json.Unmarshal(l.Data, &r)
	switch {
	case err != nil && !isTypeError(err):
		return c.closeAll(), fmt.Errorf("not a JSON record: %v", jsonReason(err))
	case !isObject(l.Data):
		return c.closeAll(), errors.New("not a JSON object")
	case err != nil || r.Message.content() != nil || r.Type == "":
		// An object of a shape this mapping does not know (no type, a
		// field of another type): kept as it is, as an event.
		r = claudeRecord{Type: r.Type, UUID: r.UUID, ParentUUID: r.ParentUUID, SessionID: r.SessionID, RawDate: r.RawDate, unknown: true}
	}
	var warn error
	if date, bad := recordDate(r.RawDate, c.st.Date); bad != "" {
		r.Timestamp, r.badDate, warn = date, trimJSON(r.RawDate), lineWarning(bad)
	} else {
		r.Timestamp = date
	}
	c.st.Date = r.Timestamp
	return c.record(l, r), warn
}

// record maps a record whose line decoded.
func (c *claudeConverter) record(l tapelog.RawLine, r claudeRecord) []Output {
	var out []Output
	// A turn is held while its lines come; any line that is not metadata
	// and not the turn's own closes it.
	if c.turn != nil && !(r.Type == "assistant" && r.Message.ID != "" && r.Message.ID == c.turn.msgID) && isChainRecord(r.Type) {
		out = append(out, c.closeTurn()...)
	}
	if c.bound != nil && isChainRecord(r.Type) {
		out = append(out, c.closeBoundary(r)...)
		if _, ok := compactSummary(r); ok {
			return out // its text is the anchor's summary
		}
	}
	sess := c.session(r)
	switch {
	case r.unknown:
	case r.Type == "assistant":
		return append(out, c.assistant(l, r, sess)...)
	case r.Type == "user":
		return append(out, c.user(l, r, sess)...)
	case r.Type == "system" && r.Subtype == "compact_boundary":
		c.hold()
		c.bound = &claudeBoundary{line: l.No, offset: l.Offset, rec: r, sess: sess, meta: c.meta(l, r, sess)}
		return out
	case r.Type == "progress":
		return out // copies of a subagent's records, which its own file holds
	}
	o := c.event(l, r, sess)
	if c.turn != nil {
		c.turn.add(o...) // metadata written in the middle of a turn stays in its place
		return out
	}
	if c.bound != nil {
		c.bound.after = append(c.bound.after, o...)
		return out
	}
	return append(out, o...)
}

// isChainRecord reports whether a record is part of the conversation
// (and so ends a held turn), rather than metadata written beside it.
func isChainRecord(t string) bool { return t == "user" || t == "assistant" || t == "system" }

// session is the session a record belongs to: the file's, or a subagent's
// for the sidechain lines Claude Code 2.0 wrote into the session's file.
func (c *claudeConverter) session(r claudeRecord) Session {
	if c.st.Session.ID == "" {
		// A file not named by its session's id (one copied by hand): the
		// first line decides, and no later line changes it.
		c.st.Session.ID = r.SessionID
		if c.st.Session.ID == "" {
			c.st.Session.ID = strings.TrimSuffix(filepath.Base(c.path), ".jsonl")
		}
	}
	s := c.st.Session
	if s.Agent == "" && r.IsSidechain {
		s.Agent = "sidechain"
		if r.AgentID != "" {
			s.Agent = r.AgentID
		}
	}
	return s
}

// start makes the first anchor of a session's tape, the first time an
// entry goes to it.
func (c *claudeConverter) start(l tapelog.RawLine, r claudeRecord, s Session) []Output {
	key := sessionKey(s)
	if c.st.Started[key] {
		return nil
	}
	c.st.Started[key] = true
	state := map[string]any{"source": "claude", "session_id": s.ID, "file": c.path}
	if s.Agent != "" {
		state["agent_id"] = s.Agent
		state["parent_session"] = s.ID
	}
	if r.CWD != "" {
		state["cwd"] = r.CWD
	}
	if r.GitBranch != "" {
		state["git_branch"] = r.GitBranch
	}
	if r.Version != "" {
		state["version"] = r.Version
	}
	id := s.ID
	if s.Agent != "" {
		id += "/agent/" + s.Agent
	}
	payload := mustJSON(map[string]any{"name": "session/start", "state": state})
	meta := metaOf(c.path, l.No, "", "", nil).Done()
	return []Output{{Session: s, Anchor: true, Entry: tapelog.Entry{ID: id, Kind: tapelog.KindAnchor, Payload: payload, Meta: meta, Date: r.Timestamp}}}
}

// meta is the meta of an entry made from line l: where it came from, and
// the working directory and branch when they changed.
func (c *claudeConverter) meta(l tapelog.RawLine, r claudeRecord, s Session) json.RawMessage {
	m := claudeMeta(c.path, l, r)
	if r.CWD != "" && r.CWD != c.st.CWD {
		m.Str("cwd", r.CWD)
		c.st.CWD = r.CWD
	}
	if r.GitBranch != "" && r.GitBranch != c.st.Branch {
		m.Str("git_branch", r.GitBranch)
		c.st.Branch = r.GitBranch
	}
	if r.IsMeta {
		m.True("synthetic") // injected by Claude Code, not typed by the user
	}
	if r.IsCompactSummary {
		// A summary without its boundary (the boundary was imported
		// alone once the file went quiet): a message, marked.
		m.True("compact_summary")
	}
	if s.Agent != "" && s.Agent != c.st.Session.Agent {
		m.True("sidechain")
	}
	return m.Done()
}

// claudeMeta starts the meta of an entry made from line l (metaOf).
func claudeMeta(path string, l tapelog.RawLine, r claudeRecord) *rawjson.Object {
	var parent string
	if r.ParentUUID != nil {
		parent = *r.ParentUUID
	}
	return metaOf(path, l.No, r.UUID, parent, r.badDate)
}

// entryID is the id of the k-th entry made from line l.
func (c *claudeConverter) entryID(l tapelog.RawLine, r claudeRecord, k int) string {
	if r.UUID != "" {
		return withPart(r.UUID, k)
	}
	return lineID(c.path, l.No, k)
}

// user maps a user line: its text, its tool results.
func (c *claudeConverter) user(l tapelog.RawLine, r claudeRecord, s Session) []Output {
	out := c.start(l, r, s)
	meta := c.meta(l, r, s)
	text, parts, results := claudeUserContent(&r.Message.Content)
	k := 0
	add := func(kind string, payload json.RawMessage) {
		out = append(out, Output{Session: s, Entry: tapelog.Entry{ID: c.entryID(l, r, k), Kind: kind, Payload: payload, Meta: meta, Date: r.Timestamp}})
		k++
	}
	if len(results) > 0 {
		add(tapelog.KindToolResult, rawjson.NewObject().Raw("results", rawjson.Array(results...)).Done())
	}
	switch {
	case text != nil:
		add(tapelog.KindMessage, rawjson.NewObject().Str("role", "user").Str("content", *text).Done())
	case len(parts) > 0:
		add(tapelog.KindMessage, rawjson.NewObject().Str("role", "user").Raw("content", mustJSON(parts)).Done())
	}
	if k == 0 {
		add(tapelog.KindEvent, c.eventPayload("claude/user", l)) // no text and no result: kept as it is
	}
	return out
}

// claudeUserContent splits a user message's content into its text (a
// string content), its other parts in the OpenAI shape, and its tool
// results, each a result object of a tool_result entry.
func claudeUserContent(content *claudeContent) (text *string, parts []any, results [][]byte) {
	if content.Text != nil {
		return content.Text, nil, nil
	}
	var raw []json.RawMessage
	for i, b := range content.Blocks {
		switch {
		case b.Type == "tool_result" && !b.odd:
			res := rawjson.NewObject().Str("tool_call_id", b.ToolUseID).Raw("content", trimJSON(b.Content))
			if b.IsError {
				res.True("is_error")
			}
			results = append(results, res.Done())
		default:
			if raw == nil {
				raw = content.rawBlocks()
			}
			parts = append(parts, claudePart(b, raw[i]))
		}
	}
	return nil, parts, results
}

// claudePart is a content block as an OpenAI chat part: text as text, an
// image as an image_url with a data URL, anything else as it is.
func claudePart(b claudeBlock, raw json.RawMessage) any {
	switch {
	case b.odd:
	case b.Type == "text" && b.Text != nil:
		return map[string]any{"type": "text", "text": *b.Text}
	case b.Type == "image" && b.Source != nil:
		var src struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		if json.Unmarshal(b.Source, &src) == nil && src.Type == "base64" {
			return map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + src.MediaType + ";base64," + src.Data}}
		}
	}
	return raw
}

func rawOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// event keeps a record tape has no entry kind for as an event named after
// its type: everything but the envelope, which the meta holds.
func (c *claudeConverter) event(l tapelog.RawLine, r claudeRecord, s Session) []Output {
	out := c.start(l, r, s)
	name := "claude/" + r.Type
	if r.Type == "" {
		name = "claude/record"
	}
	if r.Subtype != "" {
		name += "/" + r.Subtype
	}
	payload := c.eventPayload(name, l)
	switch {
	case r.unknown:
		// Of a shape the mapping does not read: the envelope too may be
		// what it could not read, and the meta does not hold it.
		payload = mustJSON(map[string]any{"name": name, "data": json.RawMessage(trimJSON(l.Data))})
	case r.Type == "custom-title" && r.CustomTitle != "", r.Type == "ai-title" && r.AITitle != "":
		// Claude Code's own name for the session: tape tapes shows it.
		title := r.CustomTitle
		if title == "" {
			title = r.AITitle
		}
		payload = mustJSON(map[string]any{"name": "title", "data": map[string]any{"title": title, "from": r.Type}})
	}
	e := tapelog.Entry{ID: c.entryID(l, r, 0), Kind: tapelog.KindEvent, Payload: payload, Meta: c.meta(l, r, s), Date: r.Timestamp}
	return append(out, Output{Session: s, Entry: e})
}

// eventPayload is {"name": name, "data": the line without its envelope}.
func (c *claudeConverter) eventPayload(name string, l tapelog.RawLine) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(l.Data, &m) // it decoded as a record already
	for _, k := range envelopeKeys {
		delete(m, k)
	}
	return mustJSON(map[string]any{"name": name, "data": m})
}

// claudeBoundary is a compaction's boundary, held until the line after it
// says whether it is the summary.
type claudeBoundary struct {
	line   int
	offset int64
	rec    claudeRecord
	sess   Session
	meta   json.RawMessage
	after  []Output // metadata lines written between the two
}

// compactSummary is the text of a compaction's summary, when r is one
// that the anchor of its boundary can hold whole: its text, or its parts.
// A summary with tool results, or with no content, is not: it is mapped
// as any user line is.
func compactSummary(r claudeRecord) (any, bool) {
	if r.Type != "user" || !r.IsCompactSummary {
		return nil, false
	}
	text, parts, results := claudeUserContent(&r.Message.Content)
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
func (c *claudeConverter) closeBoundary(next claudeRecord) []Output {
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
	payload := mustJSON(map[string]any{"name": "compact", "state": state})
	e := tapelog.Entry{ID: c.entryID(bl, b.rec, 0), Kind: tapelog.KindAnchor, Payload: payload, Meta: b.meta, Date: b.rec.Timestamp}
	out = append(out, Output{Session: b.sess, Entry: e, Anchor: true})
	return append(out, b.after...)
}

// hold notes the state before the first held line: encoded at once, so
// that the held lines, which change st, cannot change it.
func (c *claudeConverter) hold() {
	if c.turn == nil && c.bound == nil {
		c.saved = mustJSON(c.st)
	}
}

// held: a turn and a boundary are never held at once, for each ends the
// other (both are records of the conversation).
func (c *claudeConverter) held() (int, int64, bool) {
	switch {
	case c.turn != nil:
		return c.turn.line - 1, c.turn.offset, true
	case c.bound != nil:
		return c.bound.line - 1, c.bound.offset, true
	}
	return 0, 0, false
}

func (c *claudeConverter) flush() []Output { return c.closeAll() }

// closeAll emits whatever is held, as a line that ends the turn would.
func (c *claudeConverter) closeAll() []Output {
	var out []Output
	if c.turn != nil {
		out = append(out, c.closeTurn()...)
	}
	if c.bound != nil {
		out = append(out, c.closeBoundary(claudeRecord{})...)
	}
	return out
}

func (c *claudeConverter) state() ([]byte, error) {
	if _, _, ok := c.held(); ok {
		return c.saved, nil
	}
	return json.Marshal(c.st)
}

// isObject reports whether a line's JSON text is an object.
func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// isTypeError reports whether a line decoded as JSON but not into the
// shape a mapping reads: a JSON object it keeps whole, as an event.
func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// jsonReason is a JSON error as a reader wants it, without Go's type names.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%q is a JSON %s, not the %s expected", te.Field, te.Value, kindName(te.Type.Kind().String()))
	}
	return err.Error()
}

func kindName(k string) string {
	switch k {
	case "struct", "map":
		return "object"
	case "slice":
		return "array"
	}
	return k
}

// trimJSON is raw without surrounding white space.
func trimJSON(raw json.RawMessage) json.RawMessage { return bytes.TrimSpace(raw) }

// claudeTurn is an assistant turn being read: Claude Code writes one line
// per content block, all with the message's id, and the usage on each,
// final only on the later ones. The turn is held until a line of another
// record comes, then becomes its entries in order, its tool calls one
// tool_call entry, and its usage one run event.
type claudeTurn struct {
	msgID  string
	line   int
	offset int64
	sess   Session
	out    []Output
	callAt int      // index in out of the tool_call entry; -1 while there is none
	calls  [][]byte // each a call object
	// The usage with the largest total among the turn's lines, as ccusage
	// counts it, and the line it is on.
	usage            *claudeUsage
	model, requestID string
	usageDate        string
	usageMeta        json.RawMessage
	usageAt          int // where in out the run event goes: after the line it came from
	firstID          string
}

func (t *claudeTurn) add(o ...Output) { t.out = append(t.out, o...) }

// assistant maps an assistant line: one content block, usually.
func (c *claudeConverter) assistant(l tapelog.RawLine, r claudeRecord, s Session) []Output {
	if c.turn == nil {
		c.hold()
		c.turn = &claudeTurn{msgID: r.Message.ID, line: l.No, offset: l.Offset, sess: s, callAt: -1, firstID: c.entryID(l, r, 0)}
	}
	t := c.turn
	t.add(c.start(l, r, s)...)
	meta := c.meta(l, r, s)
	k := 0
	entry := func(kind string, payload json.RawMessage) {
		t.add(Output{Session: s, Entry: tapelog.Entry{ID: c.entryID(l, r, k), Kind: kind, Payload: payload, Meta: meta, Date: r.Timestamp}})
		k++
	}
	blocks := r.Message.Content.Blocks
	if text := r.Message.Content.Text; text != nil {
		blocks = []claudeBlock{{Type: "text", Text: text}}
	}
	var raw []json.RawMessage
	for i, b := range blocks {
		switch read := !b.odd; { // an odd block is kept as it is
		case read && b.Type == "text" && b.Text != nil && r.IsAPIError:
			entry(tapelog.KindError, rawjson.NewObject().Str("kind", "api").Str("message", *b.Text).Done())
		case read && b.Type == "text" && b.Text != nil:
			entry(tapelog.KindMessage, rawjson.NewObject().Str("role", "assistant").Str("content", *b.Text).Done())
		case read && b.Type == "thinking" && b.Thinking != nil:
			data := rawjson.NewObject().Str("thinking", *b.Thinking).StrIf("signature", b.Signature).Done()
			entry(tapelog.KindEvent, rawjson.NewObject().Str("name", "thinking").Raw("data", data).Done())
		case read && b.Type == "tool_use":
			if t.callAt < 0 {
				t.callAt = len(t.out)
				entry(tapelog.KindToolCall, nil) // its payload is written when the turn ends
			}
			args := string(rawOrNull(trimJSON(b.Input)))
			fn := rawjson.NewObject().Str("name", b.Name).Str("arguments", args).Done()
			t.calls = append(t.calls, rawjson.NewObject().Str("id", b.ID).Str("type", "function").Raw("function", fn).Done())
		default:
			if raw == nil {
				raw = r.Message.Content.rawBlocks()
			}
			entry(tapelog.KindEvent, claudeBlockEvent(b, raw[i]))
		}
	}
	if len(blocks) == 0 {
		entry(tapelog.KindEvent, c.eventPayload("claude/assistant", l)) // no block: kept as it is
	}
	if u := r.Message.Usage; u != nil && r.Message.Model != "<synthetic>" && (t.usage == nil || u.total() > t.usage.total()) {
		t.usage, t.model, t.requestID, t.usageDate = u, r.Message.Model, r.RequestID, r.Timestamp
		t.usageMeta = claudeMeta(c.path, l, r).Done()
		t.usageAt = len(t.out)
	}
	if r.Message.ID == "" {
		return c.closeTurn() // a turn without an id cannot continue on another line
	}
	return nil
}

// claudeBlockEvent is the payload of an event that keeps a content block
// the mapping has no entry for: {"name": "claude/<type>", "data": the
// block without its type}. A block that is not an object, or whose
// members the mapping cannot read, is kept whole: "claude/block" with the
// block as written.
func claudeBlockEvent(b claudeBlock, raw json.RawMessage) json.RawMessage {
	var data map[string]json.RawMessage
	if b.odd || b.Type == "" || json.Unmarshal(raw, &data) != nil {
		return mustJSON(map[string]any{"name": "claude/block", "data": rawOrNull(trimJSON(raw))})
	}
	delete(data, "type")
	return mustJSON(map[string]any{"name": "claude/" + b.Type, "data": data})
}

// closeTurn emits the held turn.
func (c *claudeConverter) closeTurn() []Output {
	t := c.turn
	c.turn = nil
	if t.callAt >= 0 {
		t.out[t.callAt].Entry.Payload = rawjson.NewObject().Raw("calls", rawjson.Array(t.calls...)).Done()
	}
	if t.usage != nil {
		data := map[string]any{"status": "ok", "model": t.model, "usage": map[string]any{
			"input_tokens": t.usage.Input, "output_tokens": t.usage.Output,
			"cache_creation_input_tokens": t.usage.CacheCreation, "cache_read_input_tokens": t.usage.CacheRead,
		}}
		if t.msgID != "" {
			// One usage per message and request, as Claude Code repeats it
			// on every line of a turn (see views.Run.UsageID).
			id := t.msgID
			if t.requestID != "" {
				id += ":" + t.requestID
			}
			data["usage_id"] = id
		}
		payload := mustJSON(map[string]any{"name": "run", "data": data})
		run := Output{Session: t.sess, Entry: tapelog.Entry{ID: t.firstID + "/usage", Kind: tapelog.KindEvent, Payload: payload, Meta: t.usageMeta, Date: t.usageDate}}
		t.out = slices.Insert(t.out, t.usageAt, run)
	}
	return t.out
}
