package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// The server in process, over the SDK's in-memory transport: what each
// tool answers, its errors, and the resources. The same server as a real
// process, through the SDK's client over stdio, is tested in cmd/tape
// (mcp_process_test.go).

// session is a client connected to a server of a workspace.
type session struct {
	*sdk.ClientSession
	t      *testing.T
	ws     *tapelog.Workspace
	server *server
	tools  map[string]*sdk.Tool
}

func connect(t *testing.T, ws *tapelog.Workspace, opts Options) *session {
	t.Helper()
	return connectWith(t, ws, opts, func(*server) {})
}

// connectWith is connect with setup run on the server before the client
// connects.
func connectWith(t *testing.T, ws *tapelog.Workspace, opts Options, setup func(*server)) *session {
	t.Helper()
	ctx := context.Background()
	s, srv, err := newServer(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	setup(s)
	t.Cleanup(s.close)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c := &session{ClientSession: cs, t: t, ws: ws, server: s, tools: map[string]*sdk.Tool{}}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		c.tools[tool.Name] = tool
	}
	return c
}

// call calls a tool and returns its result; a structured result is held
// to the tool's output schema, as a client that checks it would.
func (c *session) call(name string, args any) *sdk.CallToolResult {
	c.t.Helper()
	res, err := c.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		c.checkOutput(name, res)
	}
	return res
}

