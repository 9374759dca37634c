package benchcpu

import (
	"testing"
	"time"
)

// The clock counts the process's CPU time: a busy loop of 50 ms of wall
// time moves it by at least some of that, where a sleep of as long
// moves it by far less.
func TestClockCountsCPU(t *testing.T) {
	busy := processCPU()
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	spent := processCPU() - busy
	if spent < 10*time.Millisecond {
		t.Errorf("a 50 ms busy loop moved the CPU clock by %v", spent)
	}
	idle := processCPU()
	time.Sleep(50 * time.Millisecond)
	if slept := processCPU() - idle; slept >= spent {
		t.Errorf("a 50 ms sleep moved the CPU clock by %v, as much as a busy loop (%v)", slept, spent)
	}
}
