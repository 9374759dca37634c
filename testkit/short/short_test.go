package short

import (
	"flag"
	"testing"
)

// setShort sets -test.short for the rest of the test, as go test -short
// would, and back after it.
func setShort(t *testing.T, on bool) {
	was := flag.Lookup("test.short").Value.String()
	value := "false"
	if on {
		value = "true"
	}
	if err := flag.Set("test.short", value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("test.short", was) })
}

func TestSizes(t *testing.T) {
	tests := []struct {
		short       bool
		seeds       uint64
		wantSeeds   uint64
		full, small int
		wantSize    int
	}{
		{false, 400, 400, 4000, 400, 4000},
		{true, 400, 40, 4000, 400, 400},
		{true, 5, 1, 10, 3, 3}, // a tenth of 5 is none: one seed still runs
		{false, 5, 5, 10, 3, 10},
	}
	for _, tt := range tests {
		setShort(t, tt.short)
		if got := Seeds(tt.seeds); got != tt.wantSeeds {
			t.Errorf("short %v: Seeds(%d) = %d, want %d", tt.short, tt.seeds, got, tt.wantSeeds)
		}
		if got := Sized(tt.full, tt.small); got != tt.wantSize {
			t.Errorf("short %v: Sized(%d, %d) = %d, want %d", tt.short, tt.full, tt.small, got, tt.wantSize)
		}
	}
}
