package pgtest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Shared is one server for the tests of a test binary, started by the
// first test that asks for it: a cluster takes a second or two to make,
// a database a few milliseconds. TestMain stops it after the tests.
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Server returns the shared server, starting it on first use; a test
// that cannot have one fails.
func (sh *Shared) Server(t testing.TB) *Server {
	t.Helper()
	sh.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		sh.srv, sh.err = Start(ctx, Options{})
	})
	if sh.err != nil {
		t.Fatal(sh.err)
	}
	return sh.srv
}

// DB creates a database of the test's own on the shared server and
// returns its URL, as the superuser.
func (sh *Shared) DB(t testing.TB) string {
	t.Helper()
	s := sh.Server(t)
	name, err := s.CreateDB(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	return s.URL(name)
}

// Stop stops the shared server, if it was started.
func (sh *Shared) Stop() {
	if sh.srv != nil {
		sh.srv.Stop()
	}
}
