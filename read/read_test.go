package read

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/tapetest"
	"github.com/tape-dev/tape/views"
)

// anchorsOf are anchors named as the folders 001_<name>, 002_<name>, …
func anchorsOf(names ...string) []tapelog.Anchor {
	out := make([]tapelog.Anchor, len(names))
	for i, n := range names {
		slug := strings.ReplaceAll(n, "/", "-")
		out[i] = tapelog.Anchor{Seq: int64(i + 1), Name: n, Folder: fmt.Sprintf("%03d_%s", i+1, slug)}
	}
	return out
}

func folderNames(anchors []tapelog.Anchor) string {
	var out []string
	for _, a := range anchors {
		out = append(out, a.Folder)
	}
	return strings.Join(out, " ")
}

func TestPick(t *testing.T) {
	t.Parallel()
	tape := anchorsOf("session/start", "plan", "build", "plan")
	for _, tc := range []struct {
		name string
		pick Pick
		want string // folders, or the error's text
	}{
		{"the current anchor", Pick{}, "004_plan"},
		{"all", Pick{All: true}, "001_session-start 002_plan 003_build 004_plan"},
		{"from", Pick{From: "build"}, "003_build 004_plan"},
		{"to", Pick{To: "2"}, "001_session-start 002_plan"},
		{"from and to", Pick{From: "002_plan", To: "build"}, "002_plan 003_build"},
		{"to before from", Pick{From: "build", To: "1"}, "error: comes after"},
		{"one by folder", Pick{One: "002_plan"}, "002_plan"},
		{"one by seq", Pick{One: "3"}, "003_build"},
		{"one by a name two share: the last", Pick{One: "plan"}, "004_plan"},
		{"one by slug", Pick{One: "session-start"}, "001_session-start"},
		{"one that is not there", Pick{One: "deploy"}, "error: no such anchor"},
		{"a folder", Pick{Folder: "003_build"}, "003_build"},
		{"a folder by seq is no folder", Pick{Folder: "3"}, "error: no such anchor"},
		{"a folder's slug with another seq is no folder", Pick{Folder: "003_plan"}, "error: no such anchor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.pick.Anchors(tape)
			wantErr, isErr := strings.CutPrefix(tc.want, "error: ")
			switch {
			case isErr && (err == nil || !strings.Contains(err.Error(), wantErr)):
				t.Errorf("%+v: %s, %v; want an error saying %q", tc.pick, folderNames(got), err, wantErr)
			case !isErr && (err != nil || folderNames(got) != tc.want):
				t.Errorf("%+v: %s, %v; want %s", tc.pick, folderNames(got), err, tc.want)
			}
		})
	}
	if _, err := (Pick{One: "deploy"}).Anchors(tape); !errors.Is(err, tapelog.ErrNoAnchor) {
		t.Errorf("an anchor that is not there: %v, want log.ErrNoAnchor", err)
	}
	for _, p := range []Pick{{}, {All: true}} {
		if got, err := p.Anchors(nil); err != nil || len(got) != 0 {
			t.Errorf("%+v of a tape with no anchors: %v, %v; want none", p, got, err)
		}
	}
	if _, err := (Pick{One: "1"}).Anchors(nil); !errors.Is(err, tapelog.ErrNoAnchor) {
		t.Errorf("one anchor of a tape with none: %v, want log.ErrNoAnchor", err)
	}
}

