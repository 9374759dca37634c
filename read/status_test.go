package read

import (
	"testing"
	"time"

	"github.com/tape-dev/tape/views/usage"
)

// BlockState says nothing of a block that is not active, and of the
// active one its time left and, with a rate, how fast it spends.
func TestBlockState(t *testing.T) {
	start := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	now := start.Add(92*time.Minute + 20*time.Second)
	for _, c := range []struct {
		b    *usage.Block
		want string
	}{
		{nil, ""},
		{&usage.Block{Start: start, End: start.Add(usage.BlockLength)}, ""},
		{&usage.Block{Start: start, End: start.Add(usage.BlockLength), Active: true}, "active, 3h 28m left"},
		{&usage.Block{Start: start, End: start.Add(usage.BlockLength), Active: true, Rate: &usage.BurnRate{CostPerHour: 0.4, ProjectedCost: 2.5}},
			"active, 3h 28m left, $0.40/h, $2.50 at its end"},
	} {
		if got := BlockState(c.b, now); got != c.want {
			t.Errorf("BlockState(%+v) = %q, want %q", c.b, got, c.want)
		}
	}
}
