package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/tape-dev/tape/internal/rawjson"
)

// maxDepth is how deep a message's arrays and objects may nest: the
// SDK's decoder refuses a message nested deeper than 1,000, and a
// refusal by the SDK ends the session, so the input answers such a line
// itself (input.go).
const maxDepth = 1000

// rpcError is a JSON-RPC error answer to one line of the input.
type rpcError struct {
	id      json.RawMessage // the request's; null when the line has none, or it is not a request's
	code    int64
	message string
}

func parseError(line int, format string, args ...any) *rpcError {
	return &rpcError{code: jsonrpc.CodeParseError, message: fmt.Sprintf("line %d of the input ", line) + fmt.Sprintf(format, args...)}
}

func invalidRequest(id json.RawMessage, line int, format string, args ...any) *rpcError {
	return &rpcError{id: id, code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf("line %d of the input ", line) + fmt.Sprintf(format, args...)}
}

// encode is the error's answer, a line.
func (e *rpcError) encode() []byte {
	id := e.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: e.code, Message: e.message}})
	if err != nil { // an id that is not JSON: never, ids are checked first
		return e.withID(nil).encode()
	}
	return append(data, '\n')
}

func (e *rpcError) withID(id json.RawMessage) *rpcError {
	c := *e
	c.id = id
	return &c
}

// decode decodes line n of the input, without its line end or the
// blanks around it, as the SDK's transport will: one message, or a batch
// (an array of them). A line the SDK would refuse is an error: -32700
// for a line that is not JSON (nor UTF-8, as JSON text is), -32600 for
// JSON that is not a message. The SDK's own decoder
// (jsonrpc.DecodeMessage, which its transport calls) says what is a
// message, so the two cannot disagree; the checks before it only say
// more clearly what is wrong.
func decode(line []byte, n int) (msgs []jsonrpc.Message, batch bool, _ *rpcError) {
	if i := invalidUTF8(line); i >= 0 {
		return nil, false, parseError(n, "is not UTF-8 (at byte %d), and JSON text is; send one JSON-RPC message a line, in UTF-8", i+1)
	}
	if nesting(line) > maxDepth {
		return nil, false, invalidRequest(idOf(line), n, "nests arrays and objects deeper than %d; send a flatter message", maxDepth)
	}
	if !json.Valid(line) {
		err := json.Unmarshal(line, &struct{}{}) // to say where it is wrong
		return nil, false, parseError(n, "is not JSON: %v; send one JSON-RPC message a line", err)
	}
	if line[0] != '[' {
		msg, err := decodeOne(line)
		if err != nil {
			return nil, false, invalidRequest(idOf(line), n, "is not a JSON-RPC message: %v", err)
		}
		return []jsonrpc.Message{msg}, false, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil {
		return nil, true, invalidRequest(nil, n, "is not a batch of JSON-RPC messages: %v", err)
	}
	if len(elems) == 0 {
		return nil, true, invalidRequest(nil, n, "is an empty batch; send one JSON-RPC message a line")
	}
	for i, elem := range elems {
		msg, err := decodeOne(elem)
		if err != nil {
			return nil, true, invalidRequest(nil, n, "is a batch whose message %d is not a JSON-RPC message: %v; none of the batch was read", i+1, err)
		}
		msgs = append(msgs, msg)
	}
	return msgs, true, nil
}

// decodeOne decodes a message that is valid JSON.
func decodeOne(data []byte) (jsonrpc.Message, error) {
	if data[0] != '{' {
		return nil, errors.New("it is not an object")
	}
	for _, id := range members(data, "id")["id"] {
		if err := checkID(id); err != nil {
			return nil, err
		}
	}
	return jsonrpc.DecodeMessage(data)
}

// checkID checks a message's id: a string, null, or an integer, which
// the SDK answers as it was sent. It takes a number as a float64 and
// answers its integer part: an id of 1.5 would be answered as 1, and
// 2^53+1 as 2^53.
func checkID(id json.RawMessage) error {
	switch id[0] {
	case '"', 'n':
		return nil
	case '{', '[', 't', 'f':
		return fmt.Errorf("its id is %s; an id is a string or an integer", kindOf(id[0]))
	}
	f, err := strconv.ParseFloat(string(id), 64)
	if !bytes.ContainsAny(id, ".eE") { // exact, where a float64 may round
		var i int64
		i, err = strconv.ParseInt(string(id), 10, 64)
		f = float64(i)
	}
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		return fmt.Errorf("its id %.40s is not an integer below 2^53; an id is a string or such an integer", id)
	}
	return nil
}

