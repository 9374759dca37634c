package projector

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A pass from an empty index drops entries' read-only indexes and creates
// them again before it commits (entryIndexes): the schema after the first
// pass and after a rebuild is the one a new index.db starts with, to the
// text of each statement.
func TestRebuildKeepsTheSchema(t *testing.T) {
	ws := newWorkspace(t)
	appendMsgs(t, ws, "a", []string{"one", "two"})
	appendMsgs(t, ws, "b", []string{"three"})
	p := openProjector(t, ws)
	if b := p.newBuild(); b == nil {
		t.Fatal("no search index build beside can be made here: the passes below would not drop the indexes")
	} else {
		b.Close()
	}
	want := schemaRows(t, p)
	for _, name := range entryIndexNames {
		if !strings.Contains(want, name) {
			t.Fatalf("a new index has no %s:\n%s", name, want)
		}
	}
	if st := catchUp(t, p); st.Entries == 0 || st.SearchInPlace != "" {
		t.Fatalf("the first pass indexed nothing, or not beside: %+v", st)
	}
	if got := schemaRows(t, p); got != want {
		t.Errorf("after the first pass the schema is\n%s\nwant\n%s", got, want)
	}
	if st, err := p.Rebuild(context.Background()); err != nil || st.SearchInPlace != "" {
		t.Fatalf("rebuild: %+v, %v; want it built beside", st, err)
	}
	if got := schemaRows(t, p); got != want {
		t.Errorf("after a rebuild the schema is\n%s\nwant\n%s", got, want)
	}
	if !found(t, p, "three") {
		t.Error("after a rebuild, search does not find an entry")
	}
}

func schemaRows(t *testing.T, p *Projector) string {
	t.Helper()
	rows, err := p.DB().Query(`SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, table, sql string
		if err := rows.Scan(&typ, &name, &table, &sql); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s: %s\n", typ, name, table, sql)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
