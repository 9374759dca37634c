package projector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// EntryPage pages the entries Entries reads, in the same order, and
// counts them; an offset below zero counts from the end; entries appended
// later never move an earlier page.
func TestEntryPage(t *testing.T) {
	t.Parallel()
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
	last, total, _, err := p.EntryPage(ctx, f, views.Page{Limit: 3, Offset: -3})
	if err != nil || total != 7 || !slices.Equal(ids(last), ids(all)[4:]) {
		t.Fatalf("the last page = %v of %d, %v; want %v", ids(last), total, err, ids(all)[4:])
	}
	appendMsg(t, ws, "main", "later")
	catchUp(t, p)
	page, total, _, err := p.EntryPage(ctx, f, views.Page{Limit: 3, Offset: 3})
	if err != nil || total != 8 || !slices.Equal(ids(page), ids(all)[3:6]) {
		t.Fatalf("after an append, the page at 3 = %v of %d, %v; want %v of 8", ids(page), total, err, ids(all)[3:6])
	}
}

// AnchorsAfter lists every anchor of every tape in (tape, folder) order,
// a page at a time.
func TestAnchorsAfter(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsgs(t, ws, "b", []string{"x"})
	appendMsgs(t, ws, "a", []string{"y"})
	tp, _ := ws.Tape("a")
	if _, err := tp.Handoff(context.Background(), "next", nil); err != nil {
		t.Fatal(err)
	}
	tp.Close()
	p := openProjector(t, ws)
	catchUp(t, p)
	var got []string
	tape, folder := "", ""
	for {
		page, err := p.AnchorsAfter(context.Background(), tape, folder, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page {
			got = append(got, a.Entry.Pos.Tape+"/"+a.Folder+"/"+a.Name)
		}
		if len(page) < 2 {
			break
		}
		tape, folder = page[len(page)-1].Entry.Pos.Tape, page[len(page)-1].Folder
	}
	want := []string{"a/001_session-start/session/start", "a/002_next/next", "b/001_session-start/session/start", "main/001_session-start/session/start"}
	if !slices.Equal(got, want) {
		t.Errorf("AnchorsAfter pages = %v, want %v", got, want)
	}
}

// EntryPlace gives each entry's folder and its offset in an EntryPage of
// that folder, so that a link to an entry lands on its page.
func TestEntryPlace(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	var contents []string
	for i := range 5 {
		contents = append(contents, fmt.Sprintf("m%d", i))
	}
	appendMsgs(t, ws, "main", contents)
	p := openProjector(t, ws)
	catchUp(t, p)
	ctx := context.Background()
	all, _, err := p.Entries(ctx, EntryFilter{Tape: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		folder, offset, ok, err := p.EntryPlace(ctx, "main", e.ID)
		if err != nil || !ok || folder != e.Pos.Folder {
			t.Fatalf("EntryPlace(%s) = %s, %v, %v; want folder %s", e.ID, folder, ok, err, e.Pos.Folder)
		}
		page, _, _, err := p.EntryPage(ctx, EntryFilter{Tape: "main", Folders: []string{folder}}, views.Page{Limit: 1, Offset: offset})
		if err != nil || len(page) != 1 || page[0].ID != e.ID {
			t.Fatalf("the page at EntryPlace(%s)'s offset %d holds %v, %v", e.ID, offset, ids(page), err)
		}
	}
	if _, _, ok, err := p.EntryPlace(ctx, "main", "no-such-id"); ok || err != nil {
		t.Fatalf("EntryPlace(no-such-id) = %v, %v; want not found", ok, err)
	}
	if _, _, ok, err := p.EntryPlace(ctx, "other", all[0].ID); ok || err != nil {
		t.Fatalf("EntryPlace in another tape = %v, %v; want not found", ok, err)
	}
}

func ids(es []tapelog.Entry) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID)
	}
	return s
}

// NextAnchor follows tape order, by seq, past the 999th anchor where
// folder names stop sorting as their seqs do, and stays in its tape.
func TestNextAnchor(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	for _, f := range []string{"998_a", "999_b", "1000_c", "1001_d"} {
		writeAnchor(t, ws, "big", f)
	}
	writeAnchor(t, ws, "bigger", "001_x")
	p := openProjector(t, ws)
	catchUp(t, p)
	ctx := context.Background()
	for from, want := range map[string]string{"998_a": "999_b", "999_b": "1000_c", "1000_c": "1001_d", "1001_d": "", "nope": ""} {
		a, ok, err := p.NextAnchor(ctx, "big", from)
		if err != nil || ok != (want != "") || a.Folder != want {
			t.Errorf("NextAnchor(big, %s) = %q, %v, %v; want %q", from, a.Folder, ok, err, want)
		}
	}
}

// writeAnchor makes an anchor folder with its anchor.json, as a handoff
// leaves it.
func writeAnchor(t *testing.T, ws *tapelog.Workspace, tape, folder string) {
	t.Helper()
	dir := filepath.Join(ws.Dir(), "tapes", tape, "anchors", folder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, slug, _ := tapelog.ParseFolderName(folder)
	line := fmt.Sprintf(`{"id":"%s","kind":"anchor","payload":{"name":%q},"date":"2026-11-20T09:00:00Z"}`+"\n", folder, slug)
	if err := os.WriteFile(filepath.Join(dir, "anchor.json"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
}
