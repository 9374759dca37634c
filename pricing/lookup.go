package pricing

import "strings"

// providerPrefixes are what LiteLLM puts before the names of models it
// also lists under a provider, tried after the name as written: an agent
// that writes "claude-sonnet-4-5" finds "anthropic/claude-sonnet-4-5" if
// only that is listed.
var providerPrefixes = [...]string{"anthropic/", "openai/", "azure/", "openrouter/openai/", "gemini/", "vertex_ai/", "xai/", "deepseek/", "moonshot/", "zai/"}

// Lookup is the price of the model an agent named: the table's entry of
// that name, else of the name without case, else of the name after its
// provider prefix ("anthropic/claude-sonnet-4-5", "openrouter/x/y"),
// else of the name under a provider prefix LiteLLM uses. ok is false for
// a model the table does not price, and for no model at all ("" or
// Claude Code's "<synthetic>"): such runs have no cost.
func (t *Table) Lookup(model string) (p Price, ok bool) {
	if model == "" || model == "<synthetic>" {
		return Price{}, false
	}
	for _, name := range candidates(model) {
		if p, ok := t.models[name]; ok {
			return p, true
		}
		if p, ok := t.find(name); ok {
			return p, true
		}
	}
	return Price{}, false
}

// candidates are the names Lookup tries for model, in order.
func candidates(model string) []string {
	names := []string{model, lower(model)}
	if i := strings.LastIndexByte(model, '/'); i >= 0 && i < len(model)-1 {
		names = append(names, model[i+1:], lower(model[i+1:]))
	}
	for _, prefix := range providerPrefixes {
		names = append(names, prefix+lower(model))
	}
	return names
}
