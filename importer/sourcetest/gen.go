package sourcetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// Gen makes JSON values of random shapes, for a source's transcript
// generator (CheckKeepsText). Every string it makes that is not
// structure is unique ("t17;" and more), so that finding it in the
// entries says it was kept, wherever it went.
type Gen struct {
	r *rand.Rand
	n int
}

// NewGen is the Gen of seed: the same seed makes the same values.
func NewGen(seed uint64) *Gen { return &Gen{r: rand.New(rand.NewPCG(seed, 29))} }

// odd are what a string may hold after its token: escapes, scripts, a
// line separator, white space, markup.
var odd = []string{"", "", " plain words", "\nsecond line", `"quoted" \ back`, " 修复 エラー", "\u2028", "\t", "<b>&amp;</b>"}

// IntN is a random number in [0, n).
func (g *Gen) IntN(n int) int { return g.r.IntN(n) }

// Str is a unique string.
func (g *Gen) Str() string {
	g.n++
	return fmt.Sprintf("t%d;%s", g.n, odd[g.r.IntN(len(odd))])
}

// Key is a unique member name, for members a mapping does not know.
func (g *Gen) Key() string {
	g.n++
	return fmt.Sprintf("k%d", g.n)
}

// Pick is one of options.
func (g *Gen) Pick(options ...string) string { return options[g.r.IntN(len(options))] }

// AnyOf is one of options.
func (g *Gen) AnyOf(options ...any) any { return options[g.r.IntN(len(options))] }

// Value is any JSON value, at most depth deep: mostly a string.
func (g *Gen) Value(depth int) any {
	n := 9
	if depth <= 0 {
		n = 6
	}
	switch g.r.IntN(n) {
	case 0, 1, 2:
		return g.Str()
	case 3:
		return g.r.IntN(1000) - 500
	case 4:
		return g.r.IntN(2) == 0
	case 5:
		return nil
	case 6, 7:
		var a []any
		for range g.r.IntN(4) {
			a = append(a, g.Value(depth-1))
		}
		return a
	default:
		m := map[string]any{}
		for range g.r.IntN(4) {
			m[g.Key()] = g.Value(depth - 1)
		}
		return m
	}
}

// Text is where a converter expects a string: mostly one, sometimes any
// value.
func (g *Gen) Text() any {
	if g.r.IntN(4) == 0 {
		return g.Value(2)
	}
	return g.Str()
}

// List is where a converter expects a list of items made by item: the
// list, a string, or any value.
func (g *Gen) List(item func() any) any {
	switch g.r.IntN(6) {
	case 0:
		return g.Str()
	case 1:
		return g.Value(2)
	}
	var a []any
	for range g.r.IntN(4) {
		if g.r.IntN(6) == 0 {
			a = append(a, g.Value(2))
		} else {
			a = append(a, item())
		}
	}
	return a
}

// Date is where a converter expects a timestamp: mostly an RFC 3339
// date, sometimes another form a tape reads, null, or any value.
func (g *Gen) Date() any {
	switch g.r.IntN(12) {
	case 0:
		return g.Value(1)
	case 1:
		return nil
	case 2:
		return "2025-11-03 14:05:00" // a form log.ParseTime reads too
	}
	return fmt.Sprintf("2025-11-03T14:%02d:%02dZ", g.r.IntN(60), g.r.IntN(60))
}

// JSONLine is v as one line of JSON.
func JSONLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
