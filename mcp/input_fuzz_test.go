package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzInput reads any bytes as a client's input, through the input and
// then the SDK's own transport, as Serve does. The SDK must take every
// line the input passes (it reads to the input's end with no error), the
// input's answers must each be a JSON-RPC error of -32700 or -32600, and
// every line that is not blank is either passed or answered, once.
func FuzzInput(f *testing.F) {
	for _, tt := range badLines {
		f.Add([]byte(tt.line + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	}
	for _, s := range []string{
		initialize("2025-03-26") + "\n[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
		"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}]\n[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n \t\n{\"jsonrpc\":\"2.0\",\"method\":\"\"}",
		`{"jsonrpc":"2.0","id":"long","method":"x","params":"` + string(bytes.Repeat([]byte("a"), 600)) + `"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\u0000\ud800"}}`,
		`{"JSONRPC":"2.0","id":1,"method":"x"} ` + "\n" + `{"jsonrpc":"2.0","jsonrpc":"1.0","id":2,"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		o := &output{w: &out, flight: newInFlight(), batches: newBatchRules()}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no one answers: the end of the input does not wait
		in := newInput(ctx, bytes.NewReader(data), o, 512)
		passed := &lineCounter{r: in}
		conn, err := (&sdk.IOTransport{Reader: io.NopCloser(passed), Writer: nopCloser{io.Discard}, MaxLineLength: -1}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for {
			if _, err := conn.Read(context.Background()); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("the SDK refused a line the input passed: %v\ninput: %q", err, data)
				}
				break
			}
		}
		answered := 0
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			answered++
			var a struct {
				JSONRPC string `json:"jsonrpc"`
				rpcAnswer
			}
			err := json.Unmarshal(line, &a)
			if err != nil || a.JSONRPC != "2.0" || a.Result != nil || a.Error == nil || a.Error.Message == "" ||
				(a.Error.Code != jsonrpc.CodeParseError && a.Error.Code != jsonrpc.CodeInvalidRequest) || (string(a.ID) != "null" && checkID(a.ID) != nil) {
				t.Fatalf("the input answered %q: %v", line, err)
			}
		}
		lines := 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.Trim(line, " \t\r")) > 0 || len(bytes.TrimSuffix(line, []byte("\r"))) > 512 { // blank, but too long
				lines++
			}
		}
		if passed.lines+answered != lines {
			t.Fatalf("%d lines, %d passed and %d answered\ninput: %q", lines, passed.lines, answered, data)
		}
	})
}

// lineCounter counts the lines read through it.
type lineCounter struct {
	r     io.Reader
	lines int
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.lines += bytes.Count(p[:n], []byte("\n"))
	return n, err
}
