package pricing

import (
	"encoding/json"
	"slices"
	"strings"
)

// Open reads a price list as Parse does, but a list in tape's stored form
// (as Trim writes it) without parsing its models: each is parsed when it
// is looked up. Parsing the whole snapshot takes 8 to 10 ms, most of a
// `tape statusline`; opening it, well under one.
func Open(data []byte) (*Table, error) {
	text := string(data)
	head, rest, ok := strings.Cut(text, "\n")
	if !ok || !strings.HasSuffix(head, `,"models":{`) || !strings.HasSuffix(rest, "\n}}\n") {
		return Parse(data)
	}
	var meta stored
	if json.Unmarshal([]byte(strings.TrimSuffix(head, `,"models":{`)+"}"), &meta) != nil {
		return Parse(data)
	}
	lines := strings.Split(strings.TrimSuffix(rest, "\n}}\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], ",")
	}
	if !slices.IsSortedFunc(lines, func(a, b string) int { return strings.Compare(lineKey(a), lineKey(b)) }) {
		return Parse(data)
	}
	return &Table{Source: meta.Source, Date: meta.Date, lines: lines}, nil
}

// lineKey is the JSON-encoded name a stored line begins with.
func lineKey(line string) string {
	if i := strings.Index(line, `":{`); i >= 0 {
		return line[:i+1]
	}
	return line
}

// find is the stored line of the model named, parsed.
func (t *Table) find(name string) (Price, bool) {
	key, err := json.Marshal(name)
	if err != nil || len(t.lines) == 0 {
		return Price{}, false
	}
	i, found := slices.BinarySearchFunc(t.lines, string(key), func(line, key string) int { return strings.Compare(lineKey(line), key) })
	if !found {
		return Price{}, false
	}
	_, p, ok := parseLine(t.lines[i])
	return p, ok
}

// parseLine reads one stored line; ok is false for one that is not a
// model priced at sane rates.
func parseLine(line string) (string, Price, bool) {
	var m map[string]*entry
	if json.Unmarshal([]byte("{"+line+"}"), &m) != nil || len(m) != 1 {
		return "", Price{}, false
	}
	for name, e := range m {
		if e == nil || !e.priced() {
			return "", Price{}, false
		}
		p := e.price(name)
		return name, p, p.check() == nil
	}
	return "", Price{}, false
}
