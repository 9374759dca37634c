package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tape-dev/tape/testkit/poll"
)

// `tape mcp` as a real process, driven by the Go SDK's own client over
// stdio, as an agent runs it: the handshake, the lists of tools and
// resources, every tool, bad arguments, writes refused and allowed,
// a workspace with no index, and what other processes write appearing
// in a later call.

// mcpClient starts `tape mcp args...` in dir and connects the SDK's
// client to it; the process is closed (stdin, then SIGTERM) when the test
// ends.
type mcpClient struct {
	*sdk.ClientSession
	t      *testing.T
	cmd    *exec.Cmd
	stderr *syncBuffer
}

func startMCP(t *testing.T, dir string, args ...string) *mcpClient {
	t.Helper()
	cmd := tapeProcess(dir, append([]string{"mcp"}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "tape-test", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to tape mcp: %v; stderr: %s", err, stderr.String())
	}
	c := &mcpClient{ClientSession: cs, t: t, cmd: cmd, stderr: stderr}
	t.Cleanup(func() { cs.Close() })
	return c
}

// call calls a tool and returns its result, failing the test on a
// protocol error (a tool error is a result).
func (c *mcpClient) call(name string, args map[string]any) *sdk.CallToolResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("call %s: %v; stderr: %s", name, err, c.stderr.String())
	}
	return res
}

// ok calls a tool that must succeed and returns its structured content,
// as JSON, and its text.
func (c *mcpClient) ok(name string, args map[string]any) (structured, text string) {
	c.t.Helper()
	res := c.call(name, args)
	text = resultText(res)
	if res.IsError {
		c.t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		c.t.Fatalf("%s: no structured content: %v", name, err)
	}
	return string(raw), text
}

