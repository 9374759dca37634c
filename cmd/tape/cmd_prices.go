package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/pricing"
)

// litellmURL is where LiteLLM publishes its model price list.
const litellmURL = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"

// PricesCmd is `tape prices`: the price table usage is priced with.
type PricesCmd struct {
	Show   PricesShowCmd   `cmd:"" default:"withargs" help:"Show where prices come from, or one model's (e.g. tape prices claude-sonnet-4-5)."`
	Update PricesUpdateCmd `cmd:"" help:"Store a newer price list (LiteLLM's, from a FILE or URL) in the user's config folder."`
}

// Help is the command's long help.
func (c *PricesCmd) Help() string {
	return `tape prices costs from tokens, by model, with LiteLLM's model price list
(the one ccusage and agentsview price by): a snapshot ships inside tape, and
'tape prices update' stores a newer one. Prices of your own (private or
negotiated) go in prices-override.json beside it, a map of model names to
LiteLLM entries, e.g. {"my-model": {"input_cost_per_token": 3e-06,
"output_cost_per_token": 1.5e-05}}; they win. The folder is $TAPE_CONFIG_DIR,
else tape/ in the user's config folder (~/.config/tape on Linux). A model
with no price has no cost: tape usage names it on stderr.

Examples:
  tape prices
  tape prices claude-sonnet-4-5 --json
  tape prices --all
  tape prices update
  tape prices update ./model_prices_and_context_window.json`
}

// PricesShowCmd is `tape prices [MODEL]`.
type PricesShowCmd struct {
	Model string `arg:"" optional:"" help:"A model as an agent names it: its price, and the entry it was found as."`
	All   bool   `help:"List every model priced, one a line: input, output, cache write and cache read, USD per million tokens."`
	JSON  bool   `help:"JSON: where the prices come from (source, date, models, stored, override); with MODEL, its entry (model, provider, input, output, cache_write, cache_read in USD per token, and tiers above 200k and 272k tokens)."`
}

func (c *PricesShowCmd) Run(env *Env) error {
	dir, err := pricing.Dir(os.Getenv)
	if err != nil {
		return err
	}
	l, err := pricing.Load(dir)
	if err != nil {
		return err
	}
	switch {
	case c.Model != "":
		return c.showModel(env, l)
	case c.All:
		return c.showAll(env, l)
	}
	r := pricesRecord{Source: l.Source, Date: l.Date, Models: l.Len(), Dir: dir, Stored: l.Stored, Override: l.Override}
	if c.JSON {
		return newJSONLines(env.Stdout).write(r)
	}
	stored := "none: the list tape ships (tape prices update stores a newer one)"
	if l.Stored != "" {
		stored = l.Stored
	}
	override := "none (" + filepath.Join(dir, pricing.OverrideFile) + ": your own prices, which win)"
	if l.Override != "" {
		override = l.Override
	}
	return printFields(env, [][2]string{
		{"prices", fmt.Sprintf("%s (%s)", l.Source, wording.Plural(r.Models, "model", "models"))},
		{"taken", l.Date},
		{"stored", stored},
		{"override", override},
	})
}

type pricesRecord struct {
	Source   string `json:"source"`
	Date     string `json:"date"`
	Models   int    `json:"models"`
	Dir      string `json:"dir"`
	Stored   string `json:"stored"`   // "" for the snapshot tape ships
	Override string `json:"override"` // "" for none
}

// modelPrice is one model's entry as --json prints it.
type modelPrice struct {
	Model      string      `json:"model"`
	Asked      string      `json:"asked"`
	Provider   string      `json:"provider"`
	Input      float64     `json:"input"`
	Output     float64     `json:"output"`
	CacheWrite float64     `json:"cache_write"`
	CacheRead  float64     `json:"cache_read"`
	Tiers      []priceTier `json:"tiers"`
}

