package crush

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// usage is the run event of a session's line whose token counts or cost
// changed: Crush keeps no counts per message, only per session, in its
// row: prompt_tokens (the input and cache reads of its last request, as
// Crush 0.36 and later count them; its input and cache writes before),
// completion_tokens (that request's output; with its cache reads before
// 0.36) and cost (in dollars, the sum of all its requests', and of its
// subagents' tasks'). The run's usage is
// {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
// its cost_usd the cost, its model the session's last reply's, and its
// usage_id "crush:<session id>": of a session's runs, tape usage counts
// the one of the largest total, the session's counts as `crush stats`
// sums them (decision 0099). Dated when the row was last updated. A
// session of no tokens and no cost makes none.
func (c *converter) usage(in *input) []source.Output {
	prompt, completion := in.row.Int("prompt_tokens"), in.row.Int("completion_tokens")
	cost := source.Trim(in.row.Raw("cost"))
	if !isNumber(cost) {
		cost = nil
	}
	if prompt == 0 && completion == 0 && (cost == nil || isZero(cost)) {
		return nil
	}
	counts := rawjson.NewObject().Int("input_tokens", prompt).Int("output_tokens", completion).Done()
	key := string(counts) + string(cost)
	if key == c.st.Usage {
		return nil // a line written again for another column: the same counts
	}
	c.st.Usage = key
	d := rawjson.NewObject().Str("status", "ok").StrIf("model", c.st.Model).StrIf("provider", in.row.Str("last_provider")).
		Raw("usage", counts).Str("usage_id", "crush:"+c.st.Session.ID)
	if cost != nil {
		d.Raw("cost_usd", cost)
	}
	o := c.entry(in, tapelog.KindEvent, source.NamedData("run", d.Done()))
	sum := sha256.Sum256([]byte(key))
	o.Entry.ID = c.st.Session.ID + "/usage/" + hex.EncodeToString(sum[:6])
	if at := dateAt(in.row.Int("updated_at")); at != "" {
		o.Entry.Date = at
	}
	return []source.Output{o}
}

// isNumber reports whether v is a JSON number.
func isNumber(v []byte) bool {
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}

// isZero reports whether the JSON number v is zero.
func isZero(v []byte) bool {
	for _, b := range v {
		if b >= '1' && b <= '9' {
			return false
		}
		if b == 'e' || b == 'E' {
			break
		}
	}
	return true
}
