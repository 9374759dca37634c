package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/mirrorfile/mirrortest"
)

// growingDB is an OpenCode database that grows as the rounds go, as
// OpenCode writes it: the golden script's rows (testdata/import/opencode),
// each message committed with its parts, a few a round. Its imports run
// through the mirror (decision 0097), which a kill may cut anywhere: in
// the export, between the mirror files and their state, or in the import
// of the mirror files.
type growingDB struct {
	db      *sql.DB
	groups  []string // statements, a transaction each
	planned int
}

// chaosDBAgent is the database agent of the chaos test.
const chaosDBAgent = "opencode"

func newGrowingDB(t *testing.T, dir string) *growingDB {
	t.Helper()
	script := mirrortest.Read(t, filepath.Join("..", "..", "testdata", "import", "opencode", "opencode.sql"))
	g := &growingDB{db: mirrortest.NewDB(t, filepath.Join(dir, "opencode.db"), mirrortest.Schema(script))}
	for _, stmt := range insertStatements(script) {
		if strings.HasPrefix(stmt, "INSERT INTO part ") && len(g.groups) > 0 {
			g.groups[len(g.groups)-1] += ";\n" + stmt // with its message
			continue
		}
		g.groups = append(g.groups, stmt)
	}
	return g
}

// insertStatements are the script's INSERT statements, one or more lines
// each, ending in ");".
func insertStatements(script string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(script, "\n") {
		if cur == nil && !strings.HasPrefix(line, "INSERT INTO ") {
			continue
		}
		cur = append(cur, line)
		if strings.HasSuffix(strings.TrimSpace(line), ");") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ";"))
			cur = nil
		}
	}
	return out
}

// grow draws up to two groups for the round and returns what commits them.
func (g *growingDB) grow(c *chaos) func() {
	from := g.planned
	g.planned = min(len(g.groups), g.planned+c.dbr.IntN(3))
	todo := g.groups[from:g.planned]
	return func() {
		for _, stmts := range todo {
			if err := g.commit(stmts); err != nil {
				c.t.Errorf("grow the OpenCode database: %v", err)
				return
			}
		}
	}
}

// finish commits the groups no round drew.
func (g *growingDB) finish(t *testing.T) {
	t.Helper()
	for _, stmts := range g.groups[g.planned:] {
		if err := g.commit(stmts); err != nil {
			t.Fatalf("finish the OpenCode database: %v", err)
		}
	}
	g.planned = len(g.groups)
}

func (g *growingDB) commit(stmts string) error {
	tx, err := g.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	if _, err := tx.Exec(stmts); err != nil {
		return err
	}
	return tx.Commit()
}
