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
// read it, into cl and it, in one pass: rawjson.SplitObject checks the
// whole line and splits the envelope, and the payload's members are read
// from their text. encoding/json read the line four times (checking it,
// decoding it, then checking and decoding the payload), most of a Codex
// import's CPU (BenchmarkImport: 18 MB/s).
//
// ok is false when it leaves the line to encoding/json, which decides:
// anything but an envelope of a known type with an object payload and no
// record_type, a key with an escape or one that matches a field only by
// folding its case, a member of another type than its field's, nesting
// deeper than rawjson follows. TestDecodeFastAgreesWithEncodingJSON and
// FuzzDecodeFast hold it to encoding/json.
//
// The payload is copied, and every raw member of it is a part of that
// copy: what the converter keeps may outlive the line.
func decodeFast(line []byte, members []rawjson.Member) (cl rolloutLine, it payloadItem, _ []rawjson.Member, ok bool) {
	split, ok := rawjson.SplitObject(line, members[:0])
	if !ok {
		return cl, it, members[:0], false
	}
	d := fastDecoder{}
	for _, m := range split {
		switch string(m.Key) {
		case "timestamp":
			cl.RawDate = bytes.Clone(m.Value)
		case "type":
			d.str(m.Value, &cl.Type)
		case "payload":
			cl.Payload = bytes.Clone(m.Value)
		case "id":
			cl.ID = bytes.Clone(m.Value)
		case "record_type":
			d.str(m.Value, &cl.RecordType)
		default:
			d.unknown(m.Key, envelopeKeys)
		}
	}
	if d.giveUp || cl.RecordType != "" || !envelopeTypes[cl.Type] || len(cl.Payload) == 0 || cl.Payload[0] != '{' {
		return cl, it, split, false
	}
	d.payload(cl.Payload, &it)
	return cl, it, split, !d.giveUp
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
type fastDecoder struct{ giveUp bool }

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

func (d *fastDecoder) payload(v []byte, it *payloadItem) {
	rawjson.ObjectMembers(v, func(key, v []byte) {
		switch string(key) {
		case "type":
			d.str(v, &it.Type)
		case "role":
			d.str(v, &it.Role)
		case "content":
			it.Content = v
		case "summary":
			it.Summary = v
		case "name":
			d.str(v, &it.Name)
		case "arguments":
			it.Arguments = v
		case "input":
			it.Input = v
		case "call_id":
			d.str(v, &it.CallID)
		case "output":
			it.Output = v
		case "status":
			d.str(v, &it.Status)
		case "action":
			it.Action = v
		case "encrypted_content":
			it.Encrypted = v
		case "id":
			d.str(v, &it.ID)
		case "cwd":
			d.str(v, &it.CWD)
		case "model":
			d.str(v, &it.Model)
		case "instructions":
			d.strPtr(v, &it.Instructions)
		case "git":
			it.Git = v
		case "source":
			it.Source = v
		case "forked_from_id":
			d.str(v, &it.ForkedFrom)
		case "cli_version":
			d.str(v, &it.CLIVersion)
		case "originator":
			d.str(v, &it.Originator)
		case "message":
			d.strPtr(v, &it.Message)
		case "info":
			d.info(v, it)
		default:
			d.unknown(key, payloadKeys)
		}
	})
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
		it.Info = &struct {
			Total *tokens `json:"total_token_usage"`
			Last  *tokens `json:"last_token_usage"`
		}{}
	}
	rawjson.ObjectMembers(v, func(key, v []byte) {
		switch string(key) {
		case "total_token_usage":
			d.tokens(v, &it.Info.Total)
		case "last_token_usage":
			d.tokens(v, &it.Info.Last)
		default:
			d.unknown(key, infoKeys)
		}
	})
}

func (d *fastDecoder) tokens(v []byte, dst **tokens) {
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
		*dst = &tokens{}
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

// boolPtr is a bool, or null, which makes dst nil.
func (d *fastDecoder) boolPtr(v []byte, dst **bool) {
	switch v[0] {
	case 't', 'f':
		b := v[0] == 't'
		*dst = &b
	case 'n':
		*dst = nil
	default:
		d.giveUp = true
	}
}

// floatPtr is a float64, or null, which makes dst nil.
func (d *fastDecoder) floatPtr(v []byte, dst **float64) {
	if v[0] == 'n' {
		*dst = nil
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
	*dst = &f
}
