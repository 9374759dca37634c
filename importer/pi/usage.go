package pi

import (
	"encoding/json"
	"strconv"

	"github.com/tape-dev/tape/internal/rawjson"
)

// run is the run event of an assistant message's usage, counted as
// ccusage 20.0.24 counts it: input, output, cacheRead and cacheWrite;
// a usage that gives none of them but a totalTokens counts that total as
// output; a usage of no tokens makes no run. ok is false when there is
// no run.
//
// Its usage_id is what ccusage tells one request from another by:
// the file's session id (the name after its first '_'), the line's
// timestamp as written, the model, the four counts and the cost. A line
// written twice in one file counts once; the copy of a request in another
// session's file (Pi's /fork copies the path it forks) counts again, as
// ccusage counts it.
func (c *converter) run(in *input, m object) (json.RawMessage, bool) {
	raw := m.raw("usage")
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	u := members(raw)
	input, output := u.count("input"), u.count("output")
	read, write, total := u.count("cacheRead"), u.count("cacheWrite"), u.count("totalTokens")
	if input+output+read+write == 0 {
		if total == 0 {
			return nil, false
		}
		output = total
	}
	model, _ := m.str("model")
	display := model
	if display == "" {
		display = c.st.Model
	}
	var cost []byte
	if co := u.raw("cost"); len(co) > 0 && co[0] == '{' {
		if t := members(co).raw("total"); len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
			cost = t
		}
	}
	counts := rawjson.NewObject().Int("input_tokens", input).Int("output_tokens", output).
		Int("cache_read_input_tokens", read).Int("cache_creation_input_tokens", write)
	if sum := input + output + read + write; total > sum {
		counts.Int("total_tokens", total)
	}
	status, _ := m.str("stopReason")
	if status != "error" && status != "aborted" {
		status = "ok"
	}
	id := "pi:" + c.st.UsageID + ":" + in.stamp + ":" + model + ":" + strconv.FormatInt(input, 10) + ":" +
		strconv.FormatInt(output, 10) + ":" + strconv.FormatInt(write, 10) + ":" + strconv.FormatInt(read, 10) + ":" + string(cost)
	data := rawjson.NewObject().Str("status", status).StrIf("model", display).Raw("usage", counts.Done()).Str("usage_id", id)
	if p, ok := m.str("provider"); ok && p != "" {
		data.Str("provider", p)
	}
	if s, ok := m.str("stopReason"); ok && s != "" {
		data.Str("stop_reason", s)
	}
	if cost != nil {
		data.Raw("cost_usd", cost)
	}
	return rawjson.NewObject().Str("name", "run").Raw("data", data.Done()).Done(), true
}
