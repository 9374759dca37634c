package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// The input as a client that writes what it likes sees it: each line the
// SDK would have ended the session at is answered with a JSON-RPC error,
// and the session goes on. The same as a real process, with a line over
// the limit, is in cmd/tape (mcp_input_process_test.go).

// rawSession is Serve on pipes, written to a line at a time.
type rawSession struct {
	t       *testing.T
	w       *io.PipeWriter
	answers chan string
	done    chan error
}

func serveRaw(t *testing.T, ws *tapelog.Workspace) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, w: inW, answers: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), ws, inR, outW, Options{})
		inR.Close()
		outW.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.answers <- sc.Text()
		}
		close(s.answers)
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *rawSession) send(lines ...string) {
	s.t.Helper()
	for _, line := range lines {
		if _, err := io.WriteString(s.w, line+"\n"); err != nil {
			s.t.Fatalf("write %.60q: %v (the server has ended)", line, err)
		}
	}
}

// rpcAnswer is a JSON-RPC response.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next is the next answer; the test fails if the server ends first.
func (s *rawSession) next() rpcAnswer {
	s.t.Helper()
	select {
	case line, ok := <-s.answers:
		if !ok {
			s.t.Fatalf("the server ended: %v", <-s.done)
		}
		var a rpcAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			s.t.Fatalf("answer %q: %v", line, err)
		}
		return a
	case <-time.After(30 * time.Second):
		s.t.Fatal("no answer in 30s")
	}
	return rpcAnswer{}
}

// close ends the input and checks that the server ends cleanly.
func (s *rawSession) close() {
	s.t.Helper()
	s.w.Close()
	for range s.answers {
	}
	if err := <-s.done; err != nil {
		s.t.Errorf("Serve after the input's end: %v", err)
	}
}

// ping sends a ping of id and checks its answer is next.
func (s *rawSession) ping(id int) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if a := s.next(); string(a.ID) != fmt.Sprint(id) || a.Result == nil {
		s.t.Fatalf("ping %d answered %+v", id, a)
	}
}

// wantError checks that the next answer is an error of code for id.
func (s *rawSession) wantError(what string, code int64, id string) {
	s.t.Helper()
	a := s.next()
	if a.Error == nil || a.Error.Code != code || string(a.ID) != id {
		s.t.Fatalf("%s: answered %s %+v; want error %d for id %s", what, a.ID, a.Error, code, id)
	}
}

