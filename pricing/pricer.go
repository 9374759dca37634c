package pricing

import (
	"maps"
	"slices"
)

// Pricer prices sums of tokens by model with one table, looking each model
// up once (a name the table lacks is a scan of it), and notes the models it
// has no price for: what every sum of usage that is priced (the local
// index's, the team server's) needs.
type Pricer struct {
	table   *Table
	found   map[string]pricerLookup
	missing map[string]bool
}

type pricerLookup struct {
	price Price
	ok    bool
}

// NewPricer prices with t; a nil t prices nothing, and names nothing.
func NewPricer(t *Table) *Pricer {
	return &Pricer{table: t, found: map[string]pricerLookup{}, missing: map[string]bool{}}
}

// Cost is what s of model cost, and whether the table prices model; ok is
// false for a Pricer of no table.
func (p *Pricer) Cost(model string, s Sums) (cost float64, ok bool) {
	if p.table == nil {
		return 0, false
	}
	f, seen := p.found[model]
	if !seen {
		f.price, f.ok = p.table.Lookup(model)
		p.found[model] = f
	}
	if !f.ok {
		p.missing[model] = true
		return 0, false
	}
	return f.price.Cost(s), true
}

// Priced says whether p has a table to price with.
func (p *Pricer) Priced() bool { return p.table != nil }

// Unpriced are the models Cost found no price for, sorted.
func (p *Pricer) Unpriced() []string { return slices.Sorted(maps.Keys(p.missing)) }
