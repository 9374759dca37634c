package claude

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/rawjson"
)

// scanRecord reads a line into r as json.Unmarshal(line, r) would, in one
// pass: rawjson.SplitObject checks the whole line and splits its members,
// and only the members the mapping reads are decoded, from their text; a
// message's content is kept as written, and read by decodeBlocks, which
// skips over its strings.
//
// It exists because encoding/json read each line twice, checking all of
// it and then decoding it (skipping over the content, a tool's output,
// byte by byte), and copied every raw member: about 40% of the CPU of a
// first import (BenchmarkConvertLines: the ratio of the two ways on one
// transcript, and decisions/0081).
//
// ok is false when it leaves the line to encoding/json, which decides and
// explains: a line that is not a valid JSON object (a bad line, whose
// reason encoding/json gives), nesting deeper than rawjson's scanner
// follows, a key written with an escape, a key that encoding/json would
// match to a field only by folding its case. mismatch says a member was
// of another type than its field's (a *json.UnmarshalTypeError for
// encoding/json), r then filled as
// encoding/json fills it: the other members decoded, that one left as it
// was.
//
// The raw members of r (RawDate, Message.RawContent) are parts of line,
// valid as long as it is: a caller that keeps one past the line copies
// it. CompactMetadata, which a held boundary keeps, is copied here.
// members is room for the line's members, returned for the next line
// and for eventData.
func scanRecord(line []byte, members []rawjson.Member, r *record) (_ []rawjson.Member, mismatch, ok bool) {
	split, ok := rawjson.SplitObject(line, members[:0])
	if !ok {
		return members[:0], false, false // the room kept for the next line
	}
	members = split
	d := fieldDecoder{}
	for _, m := range members {
		v := m.Value
		switch string(m.Key) {
		case "type":
			d.str(v, &r.Type)
		case "subtype":
			d.str(v, &r.Subtype)
		case "uuid":
			d.str(v, &r.UUID)
		case "parentUuid":
			d.strPtr(v, &r.ParentUUID)
		case "sessionId":
			d.str(v, &r.SessionID)
		case "agentId":
			d.str(v, &r.AgentID)
		case "isSidechain":
			d.boolean(v, &r.IsSidechain)
		case "isMeta":
			d.boolean(v, &r.IsMeta)
		case "isCompactSummary":
			d.boolean(v, &r.IsCompactSummary)
		case "isApiErrorMessage":
			d.boolean(v, &r.IsAPIError)
		case "timestamp":
			r.RawDate = v
		case "cwd":
			d.str(v, &r.CWD)
		case "gitBranch":
			d.str(v, &r.GitBranch)
		case "version":
			d.str(v, &r.Version)
		case "requestId":
			d.str(v, &r.RequestID)
		case "message":
			d.message(v, &r.Message)
		case "compactMetadata":
			r.CompactMetadata = bytes.Clone(v)
		case "aiTitle":
			d.str(v, &r.AITitle)
		case "customTitle":
			d.str(v, &r.CustomTitle)
		default:
			d.other(m.Key, recordFields)
		}
		if d.giveUp {
			return members, false, false
		}
	}
	return members, d.mismatch, true
}

// The JSON names of the fields of record, message and tokenUsage, for
// fieldDecoder.other.
var (
	recordFields = []string{"type", "subtype", "uuid", "parentUuid", "sessionId", "agentId", "isSidechain", "isMeta",
		"isCompactSummary", "isApiErrorMessage", "timestamp", "cwd", "gitBranch", "version", "requestId", "message",
		"compactMetadata", "aiTitle", "customTitle"}
	messageFields = []string{"id", "role", "model", "content", "usage"}
	usageFields   = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
)

// fieldDecoder decodes members' values, each valid JSON text, into Go
// fields as encoding/json's Unmarshal does: null leaves a field as it
// is (a pointer's is set to nil), a value of another type leaves it too
// and is a mismatch, and the decoding goes on.
type fieldDecoder struct {
	mismatch bool
	giveUp   bool // a key the decoder leaves to encoding/json
}

func (d *fieldDecoder) str(v []byte, dst *string) {
	switch {
	case v[0] == '"':
		*dst, _ = rawjson.String(v)
	case v[0] != 'n':
		d.mismatch = true
	}
}

func (d *fieldDecoder) strPtr(v []byte, dst **string) {
	switch {
	case v[0] == '"':
		s, _ := rawjson.String(v)
		*dst = &s
	case v[0] == 'n':
		*dst = nil
	default:
		if *dst == nil {
			*dst = new(string) // encoding/json makes the pointer before it finds the type wrong
		}
		d.mismatch = true
	}
}

func (d *fieldDecoder) boolean(v []byte, dst *bool) {
	switch v[0] {
	case 't':
		*dst = true
	case 'f':
		*dst = false
	case 'n':
	default:
		d.mismatch = true
	}
}

