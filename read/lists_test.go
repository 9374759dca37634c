package read

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/testkit/tapetest"
	"github.com/tape-dev/tape/views/calls"
	"github.com/tape-dev/tape/views/sessions"
	"github.com/tape-dev/tape/views/usage"
)

// listFixture is a tape "a" with one call answered, four results that
// answer no call, and two runs, one with a token count out of range; and,
// beside it in the tapes folder, a symlink that no listing shows.
func listFixture(t *testing.T) *projector.Projector {
	t.Helper()
	ws := tapetest.NewWorkspace(t)
	ctx := context.Background()
	tp, err := ws.Tape("a")
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	var batch []tapelog.Entry
	for _, e := range []struct{ kind, payload string }{
		{tapelog.KindToolCall, `{"calls":[{"id":"c1","name":"bash","arguments":"ls"}]}`},
		{tapelog.KindToolResult, `{"results":[{"call_id":"c1","output":"ok"}]}`},
		{tapelog.KindToolResult, `{"results":[{"call_id":"x1"},{"call_id":"x2"},{"call_id":"x3"},{"call_id":"x4"}]}`},
		{tapelog.KindEvent, `{"name":"run","data":{"model":"m","usage":{"input_tokens":10,"output_tokens":7}}}`},
		{tapelog.KindEvent, `{"name":"run","data":{"model":"m","usage":{"input_tokens":-1,"output_tokens":7}}}`},
	} {
		batch = append(batch, tapelog.Entry{Kind: e.kind, Payload: json.RawMessage(e.payload), Date: "2026-03-01T10:00:00Z"})
	}
	if _, err := tp.Append(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.Dir(), "tapes", "alias")); err != nil {
		t.Fatal(err)
	}
	ix, err := projector.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

// Each page of a view comes with what every front end warns of beside it.
func TestListsComeWithTheirWarnings(t *testing.T) {
	ix := listFixture(t)
	ctx := context.Background()

	tapes, err := ListTapes(ctx, ix, sessions.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if tapes.Total != 2 || len(tapes.Page) != 2 || tapes.Page[0].Name != "a" { // and the workspace's main
		t.Errorf("ListTapes: %d in all, page %+v; want tapes a and main", tapes.Total, tapes.Page)
	}
	if len(tapes.Unlisted) != 1 || filepath.Base(tapes.Unlisted[0].Path) != "alias" {
		t.Errorf("ListTapes.Unlisted = %+v; want the symlink alias", tapes.Unlisted)
	}

	got, err := ListCalls(ctx, ix, calls.Filter{Tape: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != 1 || len(got.Page) != 1 || got.Page[0].ID != "c1" {
		t.Errorf("ListCalls: %d in all, page %+v; want call c1 alone", got.Total, got.Page)
	}
	if got.OrphansTotal != 4 || len(got.Orphans) != orphansShown || got.Orphans[0].CallID != "x1" {
		t.Errorf("ListCalls orphans: %d in all, %+v; want 4, the first %d from x1", got.OrphansTotal, got.Orphans, orphansShown)
	}

	sums, err := SumUsage(ctx, ix, usage.Filter{By: "tape", Tape: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if sums.Total != 1 || len(sums.Rows) != 1 || sums.Rows[0].Runs != 2 || sums.Rows[0].Input != 10 {
		t.Errorf("SumUsage: %d groups, %+v; want one of 2 runs, 10 tokens in", sums.Total, sums.Rows)
	}
	if sums.BadUsage != 1 {
		t.Errorf("SumUsage.BadUsage = %d, want 1", sums.BadUsage)
	}

	// The words every front end warns with.
	if w := got.OrphansWarning(); !strings.HasPrefix(w, "4 tool results answer no call of their tape: ") ||
		!strings.Contains(w, ":3 (x1), ") || !strings.HasSuffix(w, "(x3) and 1 more") {
		t.Errorf("OrphansWarning = %q", w)
	}
	long := Calls{OrphansTotal: 1, Orphans: []calls.Orphan{{Path: "p", Line: 1, CallID: strings.Repeat("x", 1<<20) + "\nwarning: forged"}}}
	if w := long.OrphansWarning(); len(w) > 200 || strings.Contains(w, "\n") {
		t.Errorf("OrphansWarning of a 1 MiB call id with a newline: %d bytes, %q…", len(w), w[:min(len(w), 80)])
	}
	if w := (Calls{}).OrphansWarning(); w != "" {
		t.Errorf("OrphansWarning of no orphan = %q, want none", w)
	}
	if w, none := BadUsageWarning(sums.BadUsage), BadUsageWarning(0); !strings.HasPrefix(w, "1 run gave token counts that are not whole numbers") || none != "" {
		t.Errorf("BadUsageWarning: %q, and %q for none", w, none)
	}
}

// A tape's anchors come in tape order, each with the entries it holds
// besides its anchor entry.
func TestListAnchors(t *testing.T) {
	_, ix := fixture(t)
	got, err := ListAnchors(context.Background(), ix, "a")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, a := range got {
		fmt.Fprintf(&b, "%s %s %d %s; ", a.Tape, a.Folder, a.Entries, a.State)
	}
	want := `a 001_session-start 0 {"owner":"human"}; a 002_plan 1 {"summary":"plan"}; a 003_build 1 {"summary":"build"}; a 004_plan 1 {"summary":"plan"}; `
	if b.String() != want {
		t.Errorf("ListAnchors(a) =\n%s\nwant\n%s", b.String(), want)
	}
	if none, err := ListAnchors(context.Background(), ix, "nobody"); err != nil || len(none) != 0 {
		t.Errorf("ListAnchors(nobody) = %v, %v; want none", none, err)
	}
}

func TestUnpricedWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		models []string
		want   string
	}{
		{nil, ""},
		{[]string{"m"}, `no price for 1 model "m": their runs have no cost`},
		{[]string{"", "a b"}, `no price for 2 models (none named), "a b": their runs have no cost`},
	} {
		if got := UnpricedWarning(tc.models); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("UnpricedWarning(%q) = %q; want it to begin %q", tc.models, got, tc.want)
		}
	}
}