// toolError calls a tool that must answer a tool error saying want.
func (c *mcpClient) toolError(name string, args map[string]any, want string) {
	c.t.Helper()
	res := c.call(name, args)
	if text := resultText(res); !res.IsError || !strings.Contains(text, want) {
		c.t.Errorf("%s(%v) = error %v, %q; want a tool error that says %q", name, args, res.IsError, text, want)
	}
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// close ends the session by closing the server's stdin, and checks that
// the server exits cleanly on that EOF.
func (c *mcpClient) close() {
	c.t.Helper()
	if err := c.Close(); err != nil {
		c.t.Errorf("close the session: %v", err)
	}
	if st := c.cmd.ProcessState; st == nil || !st.Success() {
		c.t.Errorf("tape mcp after EOF: %v; stderr: %s", st, c.stderr.String())
	}
}

// mcpWorkspace is a workspace whose tape main holds a session: a question,
// a tool call and its result, a run with usage, and a handoff.
func mcpWorkspace(t *testing.T) string {
	t.Helper()
	dir := newCLIWorkspace(t)
	mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"why does the flush test time out?"}`)
	mustRun(t, dir, "append", "--kind", "tool_call", `{"calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]}`)
	mustRun(t, dir, "append", "--kind", "tool_result", `{"results":[{"tool_call_id":"c1","content":"FAIL: flush timeout"}]}`)
	mustRun(t, dir, "append", "--kind", "event", `{"name":"run","data":{"status":"ok","model":"m1","usage":{"input_tokens":7,"output_tokens":3}}}`)
	mustRun(t, dir, "handoff", "fix", "--summary", "the flush timeout is too short")
	mustRun(t, dir, "append", "--kind", "message", `{"role":"assistant","content":"raised the flush timeout"}`)
	return dir
}

func TestMCPProcess(t *testing.T) {
	t.Parallel()
	dir := mcpWorkspace(t)
	c := startMCP(t, dir, "--allow-write")
	ctx := context.Background()

	if init := c.InitializeResult(); init.ServerInfo.Name != "tape" || init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Instructions == "" {
		t.Errorf("initialize: %+v", init)
	}
	var tools []string
	for tool, err := range c.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
	}
	slices.Sort(tools)
	if want := []string{"anchors", "append", "calls", "context", "handoff", "log", "search", "show", "tapes", "usage"}; !slices.Equal(tools, want) {
		t.Errorf("tools = %v, want %v", tools, want)
	}
	var uris []string
	for r, err := range c.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if want := []string{"tape://main", "tape://main/001_session-start", "tape://main/002_fix"}; !slices.Equal(uris, want) {
		t.Errorf("resources = %v, want %v", uris, want)
	}
	var templates []string
	for r, err := range c.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, r.URITemplate)
	}
	if want := []string{"tape://{tape}", "tape://{tape}/{folder}"}; !slices.Equal(templates, want) {
		t.Errorf("resource templates = %v, want %v", templates, want)
	}
	read, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tape://main/002_fix"})
	if err != nil || len(read.Contents) != 1 || strings.Count(read.Contents[0].Text, "\n") != 2 || read.Contents[0].MIMEType != "application/jsonl" {
		t.Errorf("read tape://main/002_fix: %v %+v", err, read)
	}

	// Every tool, and what it must hold.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string // in the structured content
	}{
		{"search", map[string]any{"query": "flush timeout"}, []string{`"snippet":"FAIL: **flush** **timeout**"`, `"ranked_by":"bm25"`}},
		{"context", map[string]any{}, []string{`"messages":[{"content":"raised the flush timeout","role":"assistant"}]`}}, // as the client decodes it
		{"context", map[string]any{"anchor": "session/start"}, []string{`"tool_call_id":"c1"`, `[Anchor created: fix]`}},
		{"context", map[string]any{"anchor": "session/start", "max_tokens": 60}, []string{`"dropped":3`, `"max_tokens":60`, `"estimate":54`, `"over_budget":false`}},
		{"log", map[string]any{"limit": 1}, []string{`"total":2`, `"next_cursor":"1"`, `"kind":"message"`}},
		{"show", map[string]any{"anchor": "1", "kind": []string{"event"}}, []string{`"name":"run"`, `"total":1`}},
		{"anchors", map[string]any{}, []string{`"name":"fix"`, `"state":{"summary":"the flush timeout is too short"}`}},
		{"tapes", map[string]any{}, []string{`"name":"main"`, `"total":1`}},
		{"calls", map[string]any{"status": "completed"}, []string{`"name":"bash"`, `"status":"completed"`}},
		{"usage", map[string]any{"by": "model"}, []string{`"model":"m1"`, `"total_tokens":10`}},
		{"append", map[string]any{"kind": "note", "payload": map[string]any{"text": "remember the flush"}}, []string{`"kind":"note"`, `"tape":"main"`}},
		{"handoff", map[string]any{"name": "review", "summary": "fixed"}, []string{`"folder":"003_review"`, `"summary":"fixed"`}},
	} {
		got, text := c.ok(tc.tool, tc.args)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s(%v) = %s; want it to hold %s", tc.tool, tc.args, got, w)
			}
		}
		if text == "" {
			t.Errorf("%s: no text form", tc.tool)
		}
	}
	// What was written is on disk, where tape reads it.
	if out := mustRun(t, dir, "log", "--all", "--json", "--kind", "note"); !strings.Contains(out, "remember the flush") {
		t.Errorf("tape log after the append tool: %s", out)
	}

	// Bad arguments are tool errors, and the server goes on.
	c.toolError("search", map[string]any{"query": "x", "limit": "many"}, "limit")
	c.toolError("search", map[string]any{"query": "x", "nope": 1}, "nope")
	c.toolError("show", map[string]any{"anchor": "42"}, `no such anchor "42"`)
	c.toolError("log", map[string]any{"tape": "../x"}, "contains a path separator")
	c.toolError("append", map[string]any{"tape": "../outside", "kind": "note", "payload": map[string]any{}}, "contains a path separator")
	c.toolError("append", map[string]any{"tape": filepath.Join(dir, "abs"), "kind": "note", "payload": map[string]any{}}, "contains a path separator")
	c.toolError("append", map[string]any{"kind": "note", "payload": "not an object"}, "payload")
	if _, text := c.ok("search", map[string]any{"query": "remember"}); !strings.Contains(text, "**remember** the flush") {
		t.Errorf("search after bad calls: %s", text)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("the test's folder holds %d entries, want the workspace's alone", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, "outside")); err == nil {
		t.Errorf("a bad tape name made a file outside the workspace")
	}
	c.close()
}

