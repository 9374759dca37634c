//go:build postgres

package remote

import (
	"context"
	"testing"
)

// BenchmarkSyncSessions syncs a workspace of 500 generated sessions
// (about 17,000 entries) into an empty database: the first sync of a
// user's workspace. Reported per entry.
func BenchmarkSyncSessions(b *testing.B) {
	ctx := context.Background()
	_, ix := sessionsWorkspace(b, 500, 1)
	var entries int
	for b.Loop() {
		b.StopTimer()
		conn := connect(b, server.DB(b))
		b.StartTimer()
		st, err := Sync(ctx, ix, conn, SyncOptions{})
		if err != nil {
			b.Fatal(err)
		}
		entries = st.Entries
	}
	b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkSyncNothingNew syncs the same workspace again, with nothing
// new: the cost of a sync that finds nothing to send.
func BenchmarkSyncNothingNew(b *testing.B) {
	ctx := context.Background()
	_, ix := sessionsWorkspace(b, 500, 1)
	conn := connect(b, server.DB(b))
	if _, err := Sync(ctx, ix, conn, SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Sync(ctx, ix, conn, SyncOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
