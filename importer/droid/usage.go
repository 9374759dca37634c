package droid

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Token usage is only in a session's settings: tokenUsage, the session's
// counts so far ({"inputTokens", "outputTokens", "cacheCreationTokens",
// "cacheReadTokens", "thinkingTokens"}). A run holds them as ccusage
// 20.0.24 reads them (`ccusage droid`, which reads the settings files
// alone), with the session's usage_id: of the runs the documents a
// session was written as made, tape usage counts the one with the
// largest total, the latest.

// tokens are a tokenUsage's counts.
type tokens struct{ in, out, cacheWrite, cacheRead, thinking uint64 }

func (t tokens) total() uint64 { return t.in + t.out + t.cacheWrite + t.cacheRead + t.thinking }

// readTokens reads a tokenUsage as ccusage does: an object, each count a
// whole number written as one ("10", 1.0 and 5e3 count 0, as a negative
// does).
func readTokens(raw []byte) (tokens, bool) {
	if !source.IsObject(raw) {
		return tokens{}, false
	}
	var t tokens
	rawjson.ObjectMembers(raw, func(key, value []byte) {
		n := count(source.Trim(value))
		switch string(key) {
		case "inputTokens":
			t.in = n
		case "outputTokens":
			t.out = n
		case "cacheCreationTokens":
			t.cacheWrite = n
		case "cacheReadTokens":
			t.cacheRead = n
		case "thinkingTokens":
			t.thinking = n
		}
	})
	return t, true
}

// count is a count written as a whole number, 0 for anything else.
func count(v []byte) uint64 {
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
	}
	n, err := strconv.ParseUint(string(v), 10, 63) // an int64, as the run writes it
	if err != nil {
		return 0
	}
	return n
}

// runOf is the run event of a settings document: its tokenUsage, the
// model it names, and the session's usage_id; nil when the document
// counts no token (ccusage counts no entry of it).
func runOf(doc []byte, session string) []byte {
	if !source.IsObject(doc) {
		return nil
	}
	var usage, model, provider []byte
	rawjson.ObjectMembers(doc, func(key, value []byte) {
		switch string(key) {
		case "tokenUsage":
			usage = source.Trim(value)
		case "model":
			model = source.Trim(value)
		case "providerLock":
			provider = source.Trim(value)
		}
	})
	t, ok := readTokens(usage)
	if !ok || t.total() == 0 {
		return nil
	}
	name, _ := source.StringValue(model)
	p, _ := source.StringValue(provider)
	u := rawjson.NewObject().
		Int("input_tokens", int64(t.in)).
		Int("output_tokens", int64(t.out)).
		Int("cache_creation_input_tokens", int64(t.cacheWrite)).
		Int("cache_read_input_tokens", int64(t.cacheRead)).
		Int("reasoning_output_tokens", int64(t.thinking)).
		Int("total_tokens", int64(t.total())).Done()
	data := rawjson.NewObject().Str("status", "ok").Str("model", modelName(name, p)).Raw("usage", u).
		Str("usage_id", "droid:"+session).Done()
	return rawjson.NewObject().Str("name", "run").Raw("data", data).Done()
}

// brackets are the [Provider] parts of a custom model's name.
var brackets = regexp.MustCompile(`\[[^\]]*\]`)

// modelName is the model a run names, as ccusage names it: the settings'
// model without a custom model's "custom:" prefix and [Provider] parts,
// in lower case, with "-" for dots and spaces
// ("custom:Claude-Opus-4.5-Thinking-[Anthropic]-0" is
// "claude-opus-4-5-thinking-0"); without one, the provider's
// "<family>-unknown". (ccusage looks for a "Model:" in the transcript
// beside a settings without a model first, which a converter, reading one
// file, cannot.)
func modelName(model, provider string) string {
	m := brackets.ReplaceAllString(strings.TrimPrefix(model, "custom:"), "")
	m = strings.ToLower(strings.TrimRight(strings.TrimSpace(m), "-"))
	m = strings.Join(strings.FieldsFunc(strings.ReplaceAll(m, ".", "-"), unicode.IsSpace), "-")
	for strings.Contains(m, "--") {
		m = strings.ReplaceAll(m, "--", "-")
	}
	if m = strings.Trim(m, "-"); m != "" {
		return m
	}
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(provider)), "-", "_") {
	case "anthropic", "claude":
		return "claude-unknown"
	case "openai":
		return "gpt-unknown"
	case "google", "google_ai", "gemini", "vertex", "vertex_ai":
		return "gemini-unknown"
	case "xai", "x_ai", "grok":
		return "grok-unknown"
	}
	return "unknown"
}
