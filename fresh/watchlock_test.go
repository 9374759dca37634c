package fresh

import (
	"strings"
	"testing"
)

func TestLockPID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data string
		want int
	}{
		{"pid 4242: tape watch\n", 4242},
		{"pid 7", 7},
		{"", 0},
		{"pid -3: tape watch", 0},
		{"pid x: tape watch", 0},
		{"tape watch", 0},
		{"pid 99999999999999999999: overflow", 0},
	}
	for _, tt := range tests {
		if got := lockPID([]byte(tt.data)); got != tt.want {
			t.Errorf("lockPID(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

func FuzzLockPID(f *testing.F) {
	for _, seed := range []string{"pid 1: tape watch\n", "pid :", "pid 0", "", "pid ١٢"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pid := lockPID(data)
		if pid < 0 {
			t.Fatalf("negative pid %d from %q", pid, data)
		}
		if pid > 0 && !strings.HasPrefix(string(data), "pid ") {
			t.Errorf("pid %d from %q, which does not start with \"pid \"", pid, data)
		}
	})
}
