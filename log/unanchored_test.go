package log

import (
	"context"
	"slices"
	"testing"
)

// TestFolderOfSeqZeroWithoutAnchorFile: a folder of seq 0 without
// anchor.json holds the entries written before the tape's first anchor
// (Bub's store writes them to 000_bub): it has no anchor entry and no
// name. Any other folder without anchor.json is an anchor named by its
// slug, and a folder of seq 0 with one is an ordinary anchor.
func TestFolderOfSeqZeroWithoutAnchorFile(t *testing.T) {
	event := func(id string) string { return `{"id":"` + id + `","kind":"event","payload":{"name":"e"}}` + "\n" }
	cases := []struct {
		name        string
		files       map[string]string
		wantIDs     []string
		wantNames   []string
		wantAnchors []bool // Unanchored, per folder
	}{
		{"seq 0 without anchor.json", map[string]string{
			"tapes/x/anchors/000_bub/bub.jsonl": event("e1") + event("e2"),
		}, []string{"e1", "e2"}, []string{""}, []bool{true}},
		{"then a handoff", map[string]string{
			"tapes/x/anchors/000_bub/bub.jsonl":             event("e1"),
			"tapes/x/anchors/001_session-start/anchor.json": `{"id":"a1","kind":"anchor","payload":{"name":"session/start","state":{}}}`,
			"tapes/x/anchors/001_session-start/bub.jsonl":   event("e2"),
		}, []string{"e1", "a1", "e2"}, []string{"", "session/start"}, []bool{true, false}},
		{"seq 0 with anchor.json", map[string]string{
			"tapes/x/anchors/000_zero/anchor.json": `{"id":"a0","kind":"anchor","payload":{"name":"zero"}}`,
			"tapes/x/anchors/000_zero/bub.jsonl":   event("e1"),
		}, []string{"a0", "e1"}, []string{"zero"}, []bool{false}},
		{"seq 1 without anchor.json", map[string]string{
			"tapes/x/anchors/001_review/notes.jsonl": event("e1"),
		}, []string{"001_review", "e1"}, []string{"review"}, []bool{false}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			tp := mustTape(t, openHandMade(t, tt.files), "x")
			anchors, err := tp.Anchors()
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var unanchored []bool
			for _, a := range anchors {
				names, unanchored = append(names, a.Name), append(unanchored, a.Unanchored)
			}
			if !slices.Equal(names, tt.wantNames) || !slices.Equal(unanchored, tt.wantAnchors) {
				t.Errorf("anchors named %q, unanchored %v; want %q, %v", names, unanchored, tt.wantNames, tt.wantAnchors)
			}
			got, bad := readAll(t, tp)
			if !slices.Equal(ids(got), tt.wantIDs) || len(bad) != 0 {
				t.Errorf("entries %v (bad lines %v), want %v", ids(got), bad, tt.wantIDs)
			}
		})
	}
}

// TestFollowerGivesNoAnchorForAFolderOfSeqZero: tape log -f of a tape
// whose first folder is 000_bub prints its entries and no anchor.
func TestFollowerGivesNoAnchorForAFolderOfSeqZero(t *testing.T) {
	ctx := context.Background()
	ws := openHandMade(t, map[string]string{"tapes/x/anchors/.keep": ""})
	tp := mustTape(t, ws, "x")
	f, err := tp.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, ws.Dir()+"/tapes/x/anchors/000_bub/bub.jsonl", `{"id":1,"kind":"event","payload":{"name":"first"}}`+"\n")
	entries, bad, err := f.Poll(ctx)
	if err != nil || len(bad) != 0 {
		t.Fatalf("Poll: %v, bad %v", err, bad)
	}
	if got := ids(entries); !slices.Equal(got, []string{"1"}) {
		t.Errorf("followed %v, want the one entry and no anchor", got)
	}
}
