package views

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Facts is what the views need of one entry, taken from that entry alone:
// the projector extracts them while it parses the entry for search, and
// stores them with it, so that a view is computed from the index without
// reading a file again. The zero Facts means the entry feeds no view.
type Facts struct {
	Role      string `json:"role,omitempty"`      // message: its role
	Synthetic bool   `json:"synthetic,omitempty"` // meta says the message was written for the model, not by a person (Codex's environment context)
	CWD       string `json:"cwd,omitempty"`       // meta's working directory, when it names one
	Branch    string `json:"branch,omitempty"`    // meta's git branch, when it names one
	Title     string `json:"title,omitempty"`     // a title event: the session's name, as the agent gave it
	// Prompt is the text of a message a person wrote (IsPrompt), as
	// MessageText reads it, up to PromptBytes; PromptCut says it was cut
	// there. The sessions view titles a tape by its first prompt: kept
	// here, a list of thousands of tapes reads no file for their titles.
	Prompt    string      `json:"prompt,omitempty"`
	PromptCut bool        `json:"prompt_cut,omitempty"`
	Calls     []CallRef   `json:"calls,omitempty"`   // tool_call: its calls, in order
	Results   []ResultRef `json:"results,omitempty"` // tool_result: for each result, in order, its call id and whether it says it failed
	Run       *Run        `json:"run,omitempty"`     // a run event
}

