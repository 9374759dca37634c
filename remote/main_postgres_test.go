//go:build postgres

package remote

import (
	"os"
	"testing"

	"github.com/tape-dev/tape/testkit/pgtest"
)

// The tests tagged postgres run against a real PostgreSQL server that
// they start themselves (package pgtest), one for the test binary, a
// database for each test: go test -tags postgres ./remote. .ci/run
// installs PostgreSQL when the machine lacks it.
var server pgtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}
