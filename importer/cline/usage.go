package cline

import (
	"encoding/json"
	"strconv"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// A request's tokens are in the text of the message that shows it, a
// JSON object: api_req_started's (Cline 2.0 and later, Roo Code, Kilo
// Code), written when the request starts ({"request": what was sent, as
// text}) and again when it ends, with {"tokensIn", "tokensOut",
// "cacheWrites", "cacheReads", "cost"} and, for one cancelled or failed,
// "cancelReason" and "streamingFailedMessage"; api_req_finished's (Claude
// Dev 1.x, which wrote the tokens in a message of their own); and
// subagent_usage's (Cline 3.58: what a batch of subagents spent,
// {"source": "subagents", the same counts}). ccusage 20.0.24 reads none
// of the three agents: these runs are checked by the golden files.

// run is the run event of a request's message: {"status": "ok" (or
// "error" for one cancelled or failed), "model", "provider", "mode" (from
// Cline's modelInfo), "usage", "usage_id": "cline:<task>:<ts>",
// "cost_usd", "cline": the text's other members (a count not written as
// a whole number among them), but "request", which the model's message
// holds, "message": the
// message's members beside its text and modelInfo}. ok is false for a text
// that is not a JSON object; a nil run is a request that has not ended
// (api_req_started with neither counts, cost nor a reason it stopped),
// which makes no entry until it does.
func (c *converter) run(in *input, ms []rawjson.Member, name string) (*source.Output, bool) {
	text, ok := str(ms, "text")
	if !ok {
		return nil, false
	}
	raw := []byte(text)
	if !validObject(raw) {
		return nil, false
	}
	info := source.ObjectOf(raw) // read once it is checked: ObjectOf trusts what it reads
	counts := map[string]int64{}
	given := false
	known := []string{"cost", "request"}
	for _, k := range []string{"tokensIn", "tokensOut", "cacheWrites", "cacheReads"} {
		if v, ok := rawjson.Lookup(info, k); ok {
			given = true
			if n, ok := count(source.Trim(v)); ok {
				counts[k] = n
				known = append(known, k) // a count of another form stays in "cline"
			}
		}
	}
	cost, hasCost := rawjson.Lookup(info, "cost")
	_, cancelled := rawjson.Lookup(info, "cancelReason")
	_, failed := rawjson.Lookup(info, "streamingFailedMessage")
	if name == "api_req_started" && !given && !hasCost && !cancelled && !failed {
		return nil, true
	}
	tin, read, write := counts["tokensIn"], counts["cacheReads"], counts["cacheWrites"]
	usage := rawjson.NewObject()
	if protocol, _ := str(info, "apiProtocol"); inclusive(protocol, tin, read, write) {
		// Roo Code (3.30 on, and with an OpenAI-style provider before)
		// writes the whole input, cached tokens and all.
		tin -= read + write
	}
	usage.Int("input_tokens", tin).Int("output_tokens", counts["tokensOut"]).
		Int("cache_creation_input_tokens", write).Int("cache_read_input_tokens", read)
	status := "ok"
	if cancelled || failed {
		status = "error"
	}
	mi := source.ObjectOf(member(ms, "modelInfo"))
	modelID, _ := str(mi, "modelId")
	data := rawjson.NewObject().Str("status", status).StrIf("model", modelID)
	if p, _ := str(mi, "providerId"); p != "" {
		data.Str("provider", p)
	}
	if m, _ := str(mi, "mode"); m != "" {
		data.Str("mode", m)
	}
	data.Raw("usage", usage.Done()).Str("usage_id", "cline:"+c.st.Session.ID+":"+in.id)
	if hasCost {
		data.Raw("cost_usd", rawjson.AppendCompact(nil, source.Trim(cost)))
	}
	if extra := others(info, known...); extra != nil {
		data.Raw("cline", extra)
	}
	skip := []string{"ts", "type", "say", "text", "modelInfo"}
	if raw := member(ms, "modelInfo"); len(raw) > 0 && (!source.IsObject(raw) || !plainModelInfo(mi)) {
		skip = skip[:4] // kept whole, beside what the run read of it
	}
	if extra := others(ms, skip...); extra != nil {
		data.Raw("message", extra) // the message's members beside its text
	}
	payload := rawjson.NewObject().Str("name", "run").Raw("data", data.Done()).Done()
	o := in.entry(tapelog.KindEvent, payload, in.meta())
	return &o, true
}

// inclusive reports whether a request's tokensIn holds its cached tokens
// too: Roo Code and Kilo Code say which API's counts they wrote
// ("apiProtocol"); an OpenAI-style API counts cached input in its input,
// and Roo Code from 3.30 (November 2025) writes the whole input for
// either. Where the input is less than the cached tokens it cannot hold
// them: Anthropic's counts, as Cline writes them. Without apiProtocol
// (Cline) the counts are Anthropic's: tokensIn is the input not cached,
// as Cline sums a request's context.
func inclusive(protocol string, in, read, write int64) bool {
	return protocol != "" && read+write > 0 && in >= read+write
}

// count is a count written as a whole number; ok is false for anything
// else (a fraction, a negative, a string), which counts none.
func count(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// validObject reports whether text is one JSON object.
func validObject(text []byte) bool {
	if _, ok := rawjson.SplitObject(text, nil); ok {
		return true
	}
	return source.IsObject(text) && json.Valid(text)
}

// plainModelInfo reports whether Cline's modelInfo is what a run says of
// it, whole: its modelId, providerId and mode, strings, and nothing else.
func plainModelInfo(mi []rawjson.Member) bool {
	for _, m := range mi {
		if !isOneOf(string(m.Key), []string{"modelId", "providerId", "mode"}) || !isString(source.Trim(m.Value)) {
			return false
		}
	}
	return true
}
