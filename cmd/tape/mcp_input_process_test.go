package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// `tape mcp` as a real process, written to as a client that sends what
// it likes: every line that is not a message it takes is answered with a
// JSON-RPC error, and the process serves the next line; answers written
// before a bad line are not lost; a line over the limit is answered and
// dropped.

// rawMCP is `tape mcp` on pipes, written to a line at a time.
type rawMCP struct {
	t       *testing.T
	stdin   io.WriteCloser
	answers chan string
	exited  chan error
	stderr  *syncBuffer
}

func startRawMCP(t *testing.T, dir string) *rawMCP {
	t.Helper()
	cmd := tapeProcess(dir, "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &rawMCP{t: t, stdin: stdin, answers: make(chan string, 64), exited: make(chan error, 1), stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.answers <- sc.Text()
		}
		close(p.answers)
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
	})
	return p
}

func (p *rawMCP) send(lines ...string) {
	p.t.Helper()
	for _, line := range lines {
		if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
			p.t.Fatalf("write %.60q: %v; stderr: %s", line, err, p.stderr.String())
		}
	}
}

// mcpAnswer is a JSON-RPC response.
type mcpAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next is the next answer; the test fails if the process exits first.
func (p *rawMCP) next() mcpAnswer {
	p.t.Helper()
	select {
	case line, ok := <-p.answers:
		if !ok {
			p.t.Fatalf("tape mcp exited: %v; stderr: %s", <-p.exited, p.stderr.String())
		}
		var a mcpAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			p.t.Fatalf("answer %.200q: %v", line, err)
		}
		return a
	case <-time.After(60 * time.Second):
		p.t.Fatalf("no answer in 60s; stderr: %s", p.stderr.String())
	}
	return mcpAnswer{}
}

// ping sends a ping of id and checks its answer is next.
func (p *rawMCP) ping(id int) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if a := p.next(); string(a.ID) != fmt.Sprint(id) || a.Result == nil {
		p.t.Fatalf("ping %d answered %s %+v", id, a.ID, a.Error)
	}
}

// wantError checks that the next answer is an error of code for id.
func (p *rawMCP) wantError(what string, code int64, id string) {
	p.t.Helper()
	a := p.next()
	if a.Error == nil || a.Error.Code != code || string(a.ID) != id {
		p.t.Fatalf("%s: answered %s %+v; want error %d for id %s", what, a.ID, a.Error, code, id)
	}
}

// close ends stdin and checks that the process exits with status 0.
func (p *rawMCP) close() {
	p.t.Helper()
	p.stdin.Close()
	for range p.answers {
	}
	if err := <-p.exited; err != nil {
		p.t.Errorf("tape mcp after EOF: %v; stderr: %s", err, p.stderr.String())
	}
}

const mcpInitialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	dir := mcpWorkspace(t)
	p := startRawMCP(t, dir)

	// An initialize and a bad line, at once: both are answered.
	p.send(mcpInitialize, `[]`)
	got := map[string]bool{}
	for range 2 {
		a := p.next()
		got[fmt.Sprintf("%s %v", a.ID, a.Error != nil)] = true
	}
	if !got[`"init" false`] || !got["null true"] {
		t.Fatalf("initialize then []: answers %v", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Each bad line is answered with its error, and a ping after it with
	// its answer: the process goes on.
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	for i, tt := range []struct {
		name, line string
		code       int64
		id         string
	}{
		{"not JSON", `nope`, -32700, "null"},
		{"cut short", `{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":2,"method":"ping"} x`, -32700, "null"},
		{"invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"caf\xe9\"}}}", -32700, "null"},
		{"invalid UTF-8 in the id", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch of a number", `[1]`, -32600, "null"},
		{"a batch, in 2025-06-18", `[{"jsonrpc":"2.0","id":"b","method":"ping"}]`, -32600, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"an object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
		{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"v1","method":"ping"}`, -32600, `"v1"`},
		{"no jsonrpc", `{"id":"v0","method":"ping"}`, -32600, `"v0"`},
		{"a method that is a number", `{"jsonrpc":"2.0","id":"m","method":5}`, -32600, `"m"`},
		{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{"too deep", deep, -32600, "null"},
		{"too deep params", `{"jsonrpc":"2.0","id":"deep","method":"ping","params":` + deep + `}`, -32600, `"deep"`},
		{"too deep for any decoder", strings.Repeat("[", 20000), -32600, "null"},
	} {
		p.send(tt.line)
		p.wantError(tt.name, tt.code, tt.id)
		p.ping(i)
	}

	// A line over the limit (twice max_entry_bytes, 16 MiB, and 1 MiB) is
	// answered, with its id, and the rest of it dropped.
	huge := `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("a", 33<<20) + `"}}}`
	p.send(huge)
	p.wantError("a line of 33 MiB", -32600, `"huge"`)
	p.ping(100)

	// A tool call after it all is answered as ever.
	p.send(`{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"search","arguments":{"query":"flush"}}}`)
	if a := p.next(); string(a.ID) != "101" || !strings.Contains(string(a.Result), "flush") {
		t.Errorf("search after bad lines: %s %s %+v", a.ID, a.Result, a.Error)
	}
	p.close()
}
