package pricing

import (
	"encoding/json"
	"strings"
)

// Lookup is the price of the model an agent named, found as ccusage finds
// it where that is not a guess (decision 0104):
//
//  1. the table's entry of that name, or of the name in lower case with
//     '.' and '@' as '-' ("claude-haiku-4.5" is "claude-haiku-4-5");
//  2. of the name after its provider prefix ("anthropic/claude-opus-4-5");
//  3. an entry that is the name under a provider prefix
//     ("dashscope/qwen3-coder-plus" for "qwen3-coder-plus"), the longest;
//  4. the longest entry the name holds whole, at a boundary and not
//     followed by more of a version ("claude-sonnet-4-5-20250929-thinking"
//     holds "claude-sonnet-4-5-20250929"; "claude-sonnet-4-6" does not
//     hold "claude-sonnet-4").
//
// Unlike ccusage, an entry that merely holds the name ("sonnet" in
// "claude-sonnet-4-5") is no match: that would price a guess. ok is false
// for a model the table does not price, and for no model at all ("" or
// Claude Code's "<synthetic>"): such runs have no cost.
func (t *Table) Lookup(model string) (p Price, ok bool) {
	if model == "" || model == "<synthetic>" {
		return Price{}, false
	}
	norm := normalize(model)
	bare := norm[strings.LastIndexByte(norm, '/')+1:]
	for _, name := range []string{model, strings.ToLower(model), norm, bare} {
		if p, ok := t.exact(name); ok {
			return p, true
		}
	}
	if name := t.nearest(norm, bare); name != "" {
		return t.exact(name)
	}
	return Price{}, false
}

// normalize is a model name in lower case, '.' and '@' as '-'.
func normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '@' {
			return '-'
		}
		return r
	}, strings.ToLower(s))
}

func (t *Table) exact(name string) (Price, bool) {
	if p, ok := t.models[name]; ok {
		return p, true
	}
	return t.find(name)
}

// nearest is the table's name that rules 3 and 4 of Lookup choose for a
// normalized name, or "".
func (t *Table) nearest(norm, bare string) string {
	best, bestRule := "", 0
	t.eachName(func(name string) {
		key := normalize(name)
		rule := 0
		switch {
		case strings.HasSuffix(key, "/"+bare):
			rule = 2
		case holds(norm, key):
			rule = 1
		}
		if rule > bestRule || rule == bestRule && rule > 0 && (len(name) > len(best) || len(name) == len(best) && name < best) {
			best, bestRule = name, rule
		}
	})
	return best
}

// holds reports whether name holds key whole: at its start or after a
// character that is no letter or digit, and at its end or before one,
// where a key that ends in a digit is not followed by '-' or '.' and a
// digit, unless that is a date (-20250929): "claude-sonnet-4-6" does not
// hold "claude-sonnet-4".
func holds(name, key string) bool {
	for from := 0; ; {
		i := strings.Index(name[from:], key)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(key)
		if (i == 0 || !alnum(name[i-1])) && (end == len(name) || !alnum(name[end]) && !moreVersion(key, name[end:])) {
			return true
		}
		from = i + 1
	}
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// moreVersion reports whether rest, what follows a key ending in a digit,
// goes on with more of its version.
func moreVersion(key, rest string) bool {
	if key == "" || key[len(key)-1] < '0' || key[len(key)-1] > '9' || len(rest) < 2 || rest[0] != '-' || rest[1] < '0' || rest[1] > '9' {
		return false
	}
	digits := 0
	for digits < len(rest)-1 && rest[1+digits] >= '0' && rest[1+digits] <= '9' {
		digits++
	}
	return digits != 8 // a date
}

// eachName calls fn with every model name of the table.
func (t *Table) eachName(fn func(string)) {
	for name := range t.models {
		fn(name)
	}
	for _, line := range t.lines {
		key := lineKey(line)
		name := strings.Trim(key, `"`)
		if strings.ContainsRune(key, '\\') && json.Unmarshal([]byte(key), &name) != nil {
			continue
		}
		{
			if _, over := t.models[name]; !over {
				fn(name)
			}
		}
	}
}
