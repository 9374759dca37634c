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

// BenchmarkSearchWhereMatchesAre times a search of every tape, newest
// first, for a word found only in old sessions and for one found only in
// new ones, as many times each; it fails when the first costs more than
// matchPlaceRatio times the second, since a search's cost is not to
// depend on where its matches are (issue 31):
//
//	go test ./projector -run '^$' -bench SearchWhereMatchesAre -benchtime 20x
func BenchmarkSearchWhereMatchesAre(b *testing.B) {
	ws := clusteredTapes(b, 900, 24) // 7,200 matches of each word: more than denseMatches
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if _, err := p.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	took := map[string]time.Duration{}
	for _, word := range []string{"meteor", "glacier"} {
		b.Run(word, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				hits, err := p.Search(context.Background(), SearchQuery{Text: word, Limit: 20})
				if err != nil || len(hits) != 20 {
					b.Fatalf("search %s: %d hits, %v", word, len(hits), err)
				}
			}
			took[word] = time.Since(start) / time.Duration(b.N)
		})
	}
	if ratio := float64(took["glacier"]) / float64(took["meteor"]); ratio > matchPlaceRatio {
		b.Fatalf("a word of old sessions took %v a search, one of new sessions %v: %.1fx, over %vx", took["glacier"], took["meteor"], ratio, matchPlaceRatio)
	}
}

// matchPlaceRatio bounds BenchmarkSearchWhereMatchesAre's ratio.
const matchPlaceRatio = 3