// fixture is a workspace with two tapes, a and b, each of the anchors
// 001_session-start, 002_plan, 003_build and 004_plan and a message in
// each of the last three, and an index of it.
func fixture(t *testing.T) (*tapelog.Workspace, *projector.Projector) {
	t.Helper()
	ws := tapetest.NewWorkspace(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		tp, err := ws.Tape(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, phase := range []string{"plan", "build", "plan"} {
			if _, err := tp.Handoff(ctx, phase, json.RawMessage(`{"summary":"`+phase+`"}`)); err != nil {
				t.Fatal(err)
			}
			msg := fmt.Sprintf(`{"role":"user","content":"%s %s %d"}`, name, phase, i)
			if _, err := tp.Append(ctx, tapelog.Entry{Kind: tapelog.KindMessage, Payload: json.RawMessage(msg)}); err != nil {
				t.Fatal(err)
			}
		}
		tp.Close()
	}
	ix, err := projector.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	return ws, ix
}

// A search limited to an anchor name covers that anchor in every tape,
// each time the name was used.
func TestSearchFolders(t *testing.T) {
	t.Parallel()
	_, ix := fixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		tapes []string
		sel   string
		want  []string
	}{
		{[]string{"a", "b"}, "plan", []string{"002_plan", "004_plan", "002_plan", "004_plan"}},
		{[]string{"a"}, "plan", []string{"002_plan", "004_plan"}},
		{[]string{"b"}, "build", []string{"003_build"}},
		{[]string{"a", "b"}, "1", []string{"001_session-start", "001_session-start"}},
	} {
		got, err := SearchFolders(ctx, ix, tc.tapes, tc.sel)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SearchFolders(%v, %q) = %v, %v; want %v", tc.tapes, tc.sel, got, err, tc.want)
		}
	}
	if _, err := SearchFolders(ctx, ix, nil, "deploy"); !errors.Is(err, tapelog.ErrNoAnchor) {
		t.Errorf("an anchor no tape has: %v, want log.ErrNoAnchor", err)
	}
}

func payloads(entries []tapelog.Entry) string {
	var out []string
	for _, e := range entries {
		out = append(out, string(e.Payload))
	}
	return strings.Join(out, "\n")
}

