package projector

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// clusteredTapes is a workspace of n tapes of perTape messages each, one
// hour apart (their anchors dated as their first message, as an importer
// dates them), named in an order unrelated to their time (as imported
// sessions are: a rebuild reads tapes by name). Every message of the
// oldest third says "glacier", every one of the newest third "meteor":
// two words of the same number of matches, one in old sessions only, the
// other in new ones (issue 31).
func clusteredTapes(tb testing.TB, n, perTape int) *tapelog.Workspace {
	tb.Helper()
	ws := tapetest.NewWorkspace(tb)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		word := "river"
		switch {
		case i < n/3:
			word = "glacier"
		case i >= n-n/3:
			word = "meteor"
		}
		h := fnv.New32a()
		fmt.Fprint(h, i)
		folder := filepath.Join(ws.Dir(), "tapes", fmt.Sprintf("s-%08x", h.Sum32()), "anchors", "001_session-start")
		if err := os.MkdirAll(folder, 0o700); err != nil {
			tb.Fatal(err)
		}
		at := func(j int) string {
			return start.Add(time.Duration(i)*time.Hour + time.Duration(j)*time.Second).Format(time.RFC3339Nano)
		}
		anchor := fmt.Sprintf(`{"id":"a%d","kind":"anchor","payload":{"name":"session/start","state":{}},"date":%q}`+"\n", i, at(0))
		var lines strings.Builder
		for j := range perTape {
			text := fmt.Sprintf("step %d of the %s session %d", j, word, i)
			fmt.Fprintf(&lines, `{"id":"m%d-%d","kind":"message","payload":{"role":"user","content":%q},"date":%q}`+"\n", i, j, text, at(j+1))
		}
		if err := os.WriteFile(filepath.Join(folder, "anchor.json"), []byte(anchor), 0o600); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "messages.jsonl"), []byte(lines.String()), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return ws
}

// placeCase is a search a where-matches benchmark times, and its hits.
type placeCase struct {
	q    SearchQuery
	hits int
}

// timePlaces indexes ws, times each search in a sub-benchmark of its own
// name (its Text), and fails when one of slow costs more than
// matchPlaceRatio times the search named base.
func timePlaces(b *testing.B, ws *tapelog.Workspace, base string, slow []string, cases []placeCase) {
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if _, err := p.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	took := map[string]time.Duration{}
	for _, tt := range cases {
		q := tt.q
		q.Limit = 20
		b.Run(q.Text, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				hits, err := p.Search(context.Background(), q)
				if err != nil || len(hits) != tt.hits {
					b.Fatalf("search %+v: %d hits, %v; want %d", q, len(hits), err, tt.hits)
				}
			}
			took[q.Text] = time.Since(start) / time.Duration(b.N)
		})
	}
	for _, name := range slow {
		if ratio := float64(took[name]) / float64(took[base]); ratio > matchPlaceRatio {
			b.Fatalf("%q took %v a search, %q %v: %.1fx, over %vx", name, took[name], base, took[base], ratio, matchPlaceRatio)
		}
	}
}

// matchPlaceRatio bounds the where-matches benchmarks' ratios.
const matchPlaceRatio = 3

// BenchmarkSearchWhereMatchesAre times a search of every tape, newest
// first, for a word found only in old sessions, for one found only in new
// ones, and for a word of every session since the last one started; it
// fails when the first or the third costs more than matchPlaceRatio times
// the second, since a search's cost is not to depend on where its matches
// are (issue 31):
//
//	go test ./projector -run '^$' -bench SearchWhereMatchesAre -benchtime 20x
func BenchmarkSearchWhereMatchesAre(b *testing.B) {
	ws := clusteredTapes(b, 900, 24) // 7,200 matches of each word: more than denseMatches
	// "step" is in every message; 10 s after the last session started, it
	// is in that session's last 15 alone: fewer than the page asks for.
	late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(899*time.Hour + 10*time.Second)
	timePlaces(b, ws, "meteor", []string{"glacier", "step"},
		[]placeCase{{SearchQuery{Text: "meteor"}, 20}, {SearchQuery{Text: "glacier"}, 20}, {SearchQuery{Text: "step", Since: late}, 15}})
}

// BenchmarkSearchOneTapeWhereMatchesAre times a search of one tape of
// 4,800 messages for a word common in other tapes and absent from it, and
// for a word in its newest messages; it fails when the first costs more
// than matchPlaceRatio times the second (issue 31: a common word on a
// small tape asked FTS5 about each of the tape's entries, 1.8 s here):
//
//	go test ./projector -run '^$' -bench SearchOneTapeWhereMatchesAre -benchtime 20x
func BenchmarkSearchOneTapeWhereMatchesAre(b *testing.B) {
	ws := clusteredTapes(b, 900, 24) // glacier in the oldest 300, meteor in the newest
	batch := make([]string, 4800)
	for j := range batch {
		word := "river"
		if j >= len(batch)-40 {
			word = "meteor"
		}
		batch[j] = fmt.Sprintf("step %d of the %s session", j, word)
	}
	tapetest.AppendMessages(b, ws, "big", batch...)
	big := []string{"big"}
	timePlaces(b, ws, "meteor", []string{"glacier"},
		[]placeCase{{SearchQuery{Text: "meteor", Tapes: big}, 20}, {SearchQuery{Text: "glacier", Tapes: big}, 0}})
}
