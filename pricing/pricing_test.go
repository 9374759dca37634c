package pricing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The snapshot parses whole, and opened lazily (Open) it prices every
// model as the whole parse does.
func TestSnapshotParses(t *testing.T) {
	t.Parallel()
	whole, err := Parse(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Len() < 2000 || whole.Date != "2026-07-24" {
		t.Fatalf("snapshot of %d models dated %q; want LiteLLM's ~2,500 of 2026-07-24", whole.Len(), whole.Date)
	}
	lazy := Snapshot()
	if lazy.lines == nil {
		t.Fatal("the snapshot was parsed whole, not opened: it is not in the stored form Open reads")
	}
	for name, want := range whole.models {
		if got, ok := lazy.Lookup(name); !ok || got != want {
			t.Errorf("%s: opened %+v (%v), parsed %+v", name, got, ok, want)
		}
	}
	if lazy.Len() != whole.Len() {
		t.Errorf("opened: %d models; parsed: %d", lazy.Len(), whole.Len())
	}
}

// The snapshot is what Trim makes of it: the embedded file is the stored
// form `tape prices update` writes, and nothing else.
func TestSnapshotIsTrimmed(t *testing.T) {
	t.Parallel()
	s := Snapshot()
	again, err := Trim(snapshot, s.Source, s.Date)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(snapshot) {
		t.Error("Trim of the snapshot differs from it: regenerate litellm.json with Trim")
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	table := Snapshot()
	for _, tc := range []struct{ model, want string }{
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"},
		{"Claude-Sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"},
		{"anthropic/claude-opus-4-5-20251101", "claude-opus-4-5-20251101"},
		{"openai/gpt-5-codex", "gpt-5-codex"},
		{"gpt-5", "gpt-5"},
		{"claude-haiku-4.5", "claude-haiku-4-5"},
		{"anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"qwen3-coder-plus", "openrouter/qwen/qwen3-coder-plus"}, // LiteLLM lists it under OpenRouter alone
		{"claude-sonnet-4-5-20250929-thinking", "claude-sonnet-4-5-20250929"},
		{"claude-sonnet-4-6", "claude-sonnet-4-6"},
		{"claude-sonnet-4-7", ""}, // not claude-sonnet-4: 7 is more of its version
		{"sonnet", ""},            // a guess, not a match
		{"", ""},
		{"<synthetic>", ""},
		{"my-private-model", ""},
	} {
		p, ok := table.Lookup(tc.model)
		if ok != (tc.want != "") || p.Model != tc.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.model, p.Model, ok, tc.want)
		}
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	table := Snapshot()
	sonnet, _ := table.Lookup("claude-sonnet-4-5-20250929")
	opus, _ := table.Lookup("claude-opus-4-5-20251101")
	for _, tc := range []struct {
		name  string
		price Price
		runs  []Tokens
		want  float64
	}{
		{"a million of each, below every tier", opus, []Tokens{{Input: 1e6, Output: 1e6, CacheWrite: 1e6, CacheRead: 1e6}}, 5 + 25 + 6.25 + 0.5},
		{"300k input: 200k at 3, 100k at 6 USD a million", sonnet, []Tokens{{Input: 300_000}}, 0.6 + 0.6},
		{"two runs of 150k: no token above the tier", sonnet, []Tokens{{Input: 150_000}, {Input: 150_000}}, 0.9},
		{"cache reads above the tier at their own rate", sonnet, []Tokens{{CacheRead: 250_000}}, 200_000*3e-7 + 50_000*6e-7},
		{"no tier: all at the base rate", opus, []Tokens{{Input: 300_000}}, 1.5},
	} {
		var s Sums
		for _, r := range tc.runs {
			s.Add(SumsOf(r))
		}
		if got := tc.price.Cost(s); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"not JSON":          `{"a":`,
		"no model priced":   `{"sample_spec": {"mode": "chat"}, "dall-e": {"output_cost_per_image": 0.04}}`,
		"a negative rate":   `{"m": {"input_cost_per_token": -1e-6}}`,
		"a rate of 2 USD":   `{"m": {"output_cost_per_token": 2}}`,
		"stored, no models": `{"date": "2026-01-01", "source": "x", "models": {}}`,
	} {
		if _, err := Parse([]byte(data)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// Load: the snapshot, or the stored list in its place, and the override
// file's prices on top of either.
func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Load(dir)
	if err != nil || l.Stored != "" || l.Override != "" || l.Date != Snapshot().Date {
		t.Fatalf("Load of an empty folder: %+v, %v; want the snapshot", l, err)
	}
	list := `{"sample_spec": {}, "claude-sonnet-4-5": {"litellm_provider": "anthropic", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}}`
	if _, err := Store(dir, []byte(list), "test", time.Date(2026, 11, 28, 23, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, StoredFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored list: %v, %v; want a file private to its owner", fi, err)
	}
	override := `{"claude-sonnet-4-5": {"input_cost_per_token": 5e-06}, "my-model": {"input_cost_per_token": 1e-07, "output_cost_per_token": 2e-07}}`
	if err := os.WriteFile(filepath.Join(dir, OverrideFile), []byte(override), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err = Load(dir)
	if err != nil || l.Stored == "" || l.Override == "" || l.Date != "2026-11-28" || l.Len() != 2 {
		t.Fatalf("Load: %+v (%d models), %v; want the stored list of 2026-11-28 and the override", l, l.Len(), err)
	}
	if p, _ := l.Lookup("claude-sonnet-4-5"); p.Tiers[0].Input != 5e-6 || p.Tiers[0].Output != 0 {
		t.Errorf("claude-sonnet-4-5: %+v; want the override's entry, whole, in place of the list's", p)
	}
	if _, ok := l.Lookup("my-model"); !ok {
		t.Error("my-model: not priced; want the override's price")
	}
	if err := os.WriteFile(filepath.Join(dir, OverrideFile), []byte(`{"m": {"input_cost_per_token": "cheap"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), OverrideFile) {
		t.Errorf("Load with a bad override file: %v; want an error naming it", err)
	}
}

// FuzzParse: no list makes Parse or Open panic, and what both read, they
// price alike.
func FuzzParse(f *testing.F) {
	f.Add(snapshot[:2000])
	f.Add([]byte(`{"m": {"input_cost_per_token": 1e-06, "output_cost_per_token_above_200k_tokens": 3e-06}}`))
	f.Add([]byte("{\"date\":\"d\",\"source\":\"s\",\"models\":{\n\"a\":{\"input_cost_per_token\":1e-7},\n\"b\":{\"output_cost_per_token\":1e-7}\n}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, err := Parse(data)
		opened, oerr := Open(data)
		if err != nil {
			return
		}
		if oerr != nil {
			t.Fatalf("Parse read it, Open: %v", oerr)
		}
		for name, want := range whole.models {
			if got, ok := opened.Lookup(name); !ok || got != want {
				t.Errorf("%q: opened %+v, %v; parsed %+v", name, got, ok, want)
			}
		}
	})
}
