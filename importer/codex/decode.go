package codex

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
)

// decodeFast reads a rollout line of the current layout (an envelope of a
// known type around an object payload) as Line's two json.Unmarshal calls
// read it, into *cl and *it (zero before), in one pass:
// rawjson.SplitObjectIn checks the whole line and splits the envelope and
// the payload, and the payload's members are read from their text.
// encoding/json read the line four times (checking it, decoding it, then
// checking and decoding the payload), most of a Codex import's CPU
// (BenchmarkImport: 18 MB/s).
//
// It returns false when it leaves the line to encoding/json, which decides:
// anything but an envelope of a known type with an object payload and no
// record_type, a key with an escape or one that matches a field only by
// folding its case, a member of another type than its field's, nesting
// deeper than rawjson follows. TestDecodeFastAgreesWithEncodingJSON and
// FuzzDecodeFast hold it to encoding/json.
//
// The raw members of cl and it are parts of line, not copies: nothing the
// converter keeps refers to them (every payload and meta is written anew,
// every string decoded), and TestKeepsNothingOfTheLine holds it to that.
//
// ld is what it keeps from line to line: room for the members, and the
// strings of the members that repeat (types, roles, names), read once.
func decodeFast(line []byte, ld *lineDecoder, cl *rolloutLine, it *payloadItem) bool {
	split, inner, ok := rawjson.SplitObjectIn(line, ld.members[:0], "payload", ld.inner[:0])
	if !ok {
		return false
	}
	ld.members, ld.inner = split, inner
	d := fastDecoder{names: ld}
	for _, m := range split {
		switch string(m.Key) {
		case "timestamp":
			cl.RawDate = m.Value
		case "type":
			d.name(m.Value, &cl.Type)
		case "payload":
			cl.Payload = m.Value
		case "id":
			cl.ID = m.Value
		case "record_type":
			d.str(m.Value, &cl.RecordType)
		default:
			d.unknown(m.Key, envelopeKeys)
		}
	}
	if d.giveUp || cl.RecordType != "" || !envelopeTypes[cl.Type] || len(cl.Payload) == 0 || cl.Payload[0] != '{' {
		return false
	}
	for _, m := range inner {
		d.member(m.Key, m.Value, it)
	}
	return !d.giveUp
}

// lineDecoder is what decodeFast keeps from line to line.
type lineDecoder struct {
	members []rawjson.Member // the line's
	inner   []rawjson.Member // its payload's
	parts   []part           // a content's (readParts)
	output  []rawjson.Member // a call's output's (failed)
	// names holds the strings of members whose values repeat from line
	// to line (fastDecoder.name), each its own key: a rollout's thousands
	// of "response_item"s and "function_call"s are one string each, not
	// an allocation each (a fifth of the converter's allocations). It
	// holds up to maxNames, for a rollout may name anything.
	names map[string]string
}

const maxNames = 256

// name is the string of a plain JSON string's text (no escapes, valid
// UTF-8), from names when it is there.
func (ld *lineDecoder) name(text []byte) string {
	if s, ok := ld.names[string(text)]; ok {
		return s
	}
	s := string(text)
	if ld.names == nil {
		ld.names = map[string]string{}
	}
	if len(ld.names) < maxNames {
		ld.names[s] = s
	}
	return s
}

var (
	envelopeKeys = []string{"timestamp", "type", "payload", "id", "record_type"}
	payloadKeys  = []string{"type", "role", "content", "summary", "name", "arguments", "input", "call_id", "output", "status", "action",
		"encrypted_content", "id", "cwd", "model", "instructions", "git", "source", "forked_from_id", "cli_version", "originator", "message", "info"}
	infoKeys   = []string{"total_token_usage", "last_token_usage"}
	tokensKeys = []string{"input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"}
)

// fastDecoder decodes members' values, each valid JSON text, as
// encoding/json decodes them into payloadItem's fields, and gives up at
// anything else.
type fastDecoder struct {
	giveUp bool
	names  *lineDecoder // for name; nil: name is str
	usage  *usageBlock  // where the payload's info is (info)
}

// unknown gives up at a key that is none of keys as written but that
// encoding/json would match to one of them: written with an escape, or
// matching by folding its case.
func (d *fastDecoder) unknown(key []byte, keys []string) {
	if plainLower(key) {
		return // keys are all such keys: it would be one of them as written
	}
	if bytes.IndexByte(key, '\\') >= 0 {
		d.giveUp = true
		return
	}
	for _, k := range keys {
		if strings.EqualFold(string(key), k) {
			d.giveUp = true
			return
		}
	}
}

