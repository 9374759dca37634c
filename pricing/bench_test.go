package pricing

import "testing"

// BenchmarkSnapshot opens the embedded table and looks up three models,
// as a command that shows a cost does; beside it, parsing the whole
// table (Parse), which Open spares it.
func BenchmarkSnapshot(b *testing.B) {
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			t := Snapshot()
			for _, m := range []string{"claude-sonnet-4-5-20250929", "gpt-5-codex", "anthropic/claude-opus-4-5"} {
				if _, ok := t.Lookup(m); !ok {
					b.Fatalf("%s: no price", m)
				}
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := Parse(snapshot); err != nil {
				b.Fatal(err)
			}
		}
	})
}
