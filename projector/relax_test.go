package projector

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// The relaxed pass: when every term together finds fewer hits than the
// page, the entries that match some terms follow, the most terms first,
// marked; exact hits keep their place and their ranking.
func TestSearchRelaxed(t *testing.T) {
	ws := newWorkspace(t)
	tp, _ := ws.Tape("main")
	defer tp.Close()
	ctx := context.Background()
	for _, text := range []string{
		"flush the buffer on timeout",   // flush, timeout
		"timeout in the parser",         // timeout, parser
		"flush only",                    // flush
		"nothing to see",                // none
		"flush timeout parser together", // all three
	} {
		if _, err := tp.Append(ctx, tapelog.Entry{Kind: "message", Payload: json.RawMessage(`{"role":"user","content":"` + text + `"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	p := openProjector(t, ws)
	catchUp(t, p)
	search := func(q SearchQuery) []string {
		t.Helper()
		hits, err := p.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			var m struct{ Content string }
			json.Unmarshal(h.Entry.Payload, &m) //nolint:errcheck // a message
			out = append(out, h.Match+": "+m.Content)
		}
		return out
	}
	got := search(SearchQuery{Text: "flush timeout parser", Relax: true, Limit: 10})
	want := []string{"all: flush timeout parser together", "some: flush the buffer on timeout", "some: timeout in the parser", "some: flush only"}
	if len(got) != 4 || got[0] != want[0] || !slices.Contains(got[1:3], want[1]) || !slices.Contains(got[1:3], want[2]) || got[3] != want[3] {
		t.Fatalf("relaxed search: %q; want %q (the two of two terms in either order)", got, want)
	}
	if got := search(SearchQuery{Text: "flush timeout parser", Relax: true, Limit: 2}); len(got) != 2 || got[0] != want[0] || got[1][:5] != "some:" {
		t.Fatalf("relaxed search of 2: %q; want the exact hit, then one of two terms", got)
	}
	if got := search(SearchQuery{Text: "flush timeout parser", Limit: 10}); !slices.Equal(got, want[:1]) {
		t.Fatalf("search without Relax: %q; want the exact hit alone", got)
	}
	if got := search(SearchQuery{Text: "flush", Relax: true, Limit: 10}); len(got) != 3 || slices.ContainsFunc(got, func(s string) bool { return s[:5] == "some:" }) {
		t.Fatalf("a one-word query has nothing to relax: %q", got)
	}
	if got := search(SearchQuery{Text: "flush timeout parser", Relax: true, Limit: 10, Kinds: []string{"tool_call"}}); len(got) != 0 {
		t.Fatalf("the relaxed pass keeps the filters: %q", got)
	}
}
