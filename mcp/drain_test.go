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
	t.Parallel()
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

func TestEachLine(t *testing.T) {
	t.Parallel()
	var partial []byte
	var lines []string
	collect := func(line []byte) { lines = append(lines, string(line)) }
	eachLine(&partial, []byte("a\nb"), collect)
	if strings.Join(lines, "|") != "a" || string(partial) != "b" {
		t.Fatalf("eachLine: lines %q, partial %q; want [a], \"b\"", lines, partial)
	}
	eachLine(&partial, []byte("c\n\nd"), collect)
	if strings.Join(lines, "|") != "a|bc|" || string(partial) != "d" {
		t.Fatalf("eachLine: lines %q, partial %q; want [a bc ], \"d\"", lines, partial)
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line string
		want int
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 1},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}`, 1},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0},
		{`{"jsonrpc":"2.0","method":"notifications/message"}`, 0},
		{`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":"3","result":{}}]`, 2},
		{`not json`, 0},
	} {
		if got := answers([]byte(tt.line)); len(got) != tt.want {
			t.Errorf("answers(%s) = %d, want %d", tt.line, len(got), tt.want)
		}
	}
}
