package qwen

import (
	"fmt"
	"strconv"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// tokens is an assistant record's usageMetadata, Gemini's
// GenerateContentResponseUsageMetadata as Qwen Code writes it.
type tokens struct {
	prompt     uint64 // promptTokenCount: the input, cached tokens included
	candidates uint64 // candidatesTokenCount: the output
	thoughts   uint64 // thoughtsTokenCount
	cached     uint64 // cachedContentTokenCount
	total      uint64 // totalTokenCount
}

// readTokens reads a usageMetadata object as ccusage 20 reads it: a count
// is a whole number written without a sign, a fraction or an exponent
// (serde_json's as_u64); anything else, or a count absent, is 0.
func readTokens(v []byte) tokens {
	var t tokens
	rawjson.ObjectMembers(v, func(key, value []byte) {
		n := count(source.Trim(value))
		switch string(key) {
		case "promptTokenCount":
			t.prompt = n
		case "candidatesTokenCount":
			t.candidates = n
		case "thoughtsTokenCount":
			t.thoughts = n
		case "cachedContentTokenCount":
			t.cached = n
		case "totalTokenCount":
			t.total = n
		}
	})
	return t
}

func count(v []byte) uint64 {
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0
	}
	return min(n, maxCount)
}

// maxCount bounds a count, so that sums cannot overflow: far above any
// request's (tape's views read a count above 2^40 as no count at all).
const maxCount = 1 << 60

// usage is the run event of an assistant record's usageMetadata, counted
// as ccusage 20.0.24 counts Qwen Code's usage (its qwen adapter), so that
// tape usage and `ccusage qwen daily` agree:
//
//   - input_tokens is promptTokenCount, the cached tokens included (Qwen
//     Code's prompt count holds them), and cache_read_input_tokens is
//     cachedContentTokenCount: the cached tokens count in both, as
//     ccusage counts them;
//   - output_tokens is candidatesTokenCount, and reasoning_output_tokens
//     thoughtsTokenCount;
//   - a totalTokenCount larger than the four counts' sum gives the rest to
//     the output when it is 0, else to the reasoning;
//   - a record whose four counts are all 0 has no run event.
//
// usage_id is the record's uuid, which a /branch fork's copy of the
// record keeps, so that the copy counts once. A usageMetadata the mapping
// cannot count (of another record type, or without a count: the
// {"input", "output"} shape of a development build) is kept as an event
// qwen/usage.
func (in *input) usage() []source.Output {
	v := in.r.Usage
	if v == nil || string(v) == "null" {
		return nil
	}
	if o, ok := in.run(); ok {
		return []source.Output{o}
	}
	return in.event("qwen/usage", v)
}

// run is the run event of the record's usage, when it has one to count
// (usage).
func (in *input) run() (source.Output, bool) {
	v := in.r.Usage
	if in.r.Type != "assistant" || len(v) == 0 || v[0] != '{' {
		return source.Output{}, false
	}
	t := readTokens(v)
	input, output, cached, extra := t.prompt, t.candidates, t.cached, t.thoughts
	if known := input + output + cached + extra; t.total > known {
		if output == 0 {
			output = t.total - known
		} else {
			extra += t.total - known
		}
	}
	if input == 0 && output == 0 && cached == 0 && extra == 0 {
		return source.Output{}, false
	}
	total := t.total
	if total == 0 {
		total = input + output + extra
	}
	id := "qwen:" + in.r.UUID
	if in.r.UUID == "" {
		id = fmt.Sprintf("qwen:%s:%s:%s:%d:%d:%d:%d", in.sess.ID, in.r.Timestamp, in.r.Model, input, output, cached, extra)
	}
	u := rawjson.NewObject().Int("input_tokens", int64(input)).Int("output_tokens", int64(output)).
		Int("cache_read_input_tokens", int64(cached)).Int("reasoning_output_tokens", int64(extra)).Int("total_tokens", int64(total)).Done()
	data := rawjson.NewObject().Str("status", "ok").Str("model", in.r.Model).Raw("usage", u).Str("usage_id", id).Done()
	return in.entry(tapelog.KindEvent, source.NamedData("run", data), in.meta()), true
}

// withRun is out and the record's run event, if it has one: for a record
// kept whole, whose usage is in the event already, and counts as ccusage
// counts it.
func (in *input) withRun(out []source.Output) []source.Output {
	if o, ok := in.run(); ok {
		return append(out, o)
	}
	return out
}
