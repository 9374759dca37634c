package kimi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// tokens are the counts of one request's usage, as kosong's TokenUsage
// has them: input_other (the input less the cached tokens),
// input_cache_read, input_cache_creation, output.
type tokens struct {
	in, out, cacheRead, cacheWrite, total uint64
}

// Their spellings: Kimi CLI's (snake case, in a StatusUpdate's
// token_usage, which may also say total) and Kimi Code's (camel case, in
// a usage.record's usage).
var (
	cliCounts  = [5]string{"input_other", "output", "input_cache_read", "input_cache_creation", "total"}
	codeCounts = [5]string{"inputOther", "output", "inputCacheRead", "inputCacheCreation", ""}
)

// readTokens reads a usage object as ccusage 20 reads it: a count is a
// whole number written without a sign, a fraction or an exponent
// (serde_json's as_u64); anything else, or a count absent, is 0.
func readTokens(v []byte, names [5]string) tokens {
	var t tokens
	dst := [5]*uint64{&t.in, &t.out, &t.cacheRead, &t.cacheWrite, &t.total}
	rawjson.ObjectMembers(v, func(key, value []byte) {
		for i, name := range names {
			if name != "" && string(key) == name {
				*dst[i] = count(source.Trim(value))
			}
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

// maxCount bounds a count, so that sums cannot overflow: tape's views
// read a count above 2^40 as no count at all.
const maxCount = 1 << 40

// usage is a request's counts as ccusage 20.0.24 counts them: a total
// larger than the four counts' sum gives the rest to the output when it is
// 0, else to extra (which ccusage adds to its total alone); ok is false
// when every count is 0, a request ccusage does not count.
type usage struct {
	in, out, cacheRead, cacheWrite, extra uint64
}

func (t tokens) usage() (usage, bool) {
	u := usage{in: t.in, out: t.out, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite}
	if known := u.in + u.out + u.cacheRead + u.cacheWrite; t.total > known {
		if u.out == 0 {
			u.out = t.total - known
		} else {
			u.extra = t.total - known
		}
	}
	return u, u.in+u.out+u.cacheRead+u.cacheWrite+u.extra > 0
}

// runData is a run event's data: {"status": "ok", "model", "usage":
// {"input_tokens", "output_tokens", "cache_read_input_tokens",
// "cache_creation_input_tokens", "reasoning_output_tokens",
// "total_tokens"}, "usage_id"}, and the record it was read from under
// key, as written.
func runData(model string, u usage, id, key string, from []byte) []byte {
	total := u.in + u.out + u.cacheRead + u.cacheWrite + u.extra
	counts := rawjson.NewObject().Int("input_tokens", int64(u.in)).Int("output_tokens", int64(u.out)).
		Int("cache_read_input_tokens", int64(u.cacheRead)).Int("cache_creation_input_tokens", int64(u.cacheWrite))
	if u.extra > 0 {
		counts.Int("reasoning_output_tokens", int64(u.extra))
	}
	counts.Int("total_tokens", int64(total))
	return rawjson.NewObject().Str("status", "ok").StrIf("model", model).Raw("usage", counts.Done()).Str("usage_id", id).
		Raw(key, rawjson.AppendCompact(nil, from)).Done()
}

// usageID is what tells a repeated record from a new one: ccusage's key
// (its session, the request's message id, the date to the millisecond,
// the model and the counts), so that the same request written twice in a
// file counts once, as ccusage counts it.
func usageID(session, messageID, date, model string, u usage) string {
	return fmt.Sprintf("kimi:%s:%s:%s:%s:%d:%d:%d:%d:%d", session, messageID, date, model, u.in, u.out, u.cacheWrite, u.cacheRead, u.extra)
}

// statusUpdate maps a Kimi CLI StatusUpdate whose token_usage counts (one
// LLM step's, since 0.66) to a run event, the payload kept in its data.
// A StatusUpdate without usage, or a subagent's copied into its parent's
// file, which ccusage does not count, is kept as an event (nil).
func (in *input) statusUpdate(f fields) []source.Output {
	tu := f.get("token_usage")
	if in.nested || !isObject(tu) {
		return nil
	}
	u, ok := readTokens(tu, cliCounts).usage()
	if !ok {
		return nil
	}
	msgID, _ := f.str("message_id")
	// ccusage's session is the folder of the file: a subagent's file's
	// is the subagent's.
	session := in.sess.ID
	if in.sess.Agent != "" {
		session = in.sess.Agent
	}
	id := usageID(session, msgID, in.date, "", u)
	data := runData("", u, id, "payload", f.object())
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData("run", data), in.meta())}
}

// usageRecord maps a Kimi Code usage.record, {"model", "usage",
// "usageScope"}: a request's usage. Those of scope "turn" (the agent
// loop's requests) are run events; ccusage counts no others (a
// compaction's, a title's: scope "session"), and they are kept as events
// kimi/usage.record (nil).
func (in *input) usageRecord(f fields) []source.Output {
	v := f.get("usage")
	if scope, _ := f.str("usageScope"); scope != "turn" || !isObject(v) {
		return nil
	}
	u, ok := readTokens(v, codeCounts).usage()
	if !ok {
		return nil
	}
	model, _ := f.str("model")
	keyModel := "kimi-for-coding" // ccusage's, for a record without one
	if model != "" {
		keyModel = strings.TrimPrefix(model, "kimi-code/")
	}
	id := usageID(in.sess.ID, "", in.date, keyModel, u)
	data := runData(model, u, id, "record", codeData(f))
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData("run", data), in.meta())}
}
