package log

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// idSource hands out the ids and dates of new entries. Both increase
// strictly within a process: a date is at least a microsecond after the one
// before it, and ULIDs within one millisecond use monotonic entropy. So the
// entries one process writes sort in the order it wrote them, by id and by
// date alike, even when they land in different files of a folder.
type idSource struct {
	mu sync.Mutex
	// guarded by mu:
	last    time.Time
	entropy *ulid.MonotonicEntropy
}

func newIDSource() *idSource {
	return &idSource{entropy: ulid.Monotonic(rand.Reader, 0)}
}

// next returns a new id and the entry's time, truncated to microseconds.
func (s *idSource) next(now time.Time) (string, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := now.UTC().Truncate(time.Microsecond)
	if !t.After(s.last) {
		t = s.last.Add(time.Microsecond)
	}
	s.last = t
	id, err := ulid.New(ulid.Timestamp(t), s.entropy)
	if err != nil {
		// Monotonic entropy overflows only after about 2^80/2^32 ids in one
		// millisecond; fresh random entropy keeps the id unique regardless.
		id = ulid.MustNew(ulid.Timestamp(t), rand.Reader)
	}
	return id.String(), t
}
