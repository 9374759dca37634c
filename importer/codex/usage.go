package codex

import (
	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// tokens is Codex's TokenUsage.
type tokens struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

func (t tokens) minus(o tokens) tokens {
	return tokens{t.Input - o.Input, t.Cached - o.Cached, t.Output - o.Output, t.Reasoning - o.Reasoning, t.Total - o.Total}
}

func (t tokens) negative() bool {
	return t.Input < 0 || t.Cached < 0 || t.Output < 0 || t.Reasoning < 0 || t.Total < 0
}

func (t tokens) zero() bool { return t == tokens{} }

// tokenCount turns Codex's cumulative usage into what the turn added: a
// run event, unless nothing was added (Codex repeats the event).
func (c *converter) tokenCount(in *input) []source.Output {
	info := in.it.Info
	if info == nil || info.Total == nil && info.Last == nil {
		return nil
	}
	var added tokens
	switch {
	case info.Total != nil && c.st.Totals == nil:
		added = *info.Total
	case info.Total != nil:
		added = info.Total.minus(*c.st.Totals)
		if added.negative() && info.Last != nil {
			added = *info.Last // the totals started over
		}
	default:
		added = *info.Last
	}
	if info.Total != nil {
		c.st.Totals = info.Total // this line's own, which nothing changes after
	}
	if added.zero() || added.negative() {
		return nil
	}
	payload := c.keep(appendRun(c.scratch[:0], c.st.Model, added, info.Total, in.cl.Timestamp))
	return c.chunks.output(c.st.Session, c.entry(in, 0, tapelog.KindEvent, payload))
}
