package pricing

import (
	"fmt"
	"testing"
)

// A Pricer prices as its table's Lookup and Cost do, names the models the
// table lacks once, and of no table prices and names nothing.
func TestPricer(t *testing.T) {
	table, err := Parse([]byte(`{"m": {"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05}}`))
	if err != nil {
		t.Fatal(err)
	}
	pr := NewPricer(table)
	s := SumsOf(Tokens{Input: 1000, Output: 100})
	for range 2 {
		if cost, ok := pr.Cost("m", s); !ok || fmt.Sprintf("%.6f", cost) != "0.003000" {
			t.Errorf("Cost(m) = %v, %v; want 0.003", cost, ok)
		}
		if _, ok := pr.Cost("other", s); ok {
			t.Error("Cost(other) priced a model the table lacks")
		}
	}
	if got := fmt.Sprint(pr.Unpriced()); got != "[other]" {
		t.Errorf("Unpriced = %s, want [other]", got)
	}
	none := NewPricer(nil)
	if _, ok := none.Cost("m", s); ok || none.Priced() || len(none.Unpriced()) != 0 {
		t.Error("a Pricer of no table priced or named a model")
	}
}