// plainLower reports whether key is ASCII without an escape or an upper
// case letter: folded, it is only itself, and matches a key of the
// payload's (all such keys) only as written. Most keys a rollout holds
// that the mapping does not read are such keys, and strings.EqualFold
// against every key was a tenth of decodeFast's time.
func plainLower(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// member reads a member of the payload into it.
func (d *fastDecoder) member(key, v []byte, it *payloadItem) {
	switch string(key) {
	case "type":
		d.name(v, &it.Type)
	case "role":
		d.name(v, &it.Role)
	case "content":
		it.Content = v
	case "summary":
		it.Summary = v
	case "name":
		d.name(v, &it.Name)
	case "arguments":
		it.Arguments = v
	case "input":
		it.Input = v
	case "call_id":
		d.str(v, &it.CallID)
	case "output":
		it.Output = v
	case "status":
		d.name(v, &it.Status)
	case "action":
		it.Action = v
	case "encrypted_content":
		it.Encrypted = v
	case "id":
		d.str(v, &it.ID)
	case "cwd":
		d.name(v, &it.CWD)
	case "model":
		d.name(v, &it.Model)
	case "instructions":
		d.strPtr(v, &it.Instructions)
	case "git":
		it.Git = v
	case "source":
		it.Source = v
	case "forked_from_id":
		d.str(v, &it.ForkedFrom)
	case "cli_version":
		d.name(v, &it.CLIVersion)
	case "originator":
		d.name(v, &it.Originator)
	case "message":
		d.strPtr(v, &it.Message)
	case "info":
		d.info(v, it)
	default:
		d.unknown(key, payloadKeys)
	}
}

func (d *fastDecoder) info(v []byte, it *payloadItem) {
	switch v[0] {
	case 'n':
		it.Info = nil
		return
	case '{':
	default:
		d.giveUp = true
		return
	}
	if it.Info == nil {
		d.usage = &usageBlock{}
		it.Info = &d.usage.info
	}
	rawjson.ObjectMembers(v, func(key, v []byte) {
		switch string(key) {
		case "total_token_usage":
			d.tokens(v, &it.Info.Total, &d.usage.total)
		case "last_token_usage":
			d.tokens(v, &it.Info.Last, &d.usage.last)
		default:
			d.unknown(key, infoKeys)
		}
	})
}

// usageBlock is an info and its two usages in one allocation, not three:
// a token_count is every fifth line of a rollout.
type usageBlock struct {
	info        usageInfo
	total, last tokens
}

// tokens reads a usage into *dst, as encoding/json reads it into a
// *tokens: into the one there, else into spare, zeroed, which nothing else
// points to (a usage written twice, the first time null, takes it again).
func (d *fastDecoder) tokens(v []byte, dst **tokens, spare *tokens) {
	switch v[0] {
	case 'n':
		*dst = nil
		return
	case '{':
	default:
		d.giveUp = true
		return
	}
	if *dst == nil {
		*spare = tokens{}
		*dst = spare
	}
	t := *dst
	rawjson.ObjectMembers(v, func(key, v []byte) {
		switch string(key) {
		case "input_tokens":
			d.integer(v, &t.Input)
		case "cached_input_tokens":
			d.integer(v, &t.Cached)
		case "output_tokens":
			d.integer(v, &t.Output)
		case "reasoning_output_tokens":
			d.integer(v, &t.Reasoning)
		case "total_tokens":
			d.integer(v, &t.Total)
		default:
			d.unknown(key, tokensKeys)
		}
	})
}

// str is a string, or null, which leaves dst as it was.
func (d *fastDecoder) str(v []byte, dst *string) {
	switch v[0] {
	case '"':
		s, ok := rawjson.String(v)
		if !ok {
			d.giveUp = true
		}
		*dst = s
	case 'n':
	default:
		d.giveUp = true
	}
}

// name is str for a member whose value repeats from line to line: its
// string is read once (lineDecoder.name).
func (d *fastDecoder) name(v []byte, dst *string) {
	if d.names != nil && len(v) >= 2 && v[0] == '"' {
		if text := v[1 : len(v)-1]; bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) {
			*dst = d.names.name(text)
			return
		}
	}
	d.str(v, dst)
}

// strPtr is a string, or null, which makes dst nil.
func (d *fastDecoder) strPtr(v []byte, dst **string) {
	switch v[0] {
	case '"':
		var s string
		d.str(v, &s)
		*dst = &s
	case 'n':
		*dst = nil
	default:
		d.giveUp = true
	}
}

// integer is an int64 written without a fraction or an exponent, or null.
func (d *fastDecoder) integer(v []byte, dst *int64) {
	if v[0] == 'n' {
		return
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		d.giveUp = true
		return
	}
	*dst = n
}

// maybe is what encoding/json reads into a *T, without the allocation of
// the T: ok is false where the pointer would be nil (null, or absent).
type maybe[T any] struct {
	v  T
	ok bool
}

// maybeOf is the maybe of a pointer encoding/json read into.
func maybeOf[T any](p *T) maybe[T] {
	if p == nil {
		return maybe[T]{}
	}
	return maybe[T]{*p, true}
}

// maybeStr is strPtr into a maybe.
func (d *fastDecoder) maybeStr(v []byte, dst *maybe[string]) {
	switch v[0] {
	case '"':
		d.str(v, &dst.v)
		dst.ok = true
	case 'n':
		*dst = maybe[string]{}
	default:
		d.giveUp = true
	}
}

// maybeBool is a bool, or null, which makes dst absent.
func (d *fastDecoder) maybeBool(v []byte, dst *maybe[bool]) {
	switch v[0] {
	case 't', 'f':
		*dst = maybe[bool]{v[0] == 't', true}
	case 'n':
		*dst = maybe[bool]{}
	default:
		d.giveUp = true
	}
}

// maybeFloat is a float64, or null, which makes dst absent.
func (d *fastDecoder) maybeFloat(v []byte, dst *maybe[float64]) {
	if v[0] == 'n' {
		*dst = maybe[float64]{}
		return
	}
	if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		d.giveUp = true
		return
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		d.giveUp = true
		return
	}
	*dst = maybe[float64]{f, true}
}
