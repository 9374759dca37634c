package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
)

// native measures the baseline of the rebuild: native C SQLite, through
// Python's sqlite3 module, loading the rows the projector would load into
// the same schema, in one transaction, with the same pragmas: entries with
// their facts, their search text, run rows, and the calls and their counts
// (folded here, in Go, beforehand: the load times only SQLite). It writes the
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
		facts := views.EntryFacts(e)
		var run any
		if r := facts.Run; r != nil {
			run = []any{r.Status, r.Model, r.Usage, r.In, r.Out, r.CacheCreation, r.CacheRead, r.Total}
		}
		return enc.Encode([]any{e.Pos.Tape, e.ID, e.Kind, e.Pos.AnchorSeq, e.Pos.Folder, e.Pos.File, fileID,
			e.Pos.Line, e.Pos.Offset, e.Pos.Length, e.Date, e.Pos.Time.UnixNano(), e.Pos.Time.UnixNano(),
			nullIfEmpty(facts.Encode()), searchlang.Tokenize(views.SearchText(e)), run})
	}
	fileID := 0
	for _, name := range tapes {
		t, _ := ws.Tape(name)
		anchors, err := t.Anchors()
		if err != nil {
			return n, err
		}
		for _, a := range anchors {
			if a.Unanchored {
				// no anchor entry: its folder's files still load below
			} else if err := row(a.Entry, 0); err != nil {
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
	if err := w.Flush(); err != nil {
		return n, err
	}
	return n, dumpCalls(ws, tapes, strings.TrimSuffix(out, ".jsonl")+"-calls.jsonl")
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// dumpCalls writes the calls rows a rebuild inserts, one JSON array per
// line: the fold of each tape's tool entries in tape order, with the
// places of the call and result entries for the loader to find their rows.
func dumpCalls(ws *tapelog.Workspace, tapes []string, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for _, name := range tapes {
		t, _ := ws.Tape(name)
		places := map[int64]tapelog.Position{}
		var fold calls.CallFold
		var settled []calls.Call
		var ref int64
		for e, err := range t.All(context.Background()) {
			if err != nil {
				continue
			}
			if e.Kind != "tool_call" && e.Kind != "tool_result" && e.Kind != "error" {
				continue
			}
			ref++
			places[ref] = e.Pos
			var at *int64
			if !e.Pos.Time.IsZero() {
				ns := e.Pos.Time.UnixNano()
				at = &ns
			}
			settled = append(settled, fold.Add(calls.ToolEntry{Ref: ref, Kind: e.Kind, Time: at, Facts: views.EntryFacts(e)})...)
		}
		settled = append(settled, fold.Flush()...)
		for _, c := range settled {
			call := places[c.Entry]
			var result any
			if c.ResultEntry != 0 {
				r := places[c.ResultEntry]
				result = []any{r.Folder, r.File, r.Line, c.ResultIndex}
			}
			if err := enc.Encode([]any{name, call.AnchorSeq, call.Folder, call.Time.UnixNano(), call.File, call.Line, c.Index,
				c.ID, c.Name, c.Status, c.CalledAt, c.AnsweredAt, result}); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

const loadPy = `
import json, sqlite3, sys, time
rows_path, schema_path, db_path = sys.argv[1:4]
rows = [json.loads(l) for l in open(rows_path, encoding="utf-8")]
calls = [json.loads(l) for l in open(rows_path[:-len(".jsonl")] + "-calls.jsonl", encoding="utf-8")]
size = sum(len(r[14].encode()) for r in rows)
db = sqlite3.connect(db_path, isolation_level=None)
for p in ("journal_mode=WAL", "synchronous=NORMAL", "cache_size=-32768"):
    db.execute("PRAGMA " + p)
db.executescript(open(schema_path).read())
db.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', 33554432)")
start = time.perf_counter()
db.execute("BEGIN")
ins = "INSERT INTO entries (tape, id, kind, anchor_seq, folder, file, file_id, line, offset, length, date, eff_time, time_ns, facts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
run_ins = "INSERT INTO runs (entry, tape, anchor_seq, folder, time_ns, status, model, has_usage, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, total_tokens) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
rowid = {}
for r in rows:
    cur = db.execute(ins, r[:14])
    db.execute("INSERT INTO entries_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, r[14]))
    if r[2] in ("tool_call", "tool_result", "error"):
        rowid[(r[0], r[4], r[5], r[7])] = cur.lastrowid
    if r[15] is not None:
        db.execute(run_ins, [cur.lastrowid, r[0], r[3], r[4], r[12]] + r[15])
entries_secs = time.perf_counter() - start
counts = {}
call_ins = "INSERT INTO calls (tape, anchor_seq, folder, eff_time, file, line, idx, entry, call_id, name, status, called_ns, answered_ns, result_entry, result_idx) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
for c in calls:
    tape, seq, folder, eff, file, line, idx, cid, name, status, called, answered, result = c
    res, res_idx = None, None
    if result is not None:
        res, res_idx = rowid[(tape, result[0], result[1], result[2])], result[3]
    db.execute(call_ins, (tape, seq, folder, eff, file, line, idx, rowid[(tape, folder, file, line)], cid, name, status, called, answered, res, res_idx))
    counts[(tape, status)] = counts.get((tape, status), 0) + 1
for (tape, status), n in counts.items():
    db.execute("INSERT INTO call_counts (tape, status, n) VALUES (?, ?, ?)", (tape, status, n))
db.execute("COMMIT")
secs = time.perf_counter() - start
print("native: SQLite %s loaded %d rows (%.1f MB of text) and %d calls in %.2fs (entries %.2fs): %.0f rows/s" % (sqlite3.sqlite_version, len(rows), size / 1e6, len(calls), secs, entries_secs, len(rows) / secs))
`
