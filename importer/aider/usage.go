package aider

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// usage is what a "Tokens:" line says of one message's requests to the
// model (Coder.calculate_and_show_tokens_and_cost): the tokens sent
// (which count the cache's writes and hits), written to and read from
// the cache, and received; and the cost Aider reckoned, as written.
type usage struct {
	sent, write, hit, received int64
	cost, sessionCost          string // dollars, as written ("0.0012"); "" when not said
	note                       string // what follows the cost
}

// readUsage reads a "Tokens:" message of Aider's, of any release that
// writes one (0.46 and later):
//
//	Tokens: 1,234 sent, 56 received. Cost: $0.001234 request, $0.012345 session.   (0.46–0.49)
//	Tokens: 1,234 sent, 567 cached, 56 received. Cost: $0.0012 message, $0.01 session.   (0.50)
//	Tokens: 12k sent, 3.0k cache write, 8.2k cache hit, 500 received.
//	Cost: $0.02 message, $0.05 session.   (0.51.1 and later; from 0.51.0 the cost on a line of its own when both cache counts are there)
//
// Counts of 0.51.1 and later are rounded: 2.1k is 2,100, 12k 12,000.
func readUsage(text string) (usage, bool) {
	rest, ok := strings.CutPrefix(text, "Tokens: ")
	if !ok {
		return usage{}, false
	}
	counts, cost, ok := strings.Cut(rest, " received.")
	if !ok {
		return usage{}, false
	}
	var u usage
	seen := false
	for part := range strings.SplitSeq(counts+" received", ", ") {
		num, label, ok := strings.Cut(part, " ")
		n, good := tokenCount(num)
		if !ok || !good {
			return usage{}, false
		}
		switch label {
		case "sent":
			u.sent = n
		case "received":
			u.received, seen = n, true
		case "cache write":
			u.write = n
		case "cache hit", "cached":
			u.hit = n
		default:
			return usage{}, false
		}
	}
	if cost = strings.TrimSpace(cost); cost != "" {
		m := costRE.FindStringSubmatch(cost)
		if m == nil {
			return usage{}, false // more than a usage line says: Aider's output
		}
		u.cost, u.sessionCost, u.note = m[1], m[2], strings.TrimSpace(m[3])
	}
	return u, seen
}

// costRE reads the cost after the counts: the message's ("request"'s, in
// 0.46 to 0.49) and the session's, and what 0.51 added after them ("Use
// --no-stream for accurate caching costs.").
var costRE = regexp.MustCompile(`^Cost: \$(` + jsonNumber + `) (?:message|request), \$(` + jsonNumber + `) session\.(.*)$`)

// jsonNumber is a number Aider writes ("0.0012") that is JSON text as it
// stands, so that the run event keeps it as written.
const jsonNumber = `(?:0|[1-9][0-9]*)(?:\.[0-9]+)?`

// tokenCount reads a count as Aider writes it: "1,234", "950", "2.1k",
// "12k".
func tokenCount(s string) (int64, bool) {
	mul := 1.0
	if t, ok := strings.CutSuffix(s, "k"); ok {
		s, mul = t, 1000
	}
	s = strings.ReplaceAll(s, ",", "")
	if s == "" || s[0] == '-' || s[0] == '+' {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f > 1e12 {
		return 0, false
	}
	return int64(f*mul + 0.5), true
}

// run is the run event of a "Tokens:" message at line n. The tokens sent
// count the cache's (Aider adds its writes; the hits are in what the
// provider calls prompt tokens), so the input is what is left of them;
// its usage_id is the line's id, for Aider writes each once.
func (c *chatConverter) run(n int, u usage) source.Output {
	in := max(0, u.sent-u.write-u.hit)
	tokens := rawjson.NewObject().Int("input_tokens", in).Int("output_tokens", u.received).
		Int("cache_creation_input_tokens", u.write).Int("cache_read_input_tokens", u.hit).Done()
	data := rawjson.NewObject().Str("status", "ok").StrIf("model", c.st.Run.Model).Raw("usage", tokens).
		Str("usage_id", "aider:"+lineID(c.tag, n, 0))
	if u.cost != "" {
		data.Raw("cost_usd", []byte(u.cost))
	}
	if u.sessionCost != "" {
		data.Raw("session_cost_usd", []byte(u.sessionCost))
	}
	data.StrIf("note", u.note)
	return c.event(n, "run", data.Done())
}
