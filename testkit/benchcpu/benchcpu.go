// Package benchcpu reports the CPU time a benchmark spends (user and
// system, every thread of the process), beside its wall time: on a
// machine shared with other work, the wall time says mostly what the
// others did meanwhile.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Clock is the process's CPU time when a measurement started.
type Clock time.Duration

// Start starts a measurement.
func Start() Clock { return Clock(processCPU()) }

// Report reports the CPU time per op since c started, in ms, as the
// metric cpu-ms/op.
func (c Clock) Report(b *testing.B) {
	b.ReportMetric(float64(processCPU()-time.Duration(c))/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
