package main

import (
	"fmt"
	"os"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/read"
)

// loadPrices is the price table a command prices usage with: the user's
// stored list or the snapshot, and their override file (pricing.Load). A
// file there that cannot be read is said on stderr, and the snapshot
// prices instead: the tokens are still worth showing.
func loadPrices(env *Env) *pricing.Table {
	dir, err := pricing.Dir(os.Getenv)
	if err == nil {
		var l pricing.Loaded
		if l, err = pricing.Load(dir); err == nil {
			return l.Table
		}
	}
	fmt.Fprintf(env.Stderr, "tape: warning: %v; costs are of the prices tape ships (%s)\n", err, pricing.Snapshot().Date)
	return pricing.Snapshot()
}

// warnUnpriced names on stderr the models whose runs have no cost.
func warnUnpriced(env *Env, models []string) {
	if w := read.UnpricedWarning(models); w != "" {
		fmt.Fprintf(env.Stderr, "tape: warning: %s\n", w)
	}
}

// dollars is a cost as a person reads it (wording.Dollars), "-" for none
// priced.
func dollars(usd float64, priced bool) string {
	if !priced {
		return "-"
	}
	return wording.Dollars(usd)
}
