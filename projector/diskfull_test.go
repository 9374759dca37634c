package projector

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

func TestIsDiskFull(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("write: %w", syscall.ENOSPC), true},
		{fmt.Errorf("write: %w", syscall.EDQUOT), true},
		{fmt.Errorf("write: %w", syscall.EIO), false},
		{errors.New("no space left on device"), false}, // words are not a cause
		{nil, false},
	} {
		if got := IsDiskFull(tc.err); got != tc.want {
			t.Errorf("IsDiskFull(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