func kindOf(first byte) string {
	switch first {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a boolean"
}

// idOf is the id an error answers a line with: the line's id if it is a
// request's (it has a method) and a valid one, else nothing (null). The
// line may be cut short, or be no JSON at all.
func idOf(line []byte) json.RawMessage {
	found := members(line, "id", "method")
	ids := found["id"]
	if len(ids) != 1 || len(found["method"]) == 0 || !json.Valid(ids[0]) || checkID(ids[0]) != nil || ids[0][0] == 'n' || !utf8.Valid(ids[0]) {
		return nil
	}
	return ids[0]
}

// members are the values of the named members of the JSON object obj,
// each name's in their order (a name may be given twice), as far as obj
// can be read: an object cut short has the members before the cut. The
// values are obj's own bytes, never copied: obj may be a line of many
// MiB.
func members(obj []byte, names ...string) map[string][]json.RawMessage {
	found := map[string][]json.RawMessage{}
	i := skipBlanks(obj, 0)
	if i == len(obj) || obj[i] != '{' {
		return found
	}
	for i++; ; i++ {
		i = skipBlanks(obj, i)
		if i == len(obj) || obj[i] != '"' {
			return found
		}
		end := valueEnd(obj, i)
		key := obj[i:end]
		i = skipBlanks(obj, end)
		if i == len(obj) || obj[i] != ':' {
			return found
		}
		start := skipBlanks(obj, i+1)
		end = valueEnd(obj, start)
		value := bytes.TrimRight(obj[start:end], " \t\r\n")
		i = skipBlanks(obj, end)
		if i == len(obj) { // cut short: the value may be too
			return found
		}
		if name := keyName(key); slices.Contains(names, name) {
			found[name] = append(found[name], value)
		}
		if obj[i] != ',' {
			return found
		}
	}
}

// keyName is a member's name, "" for a long one: the names members looks
// for are short, even with each letter escaped.
func keyName(key []byte) string {
	var name string
	if len(key) > 100 || json.Unmarshal(key, &name) != nil {
		return ""
	}
	return name
}

func skipBlanks(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// valueEnd is where the value at data[i] ends: after a string, else at
// the comma, colon or closing bracket after it, outside strings and
// brackets; len(data) if data ends first.
func valueEnd(data []byte, i int) int {
	depth := 0
	var q rawjson.Quotes
	for ; i < len(data); i++ {
		b := data[i]
		if q.Step(b) {
			if !q.In() && depth == 0 { // a string's closing quote
				return i + 1
			}
			continue
		}
		switch {
		case b == '{' || b == '[':
			depth++
		case depth == 0 && (b == ',' || b == ':' || b == '}' || b == ']'):
			return i
		case b == '}' || b == ']':
			depth--
		}
	}
	return len(data)
}

// invalidUTF8 is the offset of the first byte of data that is not
// UTF-8, or -1.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// nesting is how deep data's arrays and objects nest, counted as the
// SDK's decoder counts them (brackets outside strings), up to one past
// maxDepth.
func nesting(data []byte) int {
	depth, deepest := 0, 0
	var q rawjson.Quotes
	for _, b := range data {
		if q.Step(b) {
			continue
		}
		switch {
		case b == '{' || b == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > maxDepth {
					return deepest
				}
			}
		case b == '}' || b == ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}
