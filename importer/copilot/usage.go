package copilot

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// tokens is a model's usage in a shutdown's modelMetrics, as ccusage
// reads it: input is what was not read from or written to the cache.
type tokens struct {
	In        uint64 `json:"in"`
	Out       uint64 `json:"out"`
	CacheRead uint64 `json:"cr"`
	CacheWrit uint64 `json:"cw"`
	Reasoning uint64 `json:"re"`
	Requests  uint64 `json:"rq"`
}

// minus is what t added to before, each count at least 0.
func (t tokens) minus(before tokens) tokens {
	sub := func(a, b uint64) uint64 { return a - min(a, b) }
	return tokens{sub(t.In, before.In), sub(t.Out, before.Out), sub(t.CacheRead, before.CacheRead),
		sub(t.CacheWrit, before.CacheWrit), sub(t.Reasoning, before.Reasoning), sub(t.Requests, before.Requests)}
}

// counted reports whether t holds tokens that a usage sum counts.
func (t tokens) counted() bool { return t.In > 0 || t.Out > 0 || t.CacheRead > 0 || t.CacheWrit > 0 }

// modelMetric is one model's entry in a shutdown's modelMetrics.
type modelMetric struct {
	Usage    json.RawMessage `json:"usage"`
	Requests json.RawMessage `json:"requests"`
}

// metricUsage is a modelMetric's usage.
type metricUsage struct {
	In        json.RawMessage `json:"inputTokens"`
	Out       json.RawMessage `json:"outputTokens"`
	CacheRead json.RawMessage `json:"cacheReadTokens"`
	CacheWrit json.RawMessage `json:"cacheWriteTokens"`
	Reasoning json.RawMessage `json:"reasoningTokens"`
}

// count reads a count: a whole number from 0 up; anything else is 0, as
// ccusage reads it.
func count(raw json.RawMessage) uint64 {
	var f float64
	if json.Unmarshal(raw, &f) != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0
	}
	return uint64(f)
}

// normalModel is a model's name as ccusage groups it: without Copilot's
// long-context suffixes (claude-opus-4.7-1m-internal is claude-opus-4.7).
func normalModel(model string) string {
	model = strings.TrimSpace(model)
	if m, ok := strings.CutSuffix(model, "-1m-internal"); ok {
		return m
	}
	return strings.TrimSuffix(model, "-1m")
}

// readMetrics reads a shutdown's modelMetrics as ccusage does: by model,
// in the order of their names; a model without a usage object, with an
// empty name, or with nothing counted, is left out; of two names that
// are one model, the later one.
func readMetrics(raw json.RawMessage) map[string]tokens {
	var metrics map[string]json.RawMessage
	if !source.IsObject(raw) || json.Unmarshal(raw, &metrics) != nil {
		return nil
	}
	out := map[string]tokens{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range metrics {
			if !yield(k) {
				return
			}
		}
	}) {
		var m modelMetric
		var u metricUsage
		model := normalModel(name)
		if !source.IsObject(metrics[name]) || json.Unmarshal(metrics[name], &m) != nil || model == "" ||
			!source.IsObject(m.Usage) || json.Unmarshal(m.Usage, &u) != nil {
			continue
		}
		var req struct {
			Count json.RawMessage `json:"count"`
		}
		if source.IsObject(m.Requests) {
			_ = json.Unmarshal(m.Requests, &req) // an object: it decodes
		}
		cacheRead, cacheWrit := count(u.CacheRead), count(u.CacheWrit)
		in := count(u.In)
		t := tokens{In: in - min(in, cacheRead+cacheWrit), Out: count(u.Out), CacheRead: cacheRead, CacheWrit: cacheWrit,
			Reasoning: count(u.Reasoning), Requests: count(req.Count)}
		if t != (tokens{}) {
			out[model] = t
		}
	}
	return out
}

// shutdown maps a session.shutdown: the event, whole, and a run of each
// model's usage since the shutdown before. Copilot writes a session's
// usage so far at each shutdown (every exit, and every exit after a
// resume), by model: a run holds what a model's counts added to the last
// shutdown's in this file, dated at its shutdown, as ccusage 20 counts
// them. A shutdown without a timestamp of its own counts nothing, and is
// no baseline, as in ccusage.
func (c *converter) shutdown(in *input) []source.Output {
	out := c.event(in, 0, "copilot/"+in.ev.Type, in.ev.Data)
	if !in.dated {
		return out
	}
	metrics := readMetrics(in.f.ModelMetrics)
	for _, model := range slices.Sorted(func(yield func(string) bool) {
		for k := range metrics {
			if !yield(k) {
				return
			}
		}
	}) {
		now := metrics[model]
		added := now
		if before, ok := c.st.Usage[model]; ok {
			added = now.minus(before)
		}
		if c.st.Usage == nil {
			c.st.Usage = map[string]tokens{}
		}
		c.st.Usage[model] = now
		if !added.counted() {
			continue
		}
		usage := rawjson.NewObject().Int("input_tokens", int64(added.In)).Int("output_tokens", int64(added.Out)).
			Int("cache_creation_input_tokens", int64(added.CacheWrit)).Int("cache_read_input_tokens", int64(added.CacheRead)).
			Int("reasoning_output_tokens", int64(added.Reasoning)).Done()
		data := rawjson.NewObject().Str("status", "ok").Str("model", model).Raw("usage", usage).Str("usage_id", c.usageID(in, model, now)).Done()
		payload := rawjson.NewObject().Str("name", "run").Raw("data", data).Done()
		out = append(out, c.entry(in, len(out), tapelog.KindEvent, payload))
	}
	return out
}

// usageID tells a shutdown's count of a model from any other: the
// session, the event's id and the model (ccusage's key); for an event
// without an id, its time and counts.
func (c *converter) usageID(in *input, model string, t tokens) string {
	if in.ev.ID != "" {
		return fmt.Sprintf("copilot:%s:%s:%s", c.st.Session.ID, in.ev.ID, model)
	}
	return fmt.Sprintf("copilot:%s:%s:%s:%d:%d:%d:%d:%d:%d", c.st.Session.ID, in.date, model, t.In, t.Out, t.CacheRead, t.CacheWrit, t.Reasoning, t.Requests)
}
