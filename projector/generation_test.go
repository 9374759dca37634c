package projector

import (
	"testing"
)

// A generation is made with the index's tables, kept while they stand,
// and made anew with them; an index made before generations gets one.
func TestGenerationIsTheIndexs(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	p := openProjector(t, ws)
	first := p.Generation()
	if len(first) != 32 {
		t.Fatalf("generation %q: want 32 hex digits", first)
	}
	catchUp(t, p)
	again := openProjector(t, ws)
	if again.Generation() != first {
		t.Errorf("reopened: generation %q, want %q", again.Generation(), first)
	}

	if _, err := p.DB().Exec(`DELETE FROM meta WHERE key = 'generation'`); err != nil {
		t.Fatal(err)
	}
	older := openProjector(t, ws)
	if g := older.Generation(); g == "" || g == first {
		t.Errorf("an index without a generation opened as %q; want a new one", g)
	}

	removeIndex(t, ws.Dir())
	made := openProjector(t, ws)
	if g := made.Generation(); g == "" || g == first || g == older.Generation() {
		t.Errorf("a new index has generation %q; want one of its own", g)
	}
}
