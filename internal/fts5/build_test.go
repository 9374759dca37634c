package fts5

import (
	"context"
	"strings"
	"testing"
)

// A part sends its batch to the builder when it holds batch rows or
// batchBytes of text, whichever comes first: what waits for a builder is
// bounded in bytes, however long the entries' text.
func TestBatchBoundedInBytes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		textBytes int
		rows      int
		want      int // rows still held after rows Adds
	}{
		{"short rows fill a batch by count", 10, batch + 3, 3},
		{"long rows fill it by bytes", batchBytes/2 + 1, 3, 1},
		{"one row longer than a batch goes alone", batchBytes + 1, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBuild(t.TempDir(), 1, DefaultBlock)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			text := strings.Repeat("a", tc.textBytes)
			for i := range tc.rows {
				if err := b.Add(ctx, int64(i+1), text, ""); err != nil {
					t.Fatal(err)
				}
			}
			p := b.parts[0]
			if len(p.batch) != tc.want {
				t.Errorf("after %d rows of %d bytes the part holds %d rows (%d bytes); want %d", tc.rows, tc.textBytes, len(p.batch), p.batchBytes, tc.want)
			}
			if built, err := b.Finish(ctx); err != nil || !built {
				t.Fatalf("Finish = %v, %v; want the rows built", built, err)
			}
		})
	}
}
