package projector

import (
	"context"
	"fmt"
	"slices"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// EntryPage pages the entries Entries reads, in the same order, and
// counts them; entries appended later never move an earlier page.
func TestEntryPage(t *testing.T) {
	ws := newWorkspace(t)
	var contents []string
	for i := range 7 {
		contents = append(contents, fmt.Sprintf("m%d", i))
	}
	appendMsgs(t, ws, "main", contents)
	p := openProjector(t, ws)
	catchUp(t, p)
	ctx := context.Background()
	f := EntryFilter{Tape: "main", Kinds: []string{tapelog.KindMessage}}
	all, _, err := p.Entries(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(es []tapelog.Entry) []string {
		var s []string
		for _, e := range es {
			s = append(s, e.ID)
		}
		return s
	}
	var paged []string
	for off := 0; off < 7; off += 3 {
		page, total, errs, err := p.EntryPage(ctx, f, views.Page{Limit: 3, Offset: off})
		if err != nil || len(errs) > 0 || total != 7 {
			t.Fatalf("EntryPage(offset %d) = %d of %d, %v, %v", off, len(page), total, errs, err)
		}
		paged = append(paged, ids(page)...)
	}
	if !slices.Equal(paged, ids(all)) {
		t.Fatalf("pages hold %v, want %v", paged, ids(all))
	}
	appendMsg(t, ws, "main", "later")
	catchUp(t, p)
	page, total, _, err := p.EntryPage(ctx, f, views.Page{Limit: 3, Offset: 3})
	if err != nil || total != 8 || !slices.Equal(ids(page), ids(all)[3:6]) {
		t.Fatalf("after an append, the page at 3 = %v of %d, %v; want %v of 8", ids(page), total, err, ids(all)[3:6])
	}
}
