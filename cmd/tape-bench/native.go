package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// native measures the baseline of the rebuild: native C SQLite, through
// Python's sqlite3 module, loading the rows the projector would load into
// the same schema, in one transaction, with the same pragmas. It writes the
// rows first (not timed), then times only the load.
func native(args []string) error {
	fs := flags("native")
	dir := fs.String("dir", "", "the project folder holding .tape/")
	fs.Parse(args)
	work, err := os.MkdirTemp("", "tape-native-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	rows := filepath.Join(work, "rows.jsonl")
	n, err := dumpRows(filepath.Join(*dir, ".tape"), rows)
	if err != nil {
		return err
	}
	schema := strings.Replace(projector.Schema(), "contentless_delete = 1,", "", 1) // Python's SQLite 3.40 lacks it
	if err := os.WriteFile(filepath.Join(work, "schema.sql"), []byte(schema), 0o600); err != nil {
		return err
	}
	script := filepath.Join(work, "load.py")
	if err := os.WriteFile(script, []byte(loadPy), 0o600); err != nil {
		return err
	}
	cmd := exec.Command("python3", script, rows, filepath.Join(work, "schema.sql"), filepath.Join(work, "native.db"))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Printf("native: %d rows written for the load\n", n)
	return cmd.Run()
}

// dumpRows writes, one JSON array per line, the rows a rebuild inserts.
func dumpRows(tapeDir, out string) (int, error) {
	ws, err := tapelog.Open(tapeDir)
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	tapes, err := ws.Tapes()
	if err != nil {
		return 0, err
	}
	n := 0
	row := func(e tapelog.Entry, fileID int) error {
		n++
		return enc.Encode([]any{e.Pos.Tape, e.ID, e.Kind, e.Pos.AnchorSeq, e.Pos.Folder, e.Pos.File, fileID,
			e.Pos.Line, e.Pos.Offset, e.Pos.Length, e.Date, e.Pos.Time.UnixNano(), e.Pos.Time.UnixNano(),
			projector.Tokenize(projector.SearchText(e))})
	}
	fileID := 0
	for _, name := range tapes {
		t, _ := ws.Tape(name)
		anchors, err := t.Anchors()
		if err != nil {
			return n, err
		}
		for _, a := range anchors {
			if err := row(a.Entry, 0); err != nil {
				return n, err
			}
			files, err := t.Files(a.Folder)
			if err != nil {
				return n, err
			}
			for _, fi := range files {
				fileID++
				s, err := t.ScanFile(a, fi.Name, tapelog.FilePos{})
				if err != nil {
					return n, err
				}
				for {
					e, err := s.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err == nil {
						err = row(e, fileID)
					}
					if err != nil {
						s.Close()
						return n, err
					}
				}
				s.Close()
			}
		}
	}
	return n, w.Flush()
}

const loadPy = `
import json, sqlite3, sys, time
rows_path, schema_path, db_path = sys.argv[1:4]
rows = [json.loads(l) for l in open(rows_path, encoding="utf-8")]
size = sum(len(r[13].encode()) for r in rows)
db = sqlite3.connect(db_path, isolation_level=None)
for p in ("journal_mode=WAL", "synchronous=NORMAL", "cache_size=-32768"):
    db.execute("PRAGMA " + p)
db.executescript(open(schema_path).read())
db.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', 33554432)")
start = time.perf_counter()
db.execute("BEGIN")
ins = "INSERT INTO entries (tape, id, kind, anchor_seq, folder, file, file_id, line, offset, length, date, eff_time, time_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
for r in rows:
    cur = db.execute(ins, r[:13])
    db.execute("INSERT INTO entries_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, r[13]))
db.execute("COMMIT")
secs = time.perf_counter() - start
print("native: SQLite %s loaded %d rows (%.1f MB of text) in %.2fs: %.0f rows/s" % (sqlite3.sqlite_version, len(rows), size / 1e6, secs, len(rows) / secs))
`
