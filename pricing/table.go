package pricing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Price is one model's rates.
type Price struct {
	Model    string // the name the table gives it
	Provider string // LiteLLM's litellm_provider
	// Tiers are the base rates, then the rates above each of thresholds,
	// every kind filled: one the table does not name has the rate of the
	// tier below.
	Tiers [tiers]Rates
}

// Table is a price list: models by name, and where it came from.
type Table struct {
	Source string // where the list was read from
	Date   string // the day it was taken, YYYY-MM-DD
	models map[string]Price
	// lines are the models of a table in the stored form that were not
	// parsed (Open): `"name":{...}` a line, sorted, found by a binary
	// search and parsed when looked up.
	lines []string
}

// Len is the number of models the table prices.
func (t *Table) Len() int { return len(t.all()) }

// Models are the names of the models the table prices, sorted.
func (t *Table) Models() []string { return slices.Sorted(maps.Keys(t.all())) }

// all are every model of the table, its lines parsed.
func (t *Table) all() map[string]Price {
	if len(t.lines) == 0 {
		return t.models
	}
	all := maps.Clone(t.models)
	if all == nil {
		all = map[string]Price{}
	}
	for _, line := range t.lines {
		if name, p, ok := parseLine(line); ok {
			if _, over := t.models[name]; !over {
				all[name] = p
			}
		}
	}
	return all
}

// entry is a model of LiteLLM's list, in the fields tape reads.
type entry struct {
	Provider string `json:"litellm_provider,omitempty"`

	Input      *float64 `json:"input_cost_per_token,omitempty"`
	Output     *float64 `json:"output_cost_per_token,omitempty"`
	CacheWrite *float64 `json:"cache_creation_input_token_cost,omitempty"`
	CacheRead  *float64 `json:"cache_read_input_token_cost,omitempty"`

	Input200k      *float64 `json:"input_cost_per_token_above_200k_tokens,omitempty"`
	Output200k     *float64 `json:"output_cost_per_token_above_200k_tokens,omitempty"`
	CacheWrite200k *float64 `json:"cache_creation_input_token_cost_above_200k_tokens,omitempty"`
	CacheRead200k  *float64 `json:"cache_read_input_token_cost_above_200k_tokens,omitempty"`

	Input272k      *float64 `json:"input_cost_per_token_above_272k_tokens,omitempty"`
	Output272k     *float64 `json:"output_cost_per_token_above_272k_tokens,omitempty"`
	CacheWrite272k *float64 `json:"cache_creation_input_token_cost_above_272k_tokens,omitempty"`
	CacheRead272k  *float64 `json:"cache_read_input_token_cost_above_272k_tokens,omitempty"`
}

// priced reports whether the entry prices tokens at all (LiteLLM's list
// also holds image, audio and search models).
func (e *entry) priced() bool { return e.Input != nil || e.Output != nil }

// price is the entry's rates, each tier filled from the one below.
func (e *entry) price(model string) Price {
	p := Price{Model: model, Provider: e.Provider}
	p.Tiers[0] = fill(Rates{}, e.Input, e.Output, e.CacheWrite, e.CacheRead)
	p.Tiers[1] = fill(p.Tiers[0], e.Input200k, e.Output200k, e.CacheWrite200k, e.CacheRead200k)
	p.Tiers[2] = fill(p.Tiers[1], e.Input272k, e.Output272k, e.CacheWrite272k, e.CacheRead272k)
	return p
}

func fill(below Rates, in, out, cw, cr *float64) Rates {
	r := below
	for _, f := range []struct {
		to   *float64
		from *float64
	}{{&r.Input, in}, {&r.Output, out}, {&r.CacheWrite, cw}, {&r.CacheRead, cr}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	return r
}

// stored is the form tape keeps a table in: LiteLLM's entries, trimmed
// to the fields above, with where and when they were taken.
type stored struct {
	Source string            `json:"source"`
	Date   string            `json:"date"`
	Models map[string]*entry `json:"models"`
}

// Parse reads a price list: tape's stored form ({"source", "date",
// "models"}), or LiteLLM's model_prices_and_context_window.json as it is
// published (a map of model names to entries, whose entries without a
// token price are left out). A rate that is not a number from 0 to 1 USD
// a token is an error naming the model: a list that says so is not one.
func Parse(data []byte) (*Table, error) {
	s, err := readStored(data)
	if err != nil {
		return nil, err
	}
	return s.table()
}

// table is the stored list's models as a Table, their rates checked.
func (s stored) table() (*Table, error) {
	t := &Table{Source: s.Source, Date: s.Date, models: make(map[string]Price, len(s.Models))}
	for name, e := range s.Models {
		p := e.price(name)
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("model %q: %w", name, err)
		}
		t.models[name] = p
	}
	return t, nil
}

// readStored reads either form into the stored one, keeping the models
// that price tokens.
func readStored(data []byte) (stored, error) {
	var s stored
	if err := json.Unmarshal(data, &s); err != nil || s.Models == nil {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return s, fmt.Errorf("not a price list (JSON of LiteLLM's model_prices_and_context_window.json, or tape's): %w", err)
		}
		s = stored{Models: map[string]*entry{}}
		for name, v := range raw {
			var e entry
			if json.Unmarshal(v, &e) == nil { // sample_spec and the like are not models
				s.Models[name] = &e
			}
		}
	}
	maps.DeleteFunc(s.Models, func(name string, e *entry) bool { return name == "" || e == nil || !e.priced() })
	if len(s.Models) == 0 {
		return s, fmt.Errorf("the price list prices no model (no entry has input_cost_per_token or output_cost_per_token)")
	}
	return s, nil
}

// check refuses rates that cannot be per-token prices in USD.
func (p Price) check() error {
	for _, r := range p.Tiers {
		for _, v := range []float64{r.Input, r.Output, r.CacheWrite, r.CacheRead} {
			if !(v >= 0 && v <= 1) { // NaN too
				return fmt.Errorf("a rate of %v USD a token", v)
			}
		}
	}
	return nil
}

// Trim is the price list in data (either form Parse reads) in tape's
// stored form, with source and date: the fields tape reads of the models
// that price tokens, one model a line, sorted, so that two snapshots
// diff by model.
func Trim(data []byte, source, date string) ([]byte, error) {
	s, err := readStored(data)
	if err != nil {
		return nil, err
	}
	if _, err := s.table(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	head, _ := json.Marshal(map[string]string{"date": date, "source": source})
	b.Write(head[:len(head)-1])
	b.WriteString(`,"models":{`)
	for i, name := range slices.Sorted(maps.Keys(s.Models)) {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(name)
		v, _ := json.Marshal(s.Models[name])
		b.WriteString("\n" + string(k) + ":" + string(v))
	}
	b.WriteString("\n}}\n")
	return b.Bytes(), nil
}

// Merge is t with the models of o added, and those both price taken from
// o: an override file's prices win over the list's.
func (t *Table) Merge(o *Table) *Table {
	m := &Table{Source: t.Source, Date: t.Date, models: maps.Clone(t.models), lines: t.lines}
	if m.models == nil {
		m.models = map[string]Price{}
	}
	maps.Copy(m.models, o.all())
	return m
}
