package openclaw

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// tokens is an assistant message's usage: pi-ai's Usage.
type tokens struct {
	input, output, cacheRead, cacheWrite, total uint64
}

// readTokens reads a usage object as ccusage 20 reads it: a count is a
// whole number written without a sign, a fraction or an exponent
// (serde_json's as_u64); anything else, or a count absent, is 0.
func readTokens(v []byte) tokens {
	var t tokens
	rawjson.ObjectMembers(v, func(key, value []byte) {
		n := count(source.Trim(value))
		switch string(key) {
		case "input":
			t.input = n
		case "output":
			t.output = n
		case "cacheRead":
			t.cacheRead = n
		case "cacheWrite":
			t.cacheWrite = n
		case "totalTokens":
			t.total = n
		}
	})
	return t
}

func count(v []byte) uint64 {
	if len(v) == 0 {
		return 0
	}
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

// run is the run event of an assistant message's usage, counted as
// ccusage 20.0.24 counts OpenClaw's (its openclaw adapter), so that tape
// usage and `ccusage openclaw daily` agree:
//
//   - input_tokens is input, output_tokens output,
//     cache_read_input_tokens cacheRead, cache_creation_input_tokens
//     cacheWrite (pi's input counts no cached token); total_tokens is
//     totalTokens when it is given;
//   - a usage whose four counts are all 0 (an error's, a message OpenClaw
//     wrote itself) has no run event;
//   - the run is dated by the message's timestamp (milliseconds, or an
//     RFC 3339 date), else the line's (usageDate);
//   - the model is the message's model (else its modelId), else the last
//     model_change's or model-snapshot's.
//
// usage_id is openclaw:<date>:<model>:<the four counts>, which ccusage's
// key is but for the session: the copies of a message that a fork, a
// compaction's successor transcript or a checkpoint copy holds count once
// (ccusage counts them in each transcript).
func (in *input) run(m msg) (source.Output, bool) {
	usage, model, stop := m.usage, m.model, m.stopReason
	var cost []byte
	if len(usage) == 0 || usage[0] != '{' {
		return source.Output{}, false
	}
	t := readTokens(usage)
	if t.input == 0 && t.output == 0 && t.cacheRead == 0 && t.cacheWrite == 0 {
		return source.Output{}, false
	}
	rawjson.ObjectMembers(usage, func(key, value []byte) {
		if string(key) == "cost" {
			cost = source.Trim(value)
		}
	})
	switch {
	case model != "":
	case m.modelID != "":
		model = m.modelID
	default:
		model = in.c.st.Model
	}
	date := in.usageDate(m.timestamp)
	status := "ok"
	if stop == "error" || stop == "aborted" {
		status = stop
	}
	u := rawjson.NewObject().Int("input_tokens", int64(t.input)).Int("output_tokens", int64(t.output)).
		Int("cache_read_input_tokens", int64(t.cacheRead)).Int("cache_creation_input_tokens", int64(t.cacheWrite))
	if t.total > 0 {
		u.Int("total_tokens", int64(t.total))
	}
	data := rawjson.NewObject().Str("status", status).Str("model", model).StrIf("provider", m.provider).StrIf("api", m.api).StrIf("stop_reason", stop).Raw("usage", u.Done())
	if len(cost) > 0 && string(cost) != "null" {
		data.Raw("cost", rawjson.AppendCompact(nil, cost))
	}
	id := fmt.Sprintf("openclaw:%s:%s:%d:%d:%d:%d", date, model, t.input, t.output, t.cacheRead, t.cacheWrite)
	data.Str("usage_id", id)
	return in.entryAt(tapelog.KindEvent, source.NamedData("run", data.Done()), in.meta(), date), true
}

// usageDate is the date ccusage counts a message's usage on: its
// timestamp, in milliseconds since 1970 (a fraction is cut) or as an RFC
// 3339 date; without one (absent or null), the line's timestamp, read
// alike. One neither reads (ccusage then takes the file's time, which a
// converter does not read) is the date of the record's entries.
func (in *input) usageDate(msgTS []byte) string {
	if len(msgTS) > 0 && string(msgTS) != "null" {
		if d, ok := readDate(msgTS); ok {
			return d
		}
		return in.r.Timestamp
	}
	if d, ok := readDate(in.r.RawDate); ok {
		return d
	}
	return in.r.Timestamp
}

// maxMillis is the last millisecond of the year 9999: a later date is
// none a tape takes.
const maxMillis = 253402300799999

// readDate reads a timestamp of ccusage's: milliseconds since 1970, or an
// RFC 3339 date, as tape writes a date: UTC, to the millisecond.
func readDate(v []byte) (string, bool) {
	var t time.Time
	if s, ok := source.StringValue(v); ok {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return "", false
		}
	} else {
		ms, err := strconv.ParseFloat(string(v), 64)
		if err != nil || ms < 0 || ms > maxMillis || math.IsNaN(ms) {
			return "", false
		}
		t = time.UnixMilli(int64(ms))
	}
	t = t.UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return "", false // a date RFC 3339 does not write
	}
	return t.Format(dateLayout), true
}

const dateLayout = "2006-01-02T15:04:05.000Z"
