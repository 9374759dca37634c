package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tape-dev/tape/remote"
)

// A server's error gets the hint that fits it: the URL and credentials
// only when connecting was refused, the role's rights when it lacked
// one, the network when the server went away; a statement the server
// refused (a usage query's "bigint out of range" was told to check the
// URL) gets none, and every one exits 4.
func TestServerFailedHints(t *testing.T) {
	t.Parallel()
	const u = "postgres://tape:s3cret@db.internal/team"
	tests := []struct {
		name string
		err  error
		hint string // "" for none
	}{
		{"a statement refused", fmt.Errorf("query usage: %w", &pgconn.PgError{Code: "22003", Message: "bigint out of range"}), ""},
		{"a right lacking", fmt.Errorf("register the workspace: %w", &pgconn.PgError{Code: "42501", Message: "permission denied for table workspaces"}),
			"the role lacks a right"},
		{"connecting refused", &remote.ServerError{URL: remote.Redact(u), Op: "connect", Err: &pgconn.PgError{Code: "28P01", Message: "password authentication failed"}},
			"check the URL"},
		{"the server gone", fmt.Errorf("search: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection"}), "is the server up"},
		{"another sync", remote.ErrSyncRunning, ""},
	}
	for _, tt := range tests {
		err := serverFailed(tt.err, u, "")
		var h hintError
		if !errors.As(err, &h) || exitCode(err) != exitServer {
			t.Errorf("%s: %v (exit %d); want a hintError, exit %d", tt.name, err, exitCode(err), exitServer)
			continue
		}
		if tt.hint == "" && h.hint != "" || !strings.Contains(h.hint, tt.hint) {
			t.Errorf("%s: hint %q, want %q", tt.name, h.hint, tt.hint)
		}
		if strings.Contains(h.msg, "s3cret") {
			t.Errorf("%s: the message shows the password: %s", tt.name, h.msg)
		}
	}
}