// A read of entries comes with the bad lines of its anchors, each marked
// acknowledged or not, and warns of those no one acknowledged.
func TestEntriesWarnOfUnacknowledgedBadLines(t *testing.T) {
	t.Parallel()
	ws, ix := fixture(t)
	ctx := context.Background()
	dir := filepath.Join(ws.Dir(), "tapes", "a", "anchors", "004_plan")
	tapetest.AppendRaw(t, filepath.Join(dir, "messages.jsonl"), "not json one\nnot json two\n")
	if _, err := ix.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEntries(ctx, ix, EntryQuery{Tape: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Bad) != 2 || len(got.Unread()) != 2 || folderNames(got.Anchors) != "004_plan" || len(got.Tape) != 4 {
		t.Fatalf("read of the current anchor: anchors %s of %d, bad %v, unread %v; want 004_plan of 4, two bad lines unread",
			folderNames(got.Anchors), len(got.Tape), got.Bad, got.Unread())
	}
	ack, err := ws.AckLine(got.Bad[0].LineError, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Dir(), tapelog.AckFile), []byte(ack+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err = ReadEntries(ctx, ix, EntryQuery{Tape: "a"}); err != nil {
		t.Fatal(err)
	}
	unread := got.Unread()
	if len(got.Bad) != 2 || !got.Bad[0].Acknowledged || got.Bad[1].Acknowledged || len(unread) != 1 || unread[0] != error(got.Bad[1].LineError) {
		t.Errorf("after the first was acknowledged: bad %+v, unread %v; want both, the second unread", got.Bad, unread)
	}
	if !strings.Contains(payloads(got.Entries), "a plan 2") {
		t.Errorf("the good lines beside the bad ones are not read:\n%s", payloads(got.Entries))
	}
}

// A page of entries counts from the anchor's first entry, and the last
// page is the newest.
func TestEntryPage(t *testing.T) {
	t.Parallel()
	_, ix := fixture(t)
	ctx := context.Background()
	q := EntryQuery{Tape: "b", Pick: Pick{All: true}, Kinds: []string{tapelog.KindMessage}}
	all, err := ReadEntries(ctx, ix, q)
	if err != nil || len(all.Entries) != 3 {
		t.Fatalf("all of tape b's messages: %d, %v; want 3", len(all.Entries), err)
	}
	for _, tc := range []struct {
		pg          views.Page
		start, want int // the page's first entry and how many it has
	}{
		{views.Page{Limit: 2, Offset: -2}, 1, 2},
		{views.Page{Limit: 2, Offset: 0}, 0, 2},
		{views.Page{Limit: 2, Offset: -5}, 0, 2},
		{views.Page{Limit: 2, Offset: 7}, 3, 0},
	} {
		got, err := EntryPage(ctx, ix, q, tc.pg)
		if err != nil || got.Total != 3 || got.Start != tc.start || len(got.Entries) != tc.want {
			t.Errorf("page %+v: start %d, %d entries of %d, %v; want start %d, %d of 3", tc.pg, got.Start, len(got.Entries), got.Total, err, tc.start, tc.want)
			continue
		}
		if len(got.Entries) > 0 && payloads(got.Entries) != payloads(all.Entries[tc.start:tc.start+len(got.Entries)]) {
			t.Errorf("page %+v:\n%s\nwant\n%s", tc.pg, payloads(got.Entries), payloads(all.Entries[tc.start:tc.start+len(got.Entries)]))
		}
	}
}

// A context after an anchor reads the anchors after it too, and leaves
// its own anchor entry out.
func TestReadContext(t *testing.T) {
	t.Parallel()
	_, ix := fixture(t)
	ctx := context.Background()
	got, err := ReadContext(ctx, ix, "a", "build", false)
	if err != nil {
		t.Fatal(err)
	}
	text := payloads(got.Entries)
	if strings.Contains(text, `"summary":"build"`) || !strings.Contains(text, "a build 1") || !strings.Contains(text, "a plan 2") || strings.Contains(text, "a plan 0") {
		t.Errorf("context after build:\n%s", text)
	}
	if _, err := ReadContext(ctx, ix, "a", "deploy", false); !errors.Is(err, tapelog.ErrNoAnchor) {
		t.Errorf("context after an anchor that is not there: %v, want log.ErrNoAnchor", err)
	}
}

// A search says whether more match than its limit, keeps to the anchors
// it is limited to, and names what of its scope it could not read.
func TestSearch(t *testing.T) {
	t.Parallel()
	ws, ix := fixture(t)
	ctx := context.Background()
	got, err := Search(ctx, ix, projector.SearchQuery{Text: "plan", Tapes: []string{"a"}, Limit: 1}, "")
	if err != nil || len(got.Hits) != 1 || !got.More {
		t.Fatalf("a limit of 1 where more match: %d hits, more %v, %v; want 1, more", len(got.Hits), got.More, err)
	}
	got, err = Search(ctx, ix, projector.SearchQuery{Text: "plan", Tapes: []string{"a"}, Limit: 20}, "")
	if err != nil || len(got.Hits) < 2 || got.More {
		t.Fatalf("a limit above the matches: %d hits, more %v, %v; want them all, no more", len(got.Hits), got.More, err)
	}
	got, err = Search(ctx, ix, projector.SearchQuery{Text: "build", Limit: 20}, "build")
	if err != nil || len(got.Hits) == 0 {
		t.Fatalf("build in the build anchors: %d hits, %v", len(got.Hits), err)
	}
	for _, h := range got.Hits {
		if h.Entry.Pos.Folder != "003_build" {
			t.Errorf("a search limited to anchor build found %s in %s", h.Entry.ID, h.Entry.Pos.Folder)
		}
	}
	if got, err = Search(ctx, ix, projector.SearchQuery{Text: "plan", Limit: 20}, "build"); err != nil || len(got.Hits) != 0 {
		t.Errorf("plan in the build anchors: %d hits, %v; want none", len(got.Hits), err)
	}
	if _, err := Search(ctx, ix, projector.SearchQuery{Text: "plan", Limit: 20}, "deploy"); !errors.Is(err, tapelog.ErrNoAnchor) {
		t.Errorf("a search limited to an anchor no tape has: %v, want log.ErrNoAnchor", err)
	}
	// A tape whose anchors folder leads out of the workspace is not read
	// (log refuses the symlink), as a folder it may not list is not.
	if err := os.MkdirAll(filepath.Join(ws.Dir(), "tapes", "leak"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.Dir(), "tapes", "leak", "anchors")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = Search(ctx, ix, projector.SearchQuery{Text: "plan", Limit: 20}, "")
	if err != nil || len(got.Unlisted) != 1 || !strings.Contains(got.Unlisted[0].Path, "tapes/leak/anchors") || len(got.Hits) == 0 {
		t.Errorf("with a tape that cannot be read: unlisted %v, %d hits, %v; want tapes/leak/anchors, and the hits of the rest", got.Unlisted, len(got.Hits), err)
	}
}
