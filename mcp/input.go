package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK reads its input with a JSON decoder, and ends the session at
// the first message it cannot take: a line that is not JSON or not
// UTF-8, `[]`, an id that is an object, a "jsonrpc" that is not "2.0",
// arrays nested past its limit, a line past its length limit. One bad
// line from a client ended `tape mcp` (exit 3), and lost the answers not
// yet written. So the server's input is a filter: it reads a line at a
// time (MCP over stdio is one message a line), passes on to the SDK the
// lines it will take (message.go, batch.go), answers every other line
// itself with a JSON-RPC error on the server's output (output.go), and
// reads on. A line longer than maxLine is answered as well, and the rest
// of it read and dropped, never held. See docs/decisions/0072.

// input is the server's input, as the SDK reads it: the lines of the
// client's that it takes, each ended by a newline.
type input struct {
	ctx     context.Context
	r       *bufio.Reader
	out     *output
	flight  *inFlight
	batches *batchRules
	maxLine int // the longest line read, in bytes without its end

	lines   int    // lines read so far
	buf     []byte // the line being read
	pending []byte // a line passed on, not yet all read by the SDK
	end     error  // the end of the client's input (io.EOF), once read
	waited  bool
}

// bufKept is the most the input keeps of its buffer between lines: the
// memory of one long line is freed once it is read.
const bufKept = 1 << 20

func newInput(ctx context.Context, r io.Reader, out *output, maxLine int) *input {
	return &input{ctx: ctx, r: bufio.NewReaderSize(r, 64<<10), out: out, flight: out.flight, batches: out.batches, maxLine: maxLine}
}

// Read passes on the lines the SDK will take. At the end of the client's
// input it first waits for the requests passed to be answered (drain.go).
func (in *input) Read(p []byte) (int, error) {
	for len(in.pending) == 0 {
		if in.end != nil {
			if !in.waited {
				in.flight.wait(in.ctx)
				in.waited = true
			}
			return 0, in.end
		}
		if err := in.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, in.pending)
	in.pending = in.pending[n:]
	return n, nil
}

// next reads the next line, and passes it on or answers it; its error is
// the answer's, which could not be written.
func (in *input) next() error {
	line, read, over := in.readLine()
	if !read {
		return nil
	}
	in.lines++
	if over {
		return in.out.answer(invalidRequest(idOf(line), in.lines,
			"is longer than %d bytes, the most this server reads (twice max_entry_bytes in .tape/config.json, and 1 MiB); it was not read, and the session goes on", in.maxLine))
	}
	line = bytes.Trim(line, " \t\r")
	if len(line) == 0 {
		return nil
	}
	msgs, batch, rerr := decode(line, in.lines)
	if rerr == nil && batch {
		rerr = in.batches.admit(msgs, in.lines)
	}
	if rerr != nil {
		return in.out.answer(rerr)
	}
	in.passed(msgs)
	in.pending = append(line, '\n')
	return nil
}

// passed counts the requests passed on, for the end of the input to wait
// for their answers, and notes an initialize for the batch rules.
func (in *input) passed(msgs []jsonrpc.Message) {
	for _, msg := range msgs {
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if req.IsCall() {
			in.flight.ask(1)
		}
		if req.Method == "initialize" {
			in.batches.initialize(req.Params)
		}
	}
}

// readLine reads the next line, without its newline (and a carriage
// return before it). read is false when the input ended before any byte;
// over is true when the line is longer than maxLine, and line then holds
// only its start. A read error other than the input's end ends it too:
// a client that cannot be read from sends nothing more.
func (in *input) readLine() (line []byte, read, over bool) {
	if cap(in.buf) > bufKept {
		in.buf = nil
	}
	in.buf = in.buf[:0]
	for {
		chunk, err := in.r.ReadSlice('\n')
		read = read || len(chunk) > 0
		if !over {
			room := in.maxLine + len("\r\n") - len(in.buf)
			over = len(chunk) > room
			in.buf = append(in.buf, chunk[:min(len(chunk), room)]...) // a long line's start, for its id
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			in.end = err
			if err != io.EOF {
				in.end = fmt.Errorf("read the client's input: %w", err)
			}
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(in.buf, []byte("\n")), []byte("\r"))
		return line, read, over || len(line) > in.maxLine
	}
}