// CallRef is one call of a tool_call entry.
type CallRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Run is a run event as Bub writes it: {"name": "run", "data": {"status",
// "model", "usage": {...}, "usage_id"}}. Usage is in the OpenAI spelling
// (prompt_tokens, completion_tokens) or the Anthropic one (input_tokens,
// output_tokens, cache_creation_input_tokens, cache_read_input_tokens); a
// missing total_tokens is the sum of the four.
//
// UsageID names the provider's request when the same usage may be
// reported more than once (Claude Code writes it on every line of a turn,
// and a resumed session copies earlier turns into its new transcript):
// usage sums count one run of each UsageID, the one with the largest
// total, as ccusage counts them.
type Run struct {
	Status        string `json:"status,omitempty"`
	Model         string `json:"model,omitempty"`
	Usage         bool   `json:"usage,omitempty"` // the event reported usage
	In            int64  `json:"in,omitempty"`
	Out           int64  `json:"out,omitempty"`
	CacheCreation int64  `json:"cache_creation,omitempty"`
	CacheRead     int64  `json:"cache_read,omitempty"`
	Total         int64  `json:"total,omitempty"`
	UsageID       string `json:"usage_id,omitempty"`
	// Copy says the usage repeats one recorded elsewhere ("usage_copy":
	// true; a subagent's, copied into its parent's Claude Code transcript):
	// of the runs of its UsageID, it counts only when no original does.
	Copy bool `json:"copy,omitempty"`
	// BadUsage says the event gave a count that is not a whole number
	// from 0 to MaxRunTokens (a negative, a fraction, a string, 1e30):
	// such a count is read as not given, and the run is counted among
	// the runs with bad usage.
	BadUsage bool `json:"bad_usage,omitempty"`

	// Which counts the event gave itself, where the others are 0 and
	// Total may be a sum: set by Extract and ParseRun from a payload, and
	// not kept with the facts in the index (tape info shows a count the
	// event did not give as null).
	GivenIn, GivenOut, GivenTotal bool `json:"-"`
}

// ParseRun reads a run event's payload as Extract reads it, for one who
// has the payload and not its facts (tape info); nil when the payload is
// not a run event.
func ParseRun(payload json.RawMessage) *Run {
	var p map[string]any
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	if name, _ := p["name"].(string); name != "run" {
		return nil
	}
	return extractRun(p["data"])
}

// IsZero reports whether f feeds no view.
func (f Facts) IsZero() bool {
	return f.Role == "" && !f.Synthetic && f.CWD == "" && f.Branch == "" && f.Title == "" && f.Prompt == "" && !f.PromptCut &&
		len(f.Calls) == 0 && len(f.Results) == 0 && f.Run == nil
}

// Encode is f as the compact JSON the index stores; "" for zero facts.
func (f Facts) Encode() string {
	if f.IsZero() {
		return ""
	}
	b, _ := json.Marshal(f) // strings, bools and numbers: it cannot fail
	return string(b)
}

// DecodeFacts reads what Encode wrote; "" is zero facts.
func DecodeFacts(s string) (Facts, error) {
	var f Facts
	if s == "" {
		return f, nil
	}
	err := json.Unmarshal([]byte(s), &f)
	return f, err
}

// Extract takes the facts of an entry of the given kind from its decoded
// payload and its raw meta.
func Extract(kind string, payload map[string]any, meta json.RawMessage) Facts {
	m := metaFacts(meta)
	f := Facts{CWD: m.cwd, Branch: m.branch}
	switch kind {
	case "message":
		f.Role, _ = payload["role"].(string)
		f.Synthetic = m.synthetic
		if f.IsPrompt() {
			f.Prompt, f.PromptCut = promptText(payload)
		}
	case "tool_call":
		// Only objects are calls, as for Calls and the context: a result
		// answers the call at its position among them.
		calls, _ := payload["calls"].([]any)
		for _, c := range calls {
			if m, ok := c.(map[string]any); ok {
				f.Calls = append(f.Calls, callRef(m))
			}
		}
	case "tool_result":
		results, _ := payload["results"].([]any)
		for _, r := range results {
			f.Results = append(f.Results, resultRef(r))
		}
	case "event":
		switch name, _ := payload["name"].(string); name {
		case "run":
			f.Run = extractRun(payload["data"])
		case "title":
			data, _ := payload["data"].(map[string]any)
			f.Title, _ = data["title"].(string)
		}
	}
	return f
}

// callRef reads a decoded call's id and name as ParseCall reads them.
func callRef(m map[string]any) CallRef {
	var r CallRef
	r.ID, _ = m["id"].(string)
	for _, k := range []string{"function", "custom"} {
		if fn, ok := m[k].(map[string]any); ok && r.Name == "" {
			r.Name, _ = fn["name"].(string)
		}
	}
	if r.Name == "" {
		r.Name, _ = m["name"].(string)
	}
	return r
}

// resultFailed reports whether a tool result says the call failed: an
// object with "is_error": true, a non-empty "error", or a "status" of
// error or failed; or a string that starts with "error:" (any case), as
// tools that return text report a failure.
func resultFailed(r any) bool {
	switch r := r.(type) {
	case string:
		return isErrorText(r)
	case map[string]any:
		if b, _ := r["is_error"].(bool); b {
			return true
		}
		switch e := r["error"].(type) {
		case string:
			if e != "" {
				return true
			}
		case map[string]any, []any, bool:
			if e != false {
				return true
			}
		}
		status, _ := r["status"].(string)
		status = strings.ToLower(status)
		return status == "error" || status == "failed"
	}
	return false
}

// MaxRunTokens bounds a token count that a run event may report: 2^40,
// about 1.1 trillion. A request's counts are at most a few million (the
// largest context windows), so a count above it is a bug, a line written
// by hand, or one written to break the sums, never usage. Below it, a
// count decoded from JSON (a float64) is an integer exactly, and a run's
// four counts sum to under 2^42, so that 2^21 runs at the bound still sum
// within an int64 (sums saturate past it: table.go, query.go).
const MaxRunTokens = 1 << 40

// tokenCount reads one count of a run's usage: ok when it is a whole
// number from 0 to MaxRunTokens; bad when it is there (not null) and not
// such a number.
func tokenCount(v any) (n int64, ok, bad bool) {
	switch v := v.(type) {
	case nil:
		return 0, false, false
	case float64:
		if v >= 0 && v <= MaxRunTokens && v == math.Trunc(v) {
			return int64(v), true, false
		}
	}
	return 0, false, true
}

func extractRun(data any) *Run {
	d, _ := data.(map[string]any)
	r := &Run{}
	r.Status, _ = d["status"].(string)
	r.Model, _ = d["model"].(string)
	r.UsageID, _ = d["usage_id"].(string)
	r.Copy = d["usage_copy"] == true
	usage, ok := d["usage"].(map[string]any)
	if !ok {
		r.BadUsage = d["usage"] != nil // a usage that is not an object
		return r
	}
	// The first spelling that holds a good count; a bad one is read as
	// not given, and marks the run.
	num := func(keys ...string) (int64, bool) {
		for _, k := range keys {
			n, ok, bad := tokenCount(usage[k])
			r.BadUsage = r.BadUsage || bad
			if ok {
				return n, true
			}
		}
		return 0, false
	}
	in, okIn := num("input_tokens", "prompt_tokens")
	out, okOut := num("output_tokens", "completion_tokens")
	cc, okCC := num("cache_creation_input_tokens")
	cr, okCR := num("cache_read_input_tokens")
	total, okTotal := num("total_tokens")
	if !okTotal {
		total = in + out + cc + cr
	}
	r.Usage = okIn || okOut || okTotal || okCC || okCR
	r.In, r.Out, r.CacheCreation, r.CacheRead, r.Total = in, out, cc, cr, total
	r.GivenIn, r.GivenOut, r.GivenTotal = okIn, okOut, okTotal
	return r
}

// metaFact is what the views read of an entry's meta.
type metaFact struct {
	cwd, branch string
	synthetic   bool
}

// The keys agents name a working directory and a git branch under, first
// found first.
var (
	cwdKeys    = []string{"cwd", "workdir", "working_directory", "workspace"}
	branchKeys = []string{"git_branch", "gitBranch", "branch"}
)

// metaKeys are the keys metaFacts reads, each with the quote that closes
// it. A meta that holds none is not decoded: most metas, among them an
// imported entry's, which names its transcript's path, whose words
// ("work") are no keys. BenchmarkMetaFacts: 0.16 µs an entry, where
// looking for the bare words decoded it, 2.1 µs (and with both quotes,
// 0.58 µs: a meta has many opening quotes to try).
var metaKeys = func() [][]byte {
	var q [][]byte
	for _, k := range append(append([]string{"synthetic"}, cwdKeys...), branchKeys...) {
		q = append(q, []byte(k+`"`))
	}
	return q
}()

// metaFacts reads the working directory an entry's meta names, its git
// branch, and whether it marks a message as synthetic. (A key written with
// escapes, as no agent writes one, is not read.)
func metaFacts(meta json.RawMessage) metaFact {
	if !slices.ContainsFunc(metaKeys, func(k []byte) bool { return bytes.Contains(meta, k) }) {
		return metaFact{}
	}
	return decodeMetaFacts(meta)
}

// decodeMetaFacts is metaFacts without the look for its keys first.
func decodeMetaFacts(meta json.RawMessage) metaFact {
	var m map[string]any
	if json.Unmarshal(meta, &m) != nil {
		return metaFact{}
	}
	first := func(keys []string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	f := metaFact{cwd: first(cwdKeys), branch: first(branchKeys)}
	f.synthetic, _ = m["synthetic"].(bool)
	return f
}

// PromptBytes bounds the text of a prompt the facts keep: most first
// prompts fit, and a longer one is read from its file when a list shows it.
const PromptBytes = 1024

// IsPrompt reports whether the facts are those of a message a person
// wrote: a user message that meta does not mark as synthetic. The role
// compares as SQLite's LIKE did when the sessions list was a query (ASCII
// letters in any case), so that the titles stay what they were.
func (f Facts) IsPrompt() bool { return asciiEqualFold(f.Role, "user") && !f.Synthetic }

// promptText is a prompt's text as MessageText reads it, cut to at most
// PromptBytes at a rune boundary, and whether it was cut.
func promptText(payload map[string]any) (string, bool) {
	text := messageText(payload)
	if len(text) <= PromptBytes {
		return text, false
	}
	cut := PromptBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut], true
}

// asciiEqualFold is strings.EqualFold for ASCII letters only, as SQLite's
// LIKE folds case: "ſ" is not "s" to it.
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range len(s) {
		a, b := s[i], t[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
