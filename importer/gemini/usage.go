package gemini

import (
	"math"
	"slices"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// tokenKeys are the members of a message's tokens (Gemini CLI's
// TokensSummary, from the API's usageMetadata): promptTokenCount,
// candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount,
// toolUsePromptTokenCount, totalTokenCount.
var tokenKeys = []string{"input", "output", "cached", "thoughts", "tool", "total"}

// usage maps a model message's tokens to a run event, once, counted as
// ccusage 20 counts them (cmd/tape/ccusage_test.go holds tape to it):
//
//   - input_tokens is input + tool less cached (the prompt counts the
//     cached tokens, and a tool's prompt is input too); less nothing when
//     cached is more than that;
//   - output_tokens is output alone: the thoughts are billed as output,
//     but ccusage's count leaves them out (they are kept, as
//     reasoning_output_tokens);
//   - cache_read_input_tokens is cached; Gemini writes no cache;
//   - total_tokens is the total, or the sum of the three when more;
//   - the model is the message's, else the last a record of the file
//     named before it; without one, no run (ccusage counts none): the
//     tokens are kept as an event gemini/tokens.
//
// A count that is not a number at least 0 counts 0; a fraction counts
// its whole part. The usage_id is the file's tag and the message's id:
// ccusage counts a message once in each file it is in, the last time it
// is written there (Gemini CLI writes a message's tokens once).
func (c *converter) usage(in input, mid string, l *last) []source.Output {
	raw := source.Trim(in.rec.Tokens)
	if l.Usage || len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	l.Usage = true
	model := c.st.Model
	// ccusage counts the messages of a .json document, and the records
	// of a .jsonl, not a document's messages in a .jsonl (a legacy
	// record on one line, which Gemini CLI never wrote there).
	counted := in.from == fromLine || c.isJSON
	if !isObject(raw) || model == "" || !counted {
		data := rawjson.NewObject().Raw("model", compact(source.Trim(in.rec.Model))).Raw("tokens", compact(raw)).Done()
		return []source.Output{c.event(in, mid+"/tokens", c.d.name+"/tokens", data)}
	}
	n := map[string]int64{}
	odd := false
	for _, f := range fields(raw) {
		if !slices.Contains(tokenKeys, f.key) {
			odd = true
			continue
		}
		x, good := tokenCount(f.value)
		n[f.key], odd = x, odd || !good
	}
	in_ := n["input"] + n["tool"]
	if n["cached"] <= in_ {
		in_ -= n["cached"]
	}
	total := max(n["total"], in_+n["output"]+n["cached"])
	u := rawjson.NewObject().Int("cache_read_input_tokens", n["cached"]).Int("input_tokens", in_).Int("output_tokens", n["output"])
	if n["thoughts"] > 0 {
		u.Int("reasoning_output_tokens", n["thoughts"])
	}
	u.Int("total_tokens", total)
	data := rawjson.NewObject().Str("model", model).Str("status", "ok").Raw("usage", u.Done()).Str("usage_id", c.d.name+":"+c.tag+":"+mid).Done()
	payload := rawjson.NewObject().Raw("data", data).Str("name", "run").Done()
	out := []source.Output{{Session: c.st.Session, Entry: c.entry(in, mid+"/usage/"+c.tag, tapelog.KindEvent, payload)}}
	if odd {
		// Members the run does not read, or counts that are no numbers:
		// the tokens as written.
		out = append(out, c.event(in, mid+"/tokens", c.d.name+"/tokens", compact(raw)))
	}
	return out
}

// maxCount is the largest count read: more is no count a model reports.
const maxCount = 1 << 50

// tokenCount reads a count: a JSON number, its whole part, at least 0;
// good is false for anything else, which counts 0.
func tokenCount(raw []byte) (int64, bool) {
	f, ok := number(raw)
	if !ok || math.IsNaN(f) {
		return 0, false
	}
	switch {
	case f <= 0:
		return 0, f == 0
	case f > maxCount:
		return maxCount, false
	}
	return int64(f), f == math.Trunc(f)
}