type priceTier struct {
	Above      int64   `json:"above"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
}

func (c *PricesShowCmd) showModel(env *Env, l pricing.Loaded) error {
	p, ok := l.Lookup(c.Model)
	if !ok {
		// Exit 1, as a search that finds nothing, but said: a model name
		// is not a search.
		fmt.Fprintf(env.Stderr, "tape: no price for model %q\nhint: tape prices --all lists the models priced; add yours to %s (tape prices --help)\n",
			c.Model, pricing.OverrideFile)
		return errNoMatch
	}
	m := modelPrice{Model: p.Model, Asked: c.Model, Provider: p.Provider, Input: p.Tiers[0].Input, Output: p.Tiers[0].Output,
		CacheWrite: p.Tiers[0].CacheWrite, CacheRead: p.Tiers[0].CacheRead, Tiers: []priceTier{}}
	for i, above := range []int64{pricing.Threshold200k, pricing.Threshold272k} {
		if r := p.Tiers[i+1]; r != p.Tiers[i] {
			m.Tiers = append(m.Tiers, priceTier{above, r.Input, r.Output, r.CacheWrite, r.CacheRead})
		}
	}
	if c.JSON {
		return newJSONLines(env.Stdout).write(m)
	}
	lines := [][2]string{{"model", fmt.Sprintf("%s (%s)", m.Model, m.Provider)}}
	for _, k := range []struct {
		name string
		rate func(pricing.Rates) float64
	}{
		{"input", func(r pricing.Rates) float64 { return r.Input }}, {"output", func(r pricing.Rates) float64 { return r.Output }},
		{"cache write", func(r pricing.Rates) float64 { return r.CacheWrite }}, {"cache read", func(r pricing.Rates) float64 { return r.CacheRead }},
	} {
		text := perMillion(k.rate(p.Tiers[0])) + " per million tokens"
		for _, t := range m.Tiers {
			text += fmt.Sprintf(", %s above %dk", perMillion(k.rate(pricing.Rates{Input: t.Input, Output: t.Output, CacheWrite: t.CacheWrite, CacheRead: t.CacheRead})), t.Above/1000)
		}
		lines = append(lines, [2]string{k.name, text})
	}
	return printFields(env, append(lines, [2]string{"from", l.Source}))
}

func (c *PricesShowCmd) showAll(env *Env, l pricing.Loaded) error {
	t := table{columns: []column{{}, {right: true}, {right: true}, {right: true}, {right: true}}}
	for _, name := range l.Models() {
		p, _ := l.Lookup(name)
		r := p.Tiers[0]
		t.add(text(name), text(perMillion(r.Input)+" in"), text(perMillion(r.Output)+" out"), text(perMillion(r.CacheWrite)+" cache write"), text(perMillion(r.CacheRead)+" cache read"))
	}
	return t.write(env.Stdout, terminalColumns(env.Stdout), env.color)
}

// perMillion is a per-token rate as USD per million tokens.
func perMillion(usd float64) string {
	return "$" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", usd*1e6), "0"), ".")
}

// PricesUpdateCmd is `tape prices update`.
type PricesUpdateCmd struct {
	From string `arg:"" optional:"" placeholder:"FILE|URL" help:"LiteLLM's model_prices_and_context_window.json, a file or an http(s) URL (default: LiteLLM's on GitHub)."`
}

func (c *PricesUpdateCmd) Run(env *Env) error {
	from := c.From
	if from == "" {
		from = litellmURL
	}
	data, err := readPriceList(env.Context(), from)
	if err != nil {
		return err
	}
	dir, err := pricing.Dir(os.Getenv)
	if err != nil {
		return err
	}
	t, err := pricing.Store(dir, data, from, time.Now())
	if err != nil {
		return usagef("%s: %v", from, err)
	}
	fmt.Fprintf(env.Stdout, "tape: stored the prices of %s from %s in %s\n", wording.Plural(t.Len(), "model", "models"), from, filepath.Join(dir, pricing.StoredFile))
	return nil
}

// readPriceList reads a list from a file or an http(s) URL, bounded.
func readPriceList(ctx context.Context, from string) ([]byte, error) {
	if !strings.HasPrefix(from, "http://") && !strings.HasPrefix(from, "https://") {
		f, err := os.Open(from)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return pricing.ReadList(f, from)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
	if err != nil {
		return nil, usagef("%s: %v", from, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download the price list: %w (give a FILE instead: tape prices update FILE)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download the price list from %s: %s", from, resp.Status)
	}
	return pricing.ReadList(resp.Body, from)
}
