package fts5

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/sqlitefile"
)

// BenchmarkSchemaOptions builds the search index of the same rows with
// Schema's options and with each one changed, as a part builds it (no
// journal, automerge off, the build's hash, optimize at the end), and
// reports the rate in MB of text a second and the index's size: what each
// option costs and what dropping it would buy (docs/decisions/0082).
//
//	go test ./internal/fts5 -run '^$' -bench SchemaOptions -count 5
func BenchmarkSchemaOptions(b *testing.B) {
	rows := optionRows(4000)
	textBytes := 0
	for _, r := range rows {
		textBytes += len(r.text) + len(r.parts)
	}
	tok := `tokenize = 'unicode61 remove_diacritics 2'`
	for _, o := range []struct{ name, columns string }{
		{"today", `text, parts, content = '', contentless_delete = 1, ` + tok},
		{"no-parts-column", `text, content = '', contentless_delete = 1, ` + tok},
		{"detail=column", `text, parts, content = '', contentless_delete = 1, detail = column, ` + tok},
		{"detail=none", `text, parts, content = '', contentless_delete = 1, detail = none, ` + tok},
		{"prefix=2,3", `text, parts, content = '', contentless_delete = 1, prefix = '2 3', ` + tok},
		{"no-diacritics-removal", `text, parts, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'`},
	} {
		b.Run(o.name, func(b *testing.B) {
			b.SetBytes(int64(textBytes))
			var size int64
			for i := range b.N {
				size = buildWith(b, filepath.Join(b.TempDir(), fmt.Sprint(i)), o.columns, rows)
			}
			b.ReportMetric(float64(size)/1e6, "MB-index")
		})
	}
}

// buildWith builds an index of rows with columns' definition and returns
// the size of its file.
func buildWith(b *testing.B, path, columns string, rows []row) int64 {
	ctx := context.Background()
	db := openDB(sqlitefile.URI(path) + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-8192)")
	defer db.Close()
	parts := strings.Contains(columns, "parts,")
	stmts := []string{
		`CREATE VIRTUAL TABLE entries_fts USING fts5 (` + columns + `)`,
		`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0)`,
		fmt.Sprintf(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', %d)`, buildHash),
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	for _, r := range rows {
		if parts {
			_, err = tx.ExecContext(ctx, `INSERT INTO entries_fts (rowid, text, parts) VALUES (?, ?, ?)`, r.rowid, r.text, r.parts)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO entries_fts (rowid, text) VALUES (?, ?)`, r.rowid, r.text)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO entries_fts (entries_fts) VALUES ('optimize')`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// optionRows makes n rows shaped like an agent's session: mostly short
// messages, a few long tool outputs; words drawn with a long tail, code
// names with their parts, paths, numbers and some Chinese bigrams (as
// searchlang.Tokenize writes them). Seeded: every run builds the same.
func optionRows(n int) []row {
	r := rand.New(rand.NewPCG(31, 82))
	zipf := rand.NewZipf(r, 1.1, 1, 20000)
	word := func() string {
		k := zipf.Uint64()
		switch {
		case k%29 == 0:
			return fmt.Sprintf("handle%sRequest%d", strings.Repeat("X", int(k%3)+1), k%7)
		case k%31 == 0:
			return fmt.Sprintf("/src/pkg%d/file%d.go:%d", k%40, k%300, k%900)
		case k%37 == 0:
			return "错误 误发 发生"
		}
		return fmt.Sprintf("w%x", k*2654435761%1000003)
	}
	rows := make([]row, n)
	for i := range rows {
		words := 20 + r.IntN(60)
		if r.IntN(10) == 0 {
			words = 1000 + r.IntN(3000) // a tool's output
		}
		var t strings.Builder
		for range words {
			t.WriteString(word())
			t.WriteByte(' ')
		}
		rows[i] = row{rowid: int64(i + 1), text: t.String(), parts: "handle Request"}
	}
	return rows
}