// integer is as encoding/json reads a number into an int64: an integer in
// its range, written without a fraction or an exponent.
func (d *fieldDecoder) integer(v []byte, dst *int64) {
	switch {
	case v[0] == 'n':
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			d.mismatch = true
			return
		}
		*dst = n
	default:
		d.mismatch = true
	}
}

// object calls fn with each member of the object v, until a key is left
// to encoding/json; null is no object and no mismatch, any other value a
// mismatch.
func (d *fieldDecoder) object(v []byte, fn func(key, value []byte)) {
	switch v[0] {
	case '{':
		rawjson.ObjectMembers(v, func(key, value []byte) {
			if !d.giveUp {
				fn(key, value)
			}
		})
	case 'n':
	default:
		d.mismatch = true
	}
}

func (d *fieldDecoder) message(v []byte, m *message) {
	d.object(v, func(key, v []byte) {
		switch string(key) {
		case "id":
			d.str(v, &m.ID)
		case "role":
			d.str(v, &m.Role)
		case "model":
			d.str(v, &m.Model)
		case "content":
			m.RawContent = v
		case "usage":
			if v[0] == 'n' {
				m.Usage = nil
				return
			}
			if m.Usage == nil {
				// A second usage is read into the first, and a value of
				// another type still makes the pointer, as encoding/json does.
				m.Usage = new(tokenUsage)
			}
			d.usage(v, m.Usage)
		default:
			d.other(key, messageFields)
		}
	})
}

func (d *fieldDecoder) usage(v []byte, u *tokenUsage) {
	d.object(v, func(key, v []byte) {
		switch string(key) {
		case "input_tokens":
			d.integer(v, &u.Input)
		case "output_tokens":
			d.integer(v, &u.Output)
		case "cache_creation_input_tokens":
			d.integer(v, &u.CacheCreation)
		case "cache_read_input_tokens":
			d.integer(v, &u.CacheRead)
		default:
			d.other(key, usageFields)
		}
	})
}

// other looks at a key that names none of fields exactly: encoding/json
// ignores it unless it names one by folding case ("Type", or "ſubtype"
// with a long s), or unless its escapes do (SplitObject takes no key with
// an escape; ObjectMembers does); such keys, which no transcript writes,
// are left to encoding/json.
func (d *fieldDecoder) other(key []byte, fields []string) {
	if bytes.IndexByte(key, '\\') >= 0 {
		d.giveUp = true
		return
	}
	for _, c := range key {
		if c >= utf8.RuneSelf {
			// Non-ASCII letters that fold to ASCII ones (ſ, K) are longer
			// than they: any length may match.
			d.giveUp = foldsTo(key, fields)
			return
		}
	}
	for _, f := range fields {
		if len(f) == len(key) && bytes.EqualFold(key, []byte(f)) {
			d.giveUp = true
			return
		}
	}
}

// foldsTo reports whether key names one of fields by folding case.
func foldsTo(key []byte, fields []string) bool {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			return true
		}
	}
	return false
}

// sortMembers sorts members by key, the last of repeated keys first.
func sortMembers(ms []rawjson.Member) {
	slices.Reverse(ms)
	slices.SortStableFunc(ms, func(a, b rawjson.Member) int { return bytes.Compare(a.Key, b.Key) })
}

// eventData is {"name": name, "data": the line without its envelope}, as
// eventPayloadJSON makes it, from the members scanRecord split the line
// into: the members not in envelopeKeys, the last of repeated keys, sorted
// by key, their values compacted. ok is false for a key of invalid UTF-8,
// which encoding/json would decode to another key.
func eventData(name string, members []rawjson.Member) (json.RawMessage, bool) {
	kept := make([]rawjson.Member, 0, len(members))
	for _, m := range members {
		if !utf8.Valid(m.Key) {
			return nil, false
		}
		if !isEnvelopeKey(m.Key) {
			kept = append(kept, m)
		}
	}
	sortMembers(kept)
	b := make([]byte, 0, 64+len(name)+membersLen(kept))
	b = append(b, `{"data":{`...)
	for i, m := range kept {
		if i > 0 && string(kept[i-1].Key) == string(m.Key) {
			continue // sortMembers put the last of repeated keys first
		}
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, string(m.Key))
		b = append(b, ':')
		b = rawjson.AppendCompact(b, m.Value)
	}
	b = append(b, `},"name":`...)
	b = rawjson.AppendString(b, name)
	return append(b, '}'), true
}

func isEnvelopeKey(k []byte) bool {
	for _, e := range envelopeKeys {
		if e == string(k) {
			return true
		}
	}
	return false
}

func membersLen(ms []rawjson.Member) int {
	n := 0
	for _, m := range ms {
		n += len(m.Key) + len(m.Value) + 4
	}
	return n
}