func initialize(version string) string {
	return `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// TestBadLinesAnswered: each malformed line is answered with an error,
// and the ping after it with its answer.
func TestBadLinesAnswered(t *testing.T) {
	t.Parallel()
	s := serveRaw(t, newWorkspace(t))
	s.send(initialize("2025-06-18"), initialized)
	if a := s.next(); string(a.ID) != `"init"` || a.Result == nil {
		t.Fatalf("initialize answered %+v", a)
	}
	for i, tt := range badLines {
		s.send(tt.line)
		s.wantError(tt.name, tt.code, tt.id)
		s.ping(i)
	}
	s.close()
}

// badLines are lines that are not JSON-RPC messages the server takes,
// and the error each is answered with: its code and id.
var badLines = []struct {
	name, line string
	code       int64
	id         string
}{
	{"not JSON", `nope`, -32700, "null"},
	{"cut short", `{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700, "null"},
	{"trailing data", `{"jsonrpc":"2.0","id":2,"method":"ping"} x`, -32700, "null"},
	{"two messages", `{"jsonrpc":"2.0","id":2,"method":"ping"}{"jsonrpc":"2.0","id":3,"method":"ping"}`, -32700, "null"},
	{"invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"caf\xe9\"}}}", -32700, "null"},
	{"invalid UTF-8 in the id", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", -32700, "null"},
	{"empty batch", `[]`, -32600, "null"},
	{"batch of a number", `[1]`, -32600, "null"},
	{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":"b","method":"ping"}]`, -32600, "null"},
	{"a string", `"ping"`, -32600, "null"},
	{"null", `null`, -32600, "null"},
	{"an object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
	{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
	{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
	{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
	{"a huge id", `{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, -32600, "null"},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"v1","method":"ping"}`, -32600, `"v1"`},
	{"no jsonrpc", `{"id":"v0","method":"ping"}`, -32600, `"v0"`},
	{"a method that is a number", `{"jsonrpc":"2.0","id":"m","method":5}`, -32600, `"m"`},
	{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
	{"a response with a bad error", `{"jsonrpc":"2.0","id":5,"error":{"code":"x"}}`, -32600, "null"},
	{"too deep params", `{"jsonrpc":"2.0","id":"deep","method":"ping","params":` + nested(maxDepth) + `}`, -32600, `"deep"`},
	{"too deep for any decoder", strings.Repeat("[", 20000), -32600, "null"},
}

// nested is JSON of arrays nested n deep.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestGoodLinesRead: lines the SDK takes pass as they are: a message
// as deep as the SDK reads, a line ended by CRLF, blank lines (answered
// by nothing), an id of an integer written as a float.
func TestGoodLinesRead(t *testing.T) {
	t.Parallel()
	s := serveRaw(t, newWorkspace(t))
	s.send(initialize("2025-06-18"), initialized)
	s.next()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"deep":` + nested(maxDepth-3) + `}}}`)
	if a := s.next(); string(a.ID) != "1" || a.Error != nil {
		t.Errorf("a message %d deep: %+v %+v", maxDepth, a, a.Error)
	}
	s.send("", "  \t", `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\r")
	if a := s.next(); string(a.ID) != "2" || a.Result == nil {
		t.Errorf("a ping after blank lines, ended by CRLF: %+v", a)
	}
	s.send(`  {"jsonrpc":"2.0","id":3.0,"method":"ping"}  `)
	if a := s.next(); string(a.ID) != "3" || a.Result == nil {
		t.Errorf("a ping of id 3.0: %+v", a)
	}
	s.close()
}

// TestInitializeAnswered: an initialize and a bad line after it, written
// at once: the initialize is answered, and so is the bad line.
func TestInitializeAnswered(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`[]`, `nope`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`} {
		s := serveRaw(t, newWorkspace(t))
		s.send(initialize("2025-06-18"), bad)
		got := map[string]bool{}
		for range 2 {
			a := s.next()
			got[fmt.Sprintf("%s %v", a.ID, a.Error != nil)] = true
		}
		if !got[`"init" false`] || !got["null true"] {
			t.Errorf("initialize then %s: answers %v", bad, got)
		}
		s.close()
	}
}

// TestBatches: a batch is read in MCP 2025-03-26 (the SDK answers it in
// an array), and refused when its request ids are those of another
// batch not yet answered, or repeated; the session goes on.
func TestBatches(t *testing.T) {
	t.Parallel()
	s := serveRaw(t, newWorkspace(t))
	s.send(initialize("2025-03-26"), initialized)
	s.next()
	s.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"1","method":"ping"}]`)
	select {
	case line := <-s.answers:
		var batch []rpcAnswer
		if err := json.Unmarshal([]byte(line), &batch); err != nil || len(batch) != 2 {
			t.Fatalf("a batch answered %s: %v", line, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to a batch in 30s")
	}
	s.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	s.wantError("a batch with an id twice", -32600, "null")
	s.ping(3)
	s.close()
}

// TestDecode: how each line is taken, in its own words.
func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line string
		want string // the error's message holds it; "" to pass
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, ""},
		{`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, ""},
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, "is not an integer below 2^53"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, ""},
		{`nope`, "line 7 of the input is not JSON: invalid character 'o'"},
		{"\"\xc3\"", "is not UTF-8 (at byte 2)"},
		{`[]`, "is an empty batch"},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, "is not an integer below 2^53"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, "its id is an object"},
		{`{"jsonrpc":"2.0","id":1,"id":{},"method":"ping"}`, "its id is an object"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},2]`, "message 2 is not a JSON-RPC message: it is not an object"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + nested(maxDepth) + `}`, "deeper than 1000"},
	} {
		n := 7
		_, _, err := decode([]byte(tt.line), n)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("decode(%.60s) = %s; want it passed", tt.line, err.message)
		case tt.want != "" && (err == nil || !strings.Contains(err.message, tt.want)):
			t.Errorf("decode(%.60s) = %v; want an error that says %q", tt.line, err, tt.want)
		}
	}
}

// TestMembers: the members of an object, cut short or not, as ids|methods.
func TestMembers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		obj, want string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"x"}`, `7|"x"`},
		{` { "id" : "a\"b" , "method" : {"id":1} } `, `"a\"b"|{"id":1}`},
		{`{"\u0069d":[1,{"x":"]"}],"id":2}`, `[1,{"x":"]"}],2|`},
		{`{"id":"big","method":"tools/call","params":{"x":"aaaa`, `"big"|"tools/call"`},
		{`{"id":12`, `|`},
		{`{"params":{"id":1},"x":[{"method":2}]}`, `|`},
		{`[{"id":1}]`, `|`},
		{`{"id":}`, `|`},
		{``, `|`},
	} {
		found := members([]byte(tt.obj), "id", "method")
		join := func(values []json.RawMessage) string {
			var b []string
			for _, v := range values {
				b = append(b, string(v))
			}
			return strings.Join(b, ",")
		}
		if got := join(found["id"]) + "|" + join(found["method"]); got != tt.want {
			t.Errorf("members(%s) = %s, want %s", tt.obj, got, tt.want)
		}
	}
}

// TestLongLine: a line longer than the input reads is answered, with its
// id when its start holds it, and the rest of it dropped; the lines after
// it are read, a last one without its newline too.
func TestLongLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	o := &output{w: &out, flight: newInFlight(), batches: newBatchRules()}
	long := `{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"x":"` + strings.Repeat("a", 300<<10) + `"}}`
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	in := newInput(context.Background(), strings.NewReader(long+"\n"+ping+"\n"+long+"\n"+ping), o, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no one answers: the end of the input does not wait
	in.ctx = ctx
	passed, err := io.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := ping + "\n" + ping + "\n"; string(passed) != want {
		t.Errorf("passed %q, want %q", passed, want)
	}
	answers := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(answers) != 2 || !strings.Contains(answers[0], `"id":"long","error":{"code":-32600,"message":"line 1 of the input is longer than 1000 bytes`) ||
		!strings.Contains(answers[1], "line 3 of the input is longer") {
		t.Errorf("answers:\n%s", out.String())
	}
}
