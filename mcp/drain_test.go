package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestPipedRequestsAreAllAnswered: a client that writes its requests and
// closes its end, as `printf ... | tape mcp` does, gets an answer to each,
// though the server's input ends before it has answered them.
func TestPipedRequestsAreAllAnswered(t *testing.T) {
	ws := newWorkspace(t)
	appendTo(t, ws, "main", "message", `{"role":"user","content":"flush the cache"}`)
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"flush"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"anchors","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tapes","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
	}
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(requests, "\n")) // the last line without its newline, as printf may leave it
	if err := Serve(context.Background(), ws, in, &out, Options{}); err != nil {
		t.Fatal(err)
	}
	answered := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			t.Errorf("answer %q: %v, or no result", line, err)
			continue
		}
		answered[m.ID] = true
	}
	for id := 1; id <= 5; id++ {
		if !answered[id] {
			t.Errorf("request %d has no answer; the output:\n%s", id, out.String())
		}
	}
}

func TestCountLines(t *testing.T) {
	var partial []byte
	yes := func([]byte) bool { return true }
	if n := countLines(&partial, []byte("a\nb"), yes); n != 1 || string(partial) != "b" {
		t.Fatalf("countLines = %d, partial %q; want 1, \"b\"", n, partial)
	}
	if n := countLines(&partial, []byte("c\n\nd"), yes); n != 2 || string(partial) != "d" {
		t.Fatalf("countLines = %d, partial %q; want 2, \"d\"", n, partial)
	}
	for _, tt := range []struct {
		line              string
		request, response bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true, false},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, true, false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, false},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, false, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}`, false, true},
		{`not json`, false, false},
	} {
		if got := isRequest([]byte(tt.line)); got != tt.request {
			t.Errorf("isRequest(%s) = %v", tt.line, got)
		}
		if got := isAnswer([]byte(tt.line)); got != tt.response {
			t.Errorf("isAnswer(%s) = %v", tt.line, got)
		}
	}
}
