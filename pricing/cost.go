package pricing

// Tokens are the four counts a run reports that are priced apart. Input
// is the input not read from a cache (every source's importer writes it
// so: docs/IMPORT.md).
type Tokens struct {
	Input, Output, CacheWrite, CacheRead int64
}

// Thresholds are the context sizes above which a model may charge other
// rates, as LiteLLM's fields name them (input_cost_per_token_above_200k_tokens,
// ..._above_272k_tokens). A run's tokens of one kind above a threshold
// are charged that tier's rate (Sums.Over).
const (
	Threshold200k = 200_000
	Threshold272k = 272_000
)

var thresholds = [tiers - 1]int64{Threshold200k, Threshold272k}

// tiers are the base rates and one tier above each threshold.
const tiers = 3

// Sums are token counts summed over runs of one model: the counts
// themselves, and for each threshold the counts above it, summed run by
// run (max(count - threshold, 0)). From them the cost of the runs is
// exact though the rates change above a threshold: a sum of counts alone
// cannot say how much of it was above.
type Sums struct {
	Tokens
	Over [tiers - 1]Tokens
}

// SumsOf are the sums of one run's counts.
func SumsOf(t Tokens) Sums {
	s := Sums{Tokens: t}
	for i, th := range thresholds {
		s.Over[i] = Tokens{over(t.Input, th), over(t.Output, th), over(t.CacheWrite, th), over(t.CacheRead, th)}
	}
	return s
}

func over(n, threshold int64) int64 { return max(n-threshold, 0) }

// Add adds o to s.
func (s *Sums) Add(o Sums) {
	s.Tokens = s.Tokens.plus(o.Tokens)
	for i := range s.Over {
		s.Over[i] = s.Over[i].plus(o.Over[i])
	}
}

func (t Tokens) plus(o Tokens) Tokens {
	return Tokens{t.Input + o.Input, t.Output + o.Output, t.CacheWrite + o.CacheWrite, t.CacheRead + o.CacheRead}
}

// Rates are USD per token of each kind.
type Rates struct {
	Input, Output, CacheWrite, CacheRead float64
}

func (r Rates) times(t Tokens) float64 {
	return float64(t.Input)*r.Input + float64(t.Output)*r.Output + float64(t.CacheWrite)*r.CacheWrite + float64(t.CacheRead)*r.CacheRead
}

func (r Rates) minus(o Rates) Rates {
	return Rates{r.Input - o.Input, r.Output - o.Output, r.CacheWrite - o.CacheWrite, r.CacheRead - o.CacheRead}
}

// Differences are the rates Cost multiplies: the base tier's input,
// output, cache write and cache read, then each tier's less the one
// below, in that order (for a sum done elsewhere, as in SQL).
func (p Price) Differences() []float64 {
	out := make([]float64, 0, 4*tiers)
	for i, r := range p.Tiers {
		if i > 0 {
			r = r.minus(p.Tiers[i-1])
		}
		out = append(out, r.Input, r.Output, r.CacheWrite, r.CacheRead)
	}
	return out
}

// Cost is what the runs of sums cost at p: every token at the base rate,
// and each token above a threshold at the difference between its tier's
// rate and the one below. A tier the table does not name for a kind has
// the rate below it (Price.Tiers), so it adds nothing.
func (p Price) Cost(s Sums) float64 {
	cost := p.Tiers[0].times(s.Tokens)
	for i := range s.Over {
		cost += p.Tiers[i+1].minus(p.Tiers[i]).times(s.Over[i])
	}
	return cost
}
