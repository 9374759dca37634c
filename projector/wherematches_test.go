package projector

import (
	"context"
	"encoding/json"
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
// first, for a word found only in old sessions, for one found only in new
// ones, and for a word of every session since the last one started; it
// fails when the first or the third costs more than matchPlaceRatio times
// the second, since a search's cost is not to depend on where its matches
// are (issue 31):
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
	// "step" is in every message; 10 s after the last session started, it
	// is in that session's last 15 alone: fewer than the page asks for.
	late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(899*time.Hour + 10*time.Second)
	for _, tt := range []struct {
		q    SearchQuery
		hits int
	}{{SearchQuery{Text: "meteor"}, 20}, {SearchQuery{Text: "glacier"}, 20}, {SearchQuery{Text: "step", Since: late}, 15}} {
		q := tt.q
		b.Run(q.Text, func(b *testing.B) {
			q.Limit = 20
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
	for _, slow := range []string{"glacier", "step"} {
		if ratio := float64(took[slow]) / float64(took["meteor"]); ratio > matchPlaceRatio {
			b.Fatalf("%q took %v a search, a word of new sessions %v: %.1fx, over %vx", slow, took[slow], took["meteor"], ratio, matchPlaceRatio)
		}
	}
}

// matchPlaceRatio bounds BenchmarkSearchWhereMatchesAre's ratio.
const matchPlaceRatio = 3

// BenchmarkSearchOneTapeWhereMatchesAre times a search of one tape of
// 4,800 messages for a word common in other tapes and absent from it, and
// for a word in its newest messages; it fails when the first costs more
// than matchPlaceRatio times the second (issue 31: a common word on a
// small tape asked FTS5 about each of the tape's entries, 1.8 s here):
//
//	go test ./projector -run '^$' -bench SearchOneTapeWhereMatchesAre -benchtime 20x
func BenchmarkSearchOneTapeWhereMatchesAre(b *testing.B) {
	ws := clusteredTapes(b, 900, 24) // glacier in the oldest 300, meteor in the newest
	tp, err := ws.Tape("big")
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]tapelog.Entry, 4800)
	for j := range batch {
		word := "river"
		if j >= len(batch)-40 {
			word = "meteor"
		}
		payload, _ := json.Marshal(map[string]string{"role": "user", "content": fmt.Sprintf("step %d of the %s session", j, word)})
		batch[j] = tapelog.Entry{Kind: tapelog.KindMessage, Payload: payload}
	}
	if _, err := tp.Append(context.Background(), batch...); err != nil {
		b.Fatal(err)
	}
	tp.Close()
	p, err := Open(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if _, err := p.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	took := map[string]time.Duration{}
	for _, tt := range []struct {
		word string
		hits int
	}{{"meteor", 20}, {"glacier", 0}} {
		b.Run(tt.word, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				hits, err := p.Search(context.Background(), SearchQuery{Text: tt.word, Tapes: []string{"big"}, Limit: 20})
				if err != nil || len(hits) != tt.hits {
					b.Fatalf("search %s in tape big: %d hits, %v; want %d", tt.word, len(hits), err, tt.hits)
				}
			}
			took[tt.word] = time.Since(start) / time.Duration(b.N)
		})
	}
	if ratio := float64(took["glacier"]) / float64(took["meteor"]); ratio > matchPlaceRatio {
		b.Fatalf("in one tape, a word it lacks took %v a search, one of its newest entries %v: %.1fx, over %vx", took["glacier"], took["meteor"], ratio, matchPlaceRatio)
	}
}