func (c *session) checkOutput(name string, res *sdk.CallToolResult) {
	c.t.Helper()
	raw, _ := json.Marshal(c.tools[name].OutputSchema)
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		c.t.Fatalf("%s: output schema: %v", name, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		c.t.Fatalf("%s: output schema: %v", name, err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		c.t.Fatal(err)
	}
	if err := resolved.Validate(&v); err != nil {
		c.t.Errorf("%s: structured content %s does not match the output schema: %v", name, out, err)
	}
	if len(res.Content) != 1 {
		c.t.Errorf("%s: %d content blocks, want one text", name, len(res.Content))
	}
}

// ok calls a tool that must succeed and decodes its structured result.
func ok[T any](c *session, name string, args any) (T, string) {
	c.t.Helper()
	res := c.call(name, args)
	var out T
	if res.IsError {
		c.t.Fatalf("%s failed: %s", name, wording.OneLine(text(res), 500))
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return out, text(res)
}

// fails calls a tool that must fail with a tool error that says want.
func (c *session) fails(name string, args any, want string) {
	c.t.Helper()
	res := c.call(name, args)
	if !res.IsError || !strings.Contains(text(res), want) {
		c.t.Errorf("%s(%.200v) = %v %q, want a tool error that says %q", name, args, res.IsError, wording.OneLine(text(res), 500), want)
	}
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// newWorkspace is a workspace with a tape "main" of two phases: a user
// message, a tool call and its result, a run with usage, then a handoff
// and a message after it; and a tape "other" with one message.
func newWorkspace(t *testing.T) *tapelog.Workspace {
	t.Helper()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	appendTo(t, ws, "main",
		`message`, `{"role":"user","content":"why does the flush test time out?"}`,
		`tool_call`, `{"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"go test\"}"}}]}`,
		`tool_result`, `{"results":[{"tool_call_id":"c1","content":"FAIL: TestFlush timeout"}]}`,
		`event`, `{"name":"run","data":{"status":"ok","model":"m1","usage":{"input_tokens":10,"output_tokens":5}}}`)
	tp, _ := ws.Tape("main")
	if _, err := tp.Handoff(context.Background(), "fix", json.RawMessage(`{"summary":"the flush timeout is 1ms"}`)); err != nil {
		t.Fatal(err)
	}
	tp.Close()
	appendTo(t, ws, "main", `message`, `{"role":"assistant","content":"raised the flush timeout to 1s"}`)
	appendTo(t, ws, "other", `message`, `{"role":"user","content":"an unrelated session"}`)
	return ws
}

// withMaxEntryBytes reopens ws with max_entry_bytes set to n.
func withMaxEntryBytes(t *testing.T, ws *tapelog.Workspace, n int64) *tapelog.Workspace {
	t.Helper()
	config := fmt.Sprintf(`{"version": 1, "default_tape": "main", "max_entry_bytes": %d, "watch": "off"}`, n)
	if err := os.WriteFile(ws.Abs("config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	reopened, err := tapelog.Open(ws.Dir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reopened.Close() })
	return reopened
}

// appendTo appends entries, given as kind and payload pairs.
func appendTo(t *testing.T, ws *tapelog.Workspace, tape string, kindPayload ...string) {
	t.Helper()
	tp, err := ws.Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	for i := 0; i < len(kindPayload); i += 2 {
		if _, err := tp.Append(context.Background(), tapelog.Entry{Kind: kindPayload[i], Payload: json.RawMessage(kindPayload[i+1])}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestToolsListed(t *testing.T) {
	t.Parallel()
	c := connect(t, newWorkspace(t), Options{})
	var names []string
	for name, tool := range c.tools {
		names = append(names, name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: description %q, schemas %v and %v", name, tool.Description, tool.InputSchema, tool.OutputSchema)
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var in jsonschema.Schema
		if err := json.Unmarshal(raw, &in); err != nil || in.Type != "object" {
			t.Errorf("tool %s: input schema %s is not an object's", name, raw)
		}
		for arg, p := range in.Properties {
			if p.Description == "" {
				t.Errorf("tool %s: argument %s has no description", name, arg)
			}
		}
	}
	slices.Sort(names)
	want := []string{"anchors", "append", "calls", "context", "handoff", "log", "search", "show", "tapes", "usage"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestReadTools(t *testing.T) {
	t.Parallel()
	c := connect(t, newWorkspace(t), Options{})

	found, txt := ok[searchResult](c, "search", map[string]any{"query": "flush"})
	if len(found.Hits) != 4 || found.Hits[0].Tape != "main" || !strings.Contains(txt, "Test**Flush**") { // the parts of TestFlush too
		t.Errorf("search flush = %+v\n%s", found, txt)
	}
	found, _ = ok[searchResult](c, "search", map[string]any{"query": "flush", "kind": []string{"tool_result"}})
	if len(found.Hits) != 1 || found.Hits[0].Kind != "tool_result" || found.Hits[0].Folder != "001_session-start" {
		t.Errorf("search flush of tool_result = %+v", found)
	}
	found, _ = ok[searchResult](c, "search", map[string]any{"query": "unrelated"})
	if len(found.Hits) != 0 {
		t.Errorf("search of the default tape found another's: %+v", found)
	}
	found, _ = ok[searchResult](c, "search", map[string]any{"query": "unrelated", "all_tapes": true})
	if len(found.Hits) != 1 || found.Hits[0].Tape != "other" || found.Hits[0].Match != "all" {
		t.Errorf("search all_tapes = %+v", found)
	}
	// Words no entry holds together: the entries with some of them, marked.
	found, txt = ok[searchResult](c, "search", map[string]any{"query": "flush zebra"})
	if len(found.Hits) != 4 || found.Hits[0].Match != "some" || !strings.Contains(txt, "(some of the words)") {
		t.Errorf("search of words no entry holds together = %+v\n%s", found, txt)
	}
	found, _ = ok[searchResult](c, "search", map[string]any{"query": "flush zebra", "all_words": true})
	if len(found.Hits) != 0 {
		t.Errorf("search all_words = %+v", found)
	}

	cx, txt := ok[contextResult](c, "context", map[string]any{})
	if len(cx.Messages) != 1 || !strings.Contains(string(cx.Messages[0]), "raised the flush timeout") || !strings.HasPrefix(txt, "[") {
		t.Errorf("context = %+v\n%s", cx, txt)
	}
	cx, _ = ok[contextResult](c, "context", map[string]any{"all": true})
	var roles []string
	for _, m := range cx.Messages {
		var p struct{ Role string }
		json.Unmarshal(m, &p)
		roles = append(roles, p.Role)
	}
	if want := []string{"assistant", "user", "assistant", "tool", "assistant", "assistant"}; !slices.Equal(roles, want) {
		t.Errorf("context all: roles %v, want %v", roles, want)
	}
	cx, _ = ok[contextResult](c, "context", map[string]any{"anchor": "session/start"})
	if len(cx.Messages) != 5 { // after the first anchor: user, call, result, the fix anchor, assistant
		t.Errorf("context after session/start: %d messages, want 5", len(cx.Messages))
	}

	// max_tokens keeps the newest messages that fit, a tool call with its
	// result, and says what it dropped.
	whole, _ := ok[contextResult](c, "context", map[string]any{"anchor": "session/start"})
	if whole.Estimate <= 0 || whole.Dropped != 0 || whole.MaxTokens != 0 {
		t.Errorf("context without a budget: estimate %d, dropped %d, max_tokens %d", whole.Estimate, whole.Dropped, whole.MaxTokens)
	}
	for budget := 1; budget <= whole.Estimate; budget += 7 {
		fit, _ := ok[contextResult](c, "context", map[string]any{"anchor": "session/start", "max_tokens": budget})
		if fit.Estimate > budget && !fit.OverBudget || fit.MaxTokens != budget {
			t.Errorf("max_tokens %d: estimate %d, over_budget %v", budget, fit.Estimate, fit.OverBudget)
		}
		calls := map[string]bool{}
		for _, m := range fit.Messages {
			var p struct {
				Role       string `json:"role"`
				ToolCallID string `json:"tool_call_id"`
				ToolCalls  []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			}
			json.Unmarshal(m, &p)
			for _, call := range p.ToolCalls {
				calls[call.ID] = true
			}
			if p.Role == "tool" && !calls[p.ToolCallID] {
				t.Errorf("max_tokens %d: the result of %s without its call: %s", budget, p.ToolCallID, m)
			}
		}
		if len(fit.Messages) < len(whole.Messages) && fit.Dropped == 0 {
			t.Errorf("max_tokens %d: %d of %d messages kept, none said dropped", budget, len(fit.Messages), len(whole.Messages))
		}
	}

	entries, _ := ok[entriesResult](c, "log", map[string]any{})
	if entries.Total != 2 || len(entries.Entries) != 2 || entries.Entries[0].Kind != "anchor" || entries.NextCursor != "" {
		t.Errorf("log = %+v", entries)
	}
	entries, _ = ok[entriesResult](c, "show", map[string]any{"anchor": "1", "kind": []string{"tool_call", "tool_result"}})
	if entries.Total != 2 || entries.Entries[0].Kind != "tool_call" || entries.Entries[1].Kind != "tool_result" || entries.Entries[1].File != "tapes/main/anchors/001_session-start/tool_calls.jsonl" {
		t.Errorf("show 1 = %+v", entries)
	}

	anchors, txt := ok[anchorsResult](c, "anchors", map[string]any{})
	if len(anchors.Anchors) != 2 || anchors.Anchors[1].Name != "fix" || string(anchors.Anchors[1].State) != `{"summary":"the flush timeout is 1ms"}` || anchors.Anchors[0].Entries != 4 {
		t.Errorf("anchors = %+v\n%s", anchors, txt)
	}

	tapes, _ := ok[tapesResult](c, "tapes", map[string]any{})
	if tapes.Total != 2 || len(tapes.Tapes) != 2 {
		t.Errorf("tapes = %+v", tapes)
	}
	tapes, txt = ok[tapesResult](c, "tapes", map[string]any{"limit": 1})
	if tapes.Total != 2 || len(tapes.Tapes) != 1 || !strings.Contains(txt, "offset 1 for more") {
		t.Errorf("tapes limit 1 = %+v\n%s", tapes, txt)
	}

	listed, _ := ok[callsResult](c, "calls", map[string]any{})
	if listed.Total != 1 || listed.Calls[0].Status != "completed" || listed.Calls[0].Name != "bash" {
		t.Errorf("calls = %+v", listed)
	}
	listed, _ = ok[callsResult](c, "calls", map[string]any{"status": "pending"})
	if listed.Total != 0 || listed.Calls == nil {
		t.Errorf("calls pending = %+v, want an empty list", listed)
	}

	used, _ := ok[usageResult](c, "usage", map[string]any{"by": "model"})
	if len(used.Groups) != 1 || *used.Groups[0].Model != "m1" || used.Groups[0].TotalTokens != 15 {
		t.Errorf("usage by model = %+v", used)
	}
	// A run of now: one block, active, and none since tomorrow.
	blocks, txt := ok[usageResult](c, "usage", map[string]any{"by": "block", "all_tapes": true})
	if len(blocks.Groups) != 1 || blocks.Groups[0].Block == nil || !blocks.Groups[0].Block.Active || !strings.Contains(txt, "(active)") {
		t.Errorf("usage by block = %+v\n%s", blocks, txt)
	}
	later, _ := ok[usageResult](c, "usage", map[string]any{"by": "source", "since": time.Now().Add(24 * time.Hour).Format(time.RFC3339)})
	if later.Total != 0 {
		t.Errorf("usage by source since tomorrow = %+v, want none", later)
	}
}

// log and show page back from the newest entries; a page stays put when
// entries are appended after it.
func TestLogPages(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	c := connect(t, ws, Options{})
	for i := range 5 {
		appendTo(t, ws, "other", "event", `{"name":"n","data":{"i":`+string(rune('0'+i))+`}}`)
	}
	page, txt := ok[entriesResult](c, "log", map[string]any{"tape": "other", "limit": 3})
	if page.Total != 7 || len(page.Entries) != 3 || page.NextCursor != "4" || !strings.Contains(txt, "cursor 4") {
		t.Fatalf("first page = %+v\n%s", page, txt)
	}
	appendTo(t, ws, "other", "event", `{"name":"later"}`)
	page, _ = ok[entriesResult](c, "log", map[string]any{"tape": "other", "limit": 3, "cursor": page.NextCursor})
	if len(page.Entries) != 3 || page.NextCursor != "1" || page.Entries[0].Kind != "message" || !strings.Contains(string(page.Entries[2].Payload), `{"i":1}`) {
		t.Fatalf("second page = %+v", page)
	}
	page, _ = ok[entriesResult](c, "log", map[string]any{"tape": "other", "limit": 3, "cursor": page.NextCursor})
	if len(page.Entries) != 1 || page.Entries[0].Kind != "anchor" || page.NextCursor != "" {
		t.Fatalf("last page = %+v", page)
	}
}

func TestBadArguments(t *testing.T) {
	t.Parallel()
	c := connect(t, newWorkspace(t), Options{AllowWrite: true})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{}, `missing properties: ["query"]`},
		{"search", map[string]any{"query": "x", "limit": "ten"}, `limit: type`},
		{"search", map[string]any{"query": "x", "limit": 5000}, "limit 5000: want 1 to 200"},
		{"search", map[string]any{"query": "x", "since": "yesterday"}, `since: "yesterday" is neither RFC 3339`},
		{"search", map[string]any{"query": "***"}, "has no word to search for"},
		{"search", map[string]any{"query": "x", "bogus": 1}, "bogus"},
		{"search", map[string]any{"query": "x", "tape": "main", "all_tapes": true}, "give one or the other"},
		{"search", map[string]any{"query": "x", "tape": "nope"}, `no tape "nope"`},
		{"context", map[string]any{"anchor": "nope"}, `no such anchor "nope"`},
		{"context", map[string]any{"anchor": "fix", "all": true}, "not both"},
		{"context", map[string]any{"tape": "../x"}, "contains a path separator"},
		{"context", map[string]any{"max_tokens": -1}, "max_tokens -1"},
		{"log", map[string]any{"cursor": "abc"}, `cursor "abc"`},
		{"log", map[string]any{"limit": -1}, "limit -1"},
		{"show", map[string]any{}, `missing properties: ["anchor"]`},
		{"show", map[string]any{"anchor": "9"}, `no such anchor "9"`},
		{"anchors", map[string]any{"tape": "/etc"}, "contains a path separator"},
		{"tapes", map[string]any{"since": "soon"}, "since:"},
		{"calls", map[string]any{"status": "done"}, `status "done": want pending, completed or failed`},
		{"usage", map[string]any{"by": "fortnight"}, `by "fortnight": want one of tape, anchor, model, day`},
		{"usage", map[string]any{"since": "last tuesday"}, `since: `},
		{"usage", map[string]any{"offset": -2}, "offset -2"},
		{"append", map[string]any{"kind": "note", "payload": []int{1}}, "payload: type"},
		{"append", map[string]any{"kind": "", "payload": map[string]any{}}, `"kind" is required`},
		{"append", map[string]any{"tape": "../x", "kind": "note", "payload": map[string]any{}}, "contains a path separator"},
		{"append", map[string]any{"tape": "/tmp/x", "kind": "note", "payload": map[string]any{}}, "contains a path separator"},
		{"append", map[string]any{"tape": "..", "kind": "note", "payload": map[string]any{}}, "starts with a dot"},
		{"handoff", map[string]any{"name": "x", "state": map[string]any{"summary": "a"}, "summary": "b"}, "both set the summary"},
		{"handoff", map[string]any{"name": ""}, "anchor name"},
		{"handoff", map[string]any{"tape": "../../etc", "name": "x"}, "contains a path separator"},
	} {
		c.fails(tc.tool, tc.args, tc.want)
	}
	// Nothing was made outside the workspace, nor a tape of a bad name.
	parent := filepath.Dir(c.ws.Dir())
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("the folder of the workspace holds %d entries, want only .tape", len(entries))
	}
	if names, _ := c.ws.Tapes(); !slices.Equal(names, []string{"main", "other"}) {
		t.Errorf("tapes after bad writes: %v", names)
	}
}

func TestWritesReadOnly(t *testing.T) {
	t.Parallel()
	c := connect(t, newWorkspace(t), Options{})
	c.fails("append", map[string]any{"kind": "note", "payload": map[string]any{"a": 1}}, "tape mcp --allow-write")
	c.fails("handoff", map[string]any{"name": "next"}, "tape mcp --allow-write")
}

// A payload is written as the client sent it: its key order and its large
// integers kept, where a decode into Go values would sort and round them.
func TestWrites(t *testing.T) {
	t.Parallel()
	ws := withMaxEntryBytes(t, newWorkspace(t), 4096)
	c := connect(t, ws, Options{AllowWrite: true})
	payload := json.RawMessage(`{"z":1,"a":12345678901234567890,"text":"<b>&</b>"}`)
	added, _ := ok[records.Append](c, "append", map[string]any{"tape": "notes", "kind": "note", "payload": payload, "meta": json.RawMessage(`{"context":false}`)})
	if added.Tape != "notes" || added.Kind != "note" || added.ID == "" {
		t.Errorf("append = %+v", added)
	}
	// The text form holds each entry's bytes; the structured form, as
	// this client decodes it, Go's values.
	entries, txt := ok[entriesResult](c, "log", map[string]any{"tape": "notes"})
	if n := len(entries.Entries); n != 2 || !strings.Contains(txt, `"payload":`+string(payload)+`,"meta":{"context":false}`) {
		t.Fatalf("log of notes = %s", txt)
	}
	h, _ := ok[handoffResult](c, "handoff", map[string]any{"tape": "notes", "name": "review", "state": json.RawMessage(`{"next":"review"}`), "summary": "wrote notes"})
	if h.Folder != "002_review" || string(h.State) != `{"next":"review","summary":"wrote notes"}` || !strings.HasPrefix(h.Path, ws.Dir()) {
		t.Errorf("handoff = %+v", h)
	}
	anchors, _ := ok[anchorsResult](c, "anchors", map[string]any{"tape": "notes"})
	if len(anchors.Anchors) != 2 || anchors.Anchors[1].Name != "review" {
		t.Errorf("anchors of notes = %+v", anchors)
	}
	// Written through package log: over max_entry_bytes is refused.
	big := `{"text":"` + strings.Repeat("x", int(ws.Config().MaxEntryBytes)) + `"}`
	c.fails("append", map[string]any{"tape": "notes", "kind": "note", "payload": json.RawMessage(big)}, "over the limit")
}

func TestResources(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	c := connectWith(t, ws, Options{}, func(s *server) { s.resourcePage = 2 }) // main's 2 anchors, then other's 1
	ctx := context.Background()
	var uris []string
	pages := 0
	cursor := ""
	for {
		res, err := c.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{"tape://main", "tape://main/001_session-start", "tape://main/002_fix", "tape://other", "tape://other/001_session-start"}
	if !slices.Equal(uris, want) || pages != 2 {
		t.Errorf("resources in %d pages: %v, want %v in 2", pages, uris, want)
	}
	read := func(uri string) string {
		res, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		return res.Contents[0].Text
	}
	if lines := strings.Split(strings.TrimSpace(read("tape://main")), "\n"); len(lines) != 7 {
		t.Errorf("tape://main holds %d lines, want 7", len(lines))
	}
	fix := read("tape://main/002_fix")
	if lines := strings.Split(strings.TrimSpace(fix), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "raised the flush timeout") {
		t.Errorf("tape://main/002_fix = %s", fix)
	}
	for _, uri := range []string{"tape://nope", "tape://main/009_x", "tape://..%2F..%2Fetc", "tape://%2Fetc%2Fpasswd", "tape://main/..%2F..%2Fconfig.json", "file:///etc/passwd"} {
		if _, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("read %s: %v, want not found", uri, err)
		}
	}
	if _, err := c.ListResources(ctx, &sdk.ListResourcesParams{Cursor: "!!"}); err == nil {
		t.Errorf("a cursor this server never gave was taken")
	}
}

// Names are escaped in URIs as a URI template expands them, and read back.
func TestResourceNames(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendTo(t, ws, "a tape #1 ü", "message", `{"role":"user","content":"odd name"}`)
	c := connect(t, ws, Options{})
	uri := tapeURI("a tape #1 ü")
	if uri != "tape://a%20tape%20%231%20%C3%BC" {
		t.Errorf("tapeURI = %s", uri)
	}
	res, err := c.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri + "/001_session-start"})
	if err != nil || !strings.Contains(res.Contents[0].Text, "odd name") {
		t.Errorf("read %s: %v", uri, err)
	}
}

// TestResourceOfEntriesBeforeTheFirstAnchor: a folder of seq 0 without
// anchor.json (Bub's 000_bub) is listed as what it is, not as an anchor
// with no name.
func TestResourceOfEntriesBeforeTheFirstAnchor(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	dir := ws.Abs("tapes/bub/anchors/000_bub")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bub.jsonl"), []byte(`{"id":1,"kind":"event","payload":{"name":"boot"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := connect(t, ws, Options{})
	res, err := c.ListResources(context.Background(), &sdk.ListResourcesParams{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range res.Resources {
		if r.Name == "bub/000_bub" {
			found = true
			if r.Title != "(before the first anchor)" || !strings.Contains(r.Description, "before its first anchor") {
				t.Errorf("the resource of 000_bub: title %q, description %q", r.Title, r.Description)
			}
		}
	}
	if !found {
		t.Errorf("no resource bub/000_bub among %d", len(res.Resources))
	}
}

// The index is disposable while a session runs: deleted, it is rebuilt by
// the next call, which answers as before.
func TestIndexDeleted(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	c := connect(t, ws, Options{})
	before, _ := ok[searchResult](c, "search", map[string]any{"query": "flush"})
	for _, name := range []string{"index.db", "index.db-wal", "index.db-shm"} {
		os.Remove(ws.Abs(name))
	}
	after, _ := ok[searchResult](c, "search", map[string]any{"query": "flush"})
	if len(after.Hits) != len(before.Hits) || len(after.Hits) == 0 {
		t.Errorf("search after index.db was deleted: %d hits, want %d", len(after.Hits), len(before.Hits))
	}
}

// TestContextWarnsOfBadLines: a line of the phase that cannot be read is
// left out of the context tool's messages and said in its warnings, as
// tape context and the log tool say it.
func TestContextWarnsOfBadLines(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	f, err := os.OpenFile(ws.Abs("tapes/main/anchors/002_fix/messages.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()
	appendTo(t, ws, "main", `message`, `{"role":"user","content":"and after the bad line"}`)
	c := connect(t, ws, Options{})
	res, _ := ok[contextResult](c, "context", map[string]any{"tape": "main"})
	if len(res.Messages) != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "messages.jsonl:2") {
		t.Errorf("context: %d messages, warnings %q; want 2 messages and one warning naming messages.jsonl:2", len(res.Messages), res.Warnings)
	}
}

// The tapes, calls and usage tools warn of what the CLI warns of beside
// the same pages (read.ListTapes, ListCalls, SumUsage): a symlinked tape
// folder no listing shows, results that answer no call, and runs whose
// token counts were not summed.
func TestListsWarn(t *testing.T) {
	ws := tapetest.NewWorkspace(t)
	appendTo(t, ws, "main",
		"tool_result", `{"results":[{"call_id":"nobody"}]}`,
		"event", `{"name":"run","data":{"model":"m","usage":{"input_tokens":-1,"output_tokens":2}}}`)
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.Dir(), "tapes", "alias\nwarning: forged")); err != nil {
		t.Fatal(err)
	}
	c := connect(t, ws, Options{})
	tapes, txt := ok[tapesResult](c, "tapes", map[string]any{})
	if len(tapes.Warnings) != 1 || !strings.Contains(tapes.Warnings[0], "tapes/alias") || !strings.Contains(txt, "warning: ") {
		t.Errorf("tapes: warnings %q\n%s", tapes.Warnings, txt)
	}
	if strings.Contains(txt, "\nwarning: forged") { // a name's newline starts no line of the text
		t.Errorf("tapes: a folder's name made a line of its own:\n%s", txt)
	}
	listed, txt := ok[callsResult](c, "calls", map[string]any{})
	if len(listed.Warnings) != 1 || !strings.Contains(listed.Warnings[0], "1 tool results answer no call") || !strings.Contains(listed.Warnings[0], "(nobody)") {
		t.Errorf("calls: warnings %q\n%s", listed.Warnings, txt)
	}
	sums, txt := ok[usageResult](c, "usage", map[string]any{})
	if len(sums.Groups) != 1 || sums.Groups[0].RunsBadUsage != 1 || len(sums.Warnings) != 1 || !strings.Contains(txt, "warning: 1 run gave token counts") {
		t.Errorf("usage: %+v\n%s", sums, txt)
	}
}

// The tapes tool's text cuts a title at titleRunes: a first prompt the
// index cut is read back whole, and a model reads the text. The
// structured title stays whole.
func TestTapesTextCutsLongTitles(t *testing.T) {
	ws := tapetest.NewWorkspace(t)
	prompt := strings.Repeat("长", 3000) // 9,000 bytes: past what the index keeps of it
	appendTo(t, ws, "main", "message", `{"role":"user","content":"`+prompt+`"}`)
	c := connect(t, ws, Options{})
	tapes, txt := ok[tapesResult](c, "tapes", map[string]any{})
	if len(tapes.Tapes) != 1 || tapes.Tapes[0].Title != prompt {
		t.Fatalf("tapes = %+v; want the one tape with its whole title", tapes)
	}
	if n := strings.Count(txt, "长"); n >= titleRunes || n < titleRunes/2 {
		t.Errorf("the text holds %d runes of the title; want under %d:\n%.300s", n, titleRunes, txt)
	}
}
