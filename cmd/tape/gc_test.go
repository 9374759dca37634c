package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"testing"
)

// gcWorkload, in a child process (TAPE_TEST_GC), tunes the collector as
// main does, keeps live bytes live, allocates garbage bytes more, and
// prints how many collections ran, the heap size the last one set as the
// goal of the next, and GOGC at the end.
func gcWorkload(spec string) int {
	var live, garbage int
	if _, err := fmt.Sscanf(spec, "%d,%d", &live, &garbage); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tuneGC()
	var kept [][]byte
	for n := 0; n < live; n += 1 << 20 {
		kept = append(kept, make([]byte, 1<<20))
	}
	ring := make([][]byte, 64)
	for i, n := 0, 0; n < garbage; i, n = i+1, n+1<<10 {
		ring[i%len(ring)] = make([]byte, 1<<10)
	}
	runtime.GC() // the finalizers of the last collection run
	runtime.Gosched()
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/goal:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(sample)
	fmt.Println(sample[0].Value.Uint64()-1, sample[1].Value.Uint64(), sample[2].Value.Uint64())
	runtime.KeepAlive(kept)
	runtime.KeepAlive(ring)
	return 0
}

// gcRun runs gcWorkload in a child process, with GOGC set to gogc unless
// it is "", and returns the collections it counted and its heap goal.
func gcRun(t *testing.T, live, garbage int, gogc string) (cycles, goal, percent int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("TAPE_TEST_GC=%d,%d", live, garbage), "GOGC="+gogc, "GOMEMLIMIT=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gc workload: %v", err)
	}
	if _, err := fmt.Sscanf(string(out), "%d %d %d", &cycles, &goal, &percent); err != nil {
		t.Fatalf("gc workload printed %q: %v", out, err)
	}
	return cycles, goal, percent
}

// TestTuneGC: a command that allocates a few megabytes runs with no
// collection, where Go's default collects; one that allocates more is
// paced as by default after its first collection; one that keeps much
// live collects about as often as by default, not without pause (as a
// soft memory limit made it: hundreds of collections past the limit), and
// lets its heap grow no more than by default.
func TestTuneGC(t *testing.T) {
	if tuned, _, _ := gcRun(t, 0, 8<<20, ""); tuned != 0 {
		t.Errorf("8 MiB of garbage: %d collections, want none", tuned)
	}
	if def, _, _ := gcRun(t, 0, 8<<20, "100"); def == 0 {
		t.Errorf("8 MiB of garbage with GOGC=100: no collection; the workload does not measure what it should")
	}
	if _, _, percent := gcRun(t, 2<<20, 64<<20, ""); percent != 100 {
		t.Errorf("64 MiB of garbage: GOGC %d at the end, want 100 from the first collection on", percent)
	}
	tuned, tunedGoal, _ := gcRun(t, 128<<20, 512<<20, "")
	def, defGoal, _ := gcRun(t, 128<<20, 512<<20, "100")
	t.Logf("128 MiB live, 512 MiB of garbage: %d collections and a %d MiB goal tuned, %d and %d MiB by default", tuned, tunedGoal>>20, def, defGoal>>20)
	if tuned > 2*def+2 || tunedGoal > defGoal*3/2 {
		t.Errorf("with much live, the tuned collector differs from the default: %d collections against %d, a goal of %d MiB against %d", tuned, def, tunedGoal>>20, defGoal>>20)
	}
}
