package views

import (
	"encoding/json"
	"strings"
)

// Facts is what the views need of one entry, taken from that entry alone:
// the projector extracts them while it parses the entry for search, and
// stores them with it, so that a view is computed from the index without
// reading a file again. The zero Facts means the entry feeds no view.
type Facts struct {
	Role    string      `json:"role,omitempty"`    // message: its role
	CWD     string      `json:"cwd,omitempty"`     // meta's working directory, when it names one
	Calls   []CallRef   `json:"calls,omitempty"`   // tool_call: its calls, in order
	Results []ResultRef `json:"results,omitempty"` // tool_result: for each result, in order, its call id and whether it says it failed
	Run     *Run        `json:"run,omitempty"`     // a run event
}

// CallRef is one call of a tool_call entry.
type CallRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Run is a run event as Bub writes it: {"name": "run", "data": {"status",
// "model", "usage": {...}}}. Usage is in the OpenAI spelling
// (prompt_tokens, completion_tokens) or the Anthropic one (input_tokens,
// output_tokens); a missing total_tokens is their sum.
type Run struct {
	Status string `json:"status,omitempty"`
	Model  string `json:"model,omitempty"`
	Usage  bool   `json:"usage,omitempty"` // the event reported usage
	In     int64  `json:"in,omitempty"`
	Out    int64  `json:"out,omitempty"`
	Total  int64  `json:"total,omitempty"`
}

// IsZero reports whether f feeds no view.
func (f Facts) IsZero() bool {
	return f.Role == "" && f.CWD == "" && len(f.Calls) == 0 && len(f.Results) == 0 && f.Run == nil
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
	f := Facts{CWD: metaCWD(meta)}
	switch kind {
	case "message":
		f.Role, _ = payload["role"].(string)
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
		if name, _ := payload["name"].(string); name == "run" {
			f.Run = extractRun(payload["data"])
		}
	}
	return f
}

// callRef reads a call in the OpenAI shape ({"id", "function": {"name"}})
// or a flat one ({"id", "name"}).
func callRef(m map[string]any) CallRef {
	var r CallRef
	r.ID, _ = m["id"].(string)
	if fn, ok := m["function"].(map[string]any); ok {
		r.Name, _ = fn["name"].(string)
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

func extractRun(data any) *Run {
	d, _ := data.(map[string]any)
	r := &Run{}
	r.Status, _ = d["status"].(string)
	r.Model, _ = d["model"].(string)
	usage, ok := d["usage"].(map[string]any)
	if !ok {
		return r
	}
	num := func(keys ...string) (int64, bool) {
		for _, k := range keys {
			if v, ok := usage[k].(float64); ok {
				return int64(v), true
			}
		}
		return 0, false
	}
	in, okIn := num("input_tokens", "prompt_tokens")
	out, okOut := num("output_tokens", "completion_tokens")
	total, okTotal := num("total_tokens")
	if !okTotal {
		total = in + out
	}
	r.Usage = okIn || okOut || okTotal
	r.In, r.Out, r.Total = in, out, total
	return r
}

// metaCWD is the working directory an entry's meta names, under any of the
// keys agents use for it.
func metaCWD(meta json.RawMessage) string {
	if !strings.Contains(string(meta), "cwd") && !strings.Contains(string(meta), "work") {
		return "" // most metas: no key that could name one, and no decoding
	}
	var m map[string]any
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	for _, k := range []string{"cwd", "workdir", "working_directory", "workspace"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
