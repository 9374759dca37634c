package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Typed tools over the SDK's untyped ones.
//
// The SDK's own typed binding (sdk.AddTool) decodes a call's arguments
// into a map and encodes them again before it hands them over: a payload
// an agent appends would lose its key order, and its integers past 2^53
// their value, and a tape keeps what it is given. So the arguments are
// checked against the tool's schema here, then decoded from the bytes the
// client sent. The schemas are inferred from the Go types as the SDK
// infers them, with json.RawMessage read as any JSON value (the SDK would
// say an array of bytes) and jsonObject as an object.

// jsonObject is an argument that is a JSON object (a payload, a meta, a
// state), kept as the bytes the client sent.
type jsonObject json.RawMessage

func (o *jsonObject) UnmarshalJSON(b []byte) error {
	*o = append((*o)[:0], b...)
	return nil
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	return o, nil
}

// typeSchemas are the schemas of the types inference would get wrong.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
	reflect.TypeFor[jsonObject]():      {Type: "object"},
}

func schemaFor[T any]() (*jsonschema.Schema, error) {
	return jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
}

// handler is a tool's work: it returns the result, which becomes the
// call's structured content, and a short text form of it, for the
// clients that show a model only text. An error becomes a tool error
// (errorResult): something the model can read and act on.
type handler[In, Out any] func(ctx context.Context, in In) (Out, string, error)

// addTool adds tool t, its schemas inferred from In and Out, with h doing
// its work.
func addTool[In, Out any](srv *sdk.Server, t *sdk.Tool, h handler[In, Out]) error {
	in, err := schemaFor[In]()
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	out, err := schemaFor[Out]()
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	t.InputSchema, t.OutputSchema = in, out
	srv.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := decodeArgs[In](req.Params.Arguments, resolved)
		if err != nil {
			return errorResult(fmt.Errorf("bad arguments to %s: %w", t.Name, err)), nil
		}
		res, text, err := h(ctx, args)
		if err != nil {
			return errorResult(err), nil
		}
		structured, err := marshal(res)
		if err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: json.RawMessage(structured)}, nil
	})
	return nil
}

// decodeArgs checks a call's arguments against the tool's schema and
// decodes them into an In. An argument given as null is taken as not
// given, as models send optional arguments they mean to leave out.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	fields := map[string]json.RawMessage{}
	if raw := bytes.TrimSpace(raw); len(raw) > 0 && string(raw) != "null" { // none, as if {}
		if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
			return in, errors.New("the arguments must be a JSON object")
		}
	}
	values := make(map[string]any, len(fields))
	for k, v := range fields {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(fields, k)
			continue
		}
		var value any
		if err := json.Unmarshal(v, &value); err != nil {
			return in, fmt.Errorf("%s: %w", k, err)
		}
		values[k] = value
	}
	var check any = values
	if err := schema.Validate(&check); err != nil {
		return in, errors.New(schemaWords(err.Error()))
	}
	kept, err := marshal(fields) // each value's bytes as sent, but for white space
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal(kept, &in); err != nil {
		return in, err
	}
	return in, nil
}

// marshal encodes a result as JSON, without escaping <, > and & (a
// payload's text is not HTML).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// errorResult is a tool error: the call failed, and its text says why.
func errorResult(err error) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: message(err)}}}
}

// schemaWords is a schema's complaint about arguments said with their
// names: "validating root: validating /properties/limit: type: ..." is
// "limit: type: ...".
func schemaWords(msg string) string {
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	return strings.ReplaceAll(msg, "validating /properties/", "")
}