// A call to a tool that does not exist is a protocol error, not a crash.
func TestMCPUnknownTool(t *testing.T) {
	t.Parallel()
	c := startMCP(t, mcpWorkspace(t))
	if _, err := c.CallTool(context.Background(), &sdk.CallToolParams{Name: "rm", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "rm") {
		t.Errorf("call rm: %v, want an error naming the tool", err)
	}
	if _, text := c.ok("tapes", nil); !strings.Contains(text, "main") {
		t.Errorf("tapes after an unknown tool: %s", text)
	}
	c.close()
}

// Read only by default: a write is a tool error that says how to enable
// it, and nothing is written.
func TestMCPReadOnly(t *testing.T) {
	t.Parallel()
	dir := mcpWorkspace(t)
	before := mustRun(t, dir, "log", "--all", "--json")
	c := startMCP(t, dir)
	c.toolError("append", map[string]any{"kind": "note", "payload": map[string]any{"a": 1}}, "tape mcp --allow-write")
	c.toolError("handoff", map[string]any{"name": "next"}, "tape mcp --allow-write")
	c.close()
	if after := mustRun(t, dir, "log", "--all", "--json"); after != before {
		t.Errorf("a read-only server changed the tape:\n%s\n---\n%s", before, after)
	}
}

// A workspace whose index was never built (tapes written by hand, or its
// index.db deleted) is indexed by the first call.
func TestMCPNoIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folder := filepath.Join(dir, ".tape", "tapes", "s1", "anchors", "001_session-start")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, lines string) {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("anchor.json", `{"kind":"anchor","payload":{"name":"session/start"}}`+"\n")
	write("messages.jsonl", `{"kind":"message","payload":{"role":"user","content":"written by hand"}}`+"\n")
	if _, err := os.Stat(filepath.Join(dir, ".tape", "index.db")); err == nil {
		t.Fatal("the workspace has an index")
	}
	c := startMCP(t, dir)
	// No tape named, no default tape: search reads every tape; log
	// needs one, and says how to pick it.
	if got, _ := c.ok("search", map[string]any{"query": "hand"}); !strings.Contains(got, `"tape":"s1"`) {
		t.Errorf("search in a workspace with no index: %s", got)
	}
	c.toolError("log", map[string]any{}, `pass "tape"`)
	if got, _ := c.ok("log", map[string]any{"tape": "s1"}); !strings.Contains(got, "written by hand") {
		t.Errorf("log of s1: %s", got)
	}
	c.close()
}

// What other processes write between two calls is in the second: lines
// appended with >> as any agent writes them, and a `tape append` process;
// without a watcher (the call catches up) and with one (it syncs with it).
func TestMCPSeesOtherWriters(t *testing.T) {
	t.Parallel()
	for _, watcher := range []bool{false, true} {
		t.Run(fmt.Sprintf("watcher=%v", watcher), func(t *testing.T) {
			dir := mcpWorkspace(t)
			if watcher {
				runWatcher(t, dir)
			}
			c := startMCP(t, dir)
			if _, text := c.ok("search", map[string]any{"query": "zebra"}); !strings.Contains(text, "no entry matches") { // the index is up
				t.Fatalf("search zebra before it was written: %s", text)
			}
			file := filepath.Join(dir, ".tape", "tapes", "main", "anchors", "002_fix", "agent.jsonl")
			f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, `{"kind":"message","payload":{"role":"assistant","content":"a zebra, written with >>"}}`)
			f.Close()
			mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"another zebra, by tape append"}`)
			_, text := c.ok("search", map[string]any{"query": "zebra"})
			for _, want := range []string{"a **zebra**, written with >>", "another **zebra**, by tape append"} {
				if !strings.Contains(text, want) {
					t.Errorf("search after other writers: %s; want %q", text, want)
				}
			}
			c.close()
		})
	}
}

// runWatcher runs `tape watch` on dir until the test ends, and waits
// until it holds the workspace.
func runWatcher(t *testing.T, dir string) {
	t.Helper()
	watch := tapeProcess(dir, "watch", "--quiet")
	var stderr bytes.Buffer
	watch.Stderr = &stderr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		watch.Process.Signal(os.Interrupt)
		watch.Wait()
	})
	lock := filepath.Join(dir, ".tape", "watch.lock")
	pid := fmt.Sprintf("pid %d", watch.Process.Pid)
	took := poll.Wait(10*time.Second, func() bool {
		data, _ := os.ReadFile(lock)
		return strings.Contains(string(data), pid)
	})
	if !took {
		t.Fatalf("tape watch never took the workspace: %s", stderr.String())
	}
}
