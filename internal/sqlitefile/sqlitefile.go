// Package sqlitefile owns how tape opens an SQLite database file with
// modernc.org/sqlite: the file: URI a path becomes, whatever characters
// it holds, and the connectors that open connections to it, one of them
// with SQLITE_FCNTL_PERSIST_WAL set. index.db (package projector) and the
// scratch databases of a search-index build (internal/fts5) open theirs
// here.
package sqlitefile

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"

	"modernc.org/sqlite"
)

// URI is the file: URI SQLite opens for the file at path; the caller
// appends its "?" and parameters. '?' and '#' end a URI's path, and '%'
// starts an escape, so they are escaped: a workspace in a folder named
// "C#" had its index, and its builds, opened at "C", outside the
// workspace (projector's TestWorkspacePathWithURICharacters).
func URI(path string) string {
	return "file:" + uriPath.Replace(path)
}

var uriPath = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

// Connector opens connections to one data source name (a URI and its
// parameters) with modernc.org/sqlite, for sql.OpenDB.
type Connector struct {
	drv *sqlite.Driver
	dsn string
}

// NewConnector opens connections to dsn as they are.
func NewConnector(dsn string) *Connector {
	return &Connector{drv: &sqlite.Driver{}, dsn: dsn}
}

// NewPersistWALConnector opens connections to dsn with
// SQLITE_FCNTL_PERSIST_WAL set, so that closing a connection never deletes
// the -wal and -shm files by name. That matters when the database file was
// deleted while this process had it open: the files at those names may by
// then belong to a new database.
func NewPersistWALConnector(dsn string) *Connector {
	drv := &sqlite.Driver{}
	drv.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		fc, ok := c.(sqlite.FileControl)
		if !ok {
			return errors.New("sqlitefile: the sqlite driver cannot set PERSIST_WAL")
		}
		_, err := fc.FileControlPersistWAL("main", 1)
		return err
	})
	return &Connector{drv: drv, dsn: dsn}
}

// Connect opens a connection.
func (c *Connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }

// Driver is the connector's driver.
func (c *Connector) Driver() driver.Driver { return c.drv }
