package importer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/corpus"
	"github.com/tape-dev/tape/testkit/poll"
)

// BenchmarkImportClaude imports a generated corpus of Claude Code
// transcripts (about 20 MB, 60 sessions) into a new workspace: the
// throughput of a first import, without the index, beside cat of the
// same files.
func BenchmarkImportClaude(b *testing.B) {
	src := b.TempDir()
	st, err := corpus.GenerateClaude(src, corpus.TranscriptOptions{Bytes: 20 << 20, Seed: 7})
	if err != nil {
		b.Fatal(err)
	}
	sourcetest.ImportBench{
		Import: func(ctx context.Context, ws *tapelog.Workspace, root string) error {
			_, err := New(ws, claude.Source{}).Import(ctx, []string{root})
			return err
		},
	}.Time(b, src, st.Sessions)
}

// BenchmarkFollowLatency measures how long a line appended to a Claude Code
// transcript takes to be on its tape while a Follower runs: a user's
// message, which nothing holds (a turn's last line waits for the next, or
// for the file to be quiet for DefaultSettle).
func BenchmarkFollowLatency(b *testing.B) {
	ws, projects := runFollower(b, &Follower{})
	const session = "11112222-3333-4444-5555-666677778888"
	transcript := filepath.Join(projects, session+".jsonl")
	messages := ws.Abs("tapes/claude-11112222/anchors/001_session-start/messages.jsonl")
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		line := fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":"%s","timestamp":"2026-11-24T10:00:00.000Z","message":{"role":"user","content":"line %d"}}`+"\n", i, session, i)
		start := time.Now()
		fh, err := os.OpenFile(transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		fh.WriteString(line)
		fh.Close()
		want := fmt.Sprintf(`"id":"u%d"`, i)
		onTape := poll.WaitEvery(10*time.Second, 200*time.Microsecond, func() bool { // the latency is what is measured: look often
			data, _ := os.ReadFile(messages)
			return bytes.Contains(data, []byte(want))
		})
		if !onTape {
			b.Fatalf("line %d not on the tape after 10 s", i)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
