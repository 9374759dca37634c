package projector

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/short"
	"github.com/tape-dev/tape/testkit/tapetest"
)

// checkStateRecord checks the two promises of the state record after a
// pass: the record, if there is one, is the state loadState reads from
// the rows; and when a dry walk against that state finds nothing changed,
// a real pass changes nothing either.
func checkStateRecord(t *testing.T, p *Projector, log []string) {
	t.Helper()
	ctx := context.Background()
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := loadState(ctx, tx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	err = tx.QueryRowContext(ctx, `SELECT data FROM state_record`).Scan(&data)
	tx.Rollback()
	var rec *state
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		t.Fatal(err)
	default:
		decoded, ok := decodeState(string(data))
		if !ok {
			t.Fatalf("after %v: the state record does not decode", log)
		}
		if got, want := encodeState(decoded), encodeState(st); !bytes.Equal(got, want) {
			t.Fatalf("after %v: the state record is not the state of the rows:\nrecord %+v\nrows   %+v", log, decoded, st)
		}
		decoded.index()
		rec = &decoded
	}
	st.index()
	_, same, err := p.unchangedSince(ctx, st)
	if err != nil {
		return
	}
	if rec != nil { // the record holds signatures as sums: a dry walk must find the same
		if _, recSame, err := p.unchangedSince(ctx, *rec); err == nil && recSame != same {
			t.Fatalf("after %v: a dry walk against the record found the files unchanged: %v; against the rows: %v", log, recSame, same)
		}
	}
	if !same {
		return
	}
	var stats Stats
	if err := p.withLock(ctx, LockWait, func() error { return p.passLocked(ctx, false, nil, &stats) }); err != nil {
		t.Fatal(err)
	}
	if stats.ops != 0 {
		t.Fatalf("after %v: a dry walk found nothing changed, but a pass made %d changes (%+v)", log, stats.ops, stats)
	}
}

// TestStateRecordIsTheState runs random changes and catch-ups, on folders
// settled and not, and checks the state record after every pass.
func TestStateRecordIsTheState(t *testing.T) {
	t.Parallel() // long, on a workspace of its own (0074)
	var quick, passes int
	for seed := range short.Seeds(16) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ws := newWorkspace(t)
			p := openProjector(t, ws)
			m := &tapetest.Mutator{T: t, R: rand.New(rand.NewPCG(seed, 23)), WS: ws}
			settled := seed%2 == 0
			var s settler
			for step := range 60 {
				m.Step()
				if settled { // as TestIncrementalEqualsRebuildOnSettledFolders
					s.settle(ws)
				}
				if folders := m.Folders(); step%3 == 0 && len(folders) > 0 {
					// A watcher's pass, scoped to a folder that may or may not
					// be the one that changed.
					rel, _ := filepath.Rel(ws.Dir(), folders[m.R.IntN(len(folders))])
					sc := newScope()
					sc.add(rel + "/messages.jsonl")
					if _, err := p.catchUpScoped(context.Background(), sc); err != nil {
						t.Fatal(err)
					}
					checkStateRecord(t, p, m.Log)
				}
				if step%4 == 0 {
					catchUp(t, p)
					checkStateRecord(t, p, m.Log)
					passes++
					if rec := p.ReadStateRecord(context.Background()); rec != nil {
						if _, same, _ := p.unchangedSince(context.Background(), rec.st); same {
							quick++
						}
					}
					catchUp(t, p)
					checkStateRecord(t, p, m.Log)
				}
			}
		})
	}
	t.Logf("a dry walk found nothing changed %d times in %d second catch-ups", quick, passes)
	if quick*4 < passes {
		t.Errorf("a dry walk found nothing changed %d times in %d second catch-ups: the quick path was hardly taken", quick, passes)
	}
}

func TestStateRecordRoundTrip(t *testing.T) {
	t.Parallel()
	st := state{
		tapes: map[string]bool{"main": true, "日志": true, "gone": true},
		folders: map[fileKey]folderMark{
			{tape: "main", folder: "001_start"}: {listing: folderListing{mtimeNS: 1, ctimeNS: -2, listedNS: 3, ino: 1 << 63}, sig: "\"a.jsonl\"\t1\t2\t3\t4\t5\n", seq: 1, size: -1, mtimeNS: 7, ino: 9},
			{tape: "日志", folder: "002_x"}:       {sig: "", seq: 2, size: unreadableAnchor},
			{tape: "main", folder: "003_y"}:     {sig: "b.jsonl\t1\t2\t3\t4\t5\n\"c.jsonl\"\t!\n\"b.jsonl\"\t!\n"}, // the form of schema 5: kept as it is
			{tape: "main", folder: "004_z"}:     {sig: "\"c.jsonl\"\t!\n\"b.jsonl\"\t!\t1\t2\t3\t4\t5\n"},
		},
		unreadable: map[fileKey]string{{tape: "gone"}: "cannot list: permission denied", {tape: "main", folder: "001_start", name: "b.jsonl"}: "cannot open"},
		tapeListings: map[string]tapeListing{
			"main": {listing: folderListing{mtimeNS: -4, ctimeNS: 5, listedNS: 6, ino: 1<<63 + 1}, folders: "001_start"},
			"日志":   {folders: ""},
		},
	}
	data := encodeState(st)
	got, ok := decodeState(string(data))
	if !ok {
		t.Fatal("decodeState refused what encodeState wrote")
	}
	if !bytes.Equal(encodeState(got), data) {
		t.Fatalf("round trip: %+v, want %+v", got, st)
	}
	if got.folders[fileKey{tape: "main", folder: "001_start"}].listing.ino != 1<<63 || got.tapeListings["main"] != st.tapeListings["main"] {
		t.Error("an inode past 2^63 did not survive")
	}
	// A signature this version reads is kept as the names it lists and its
	// sum, which the same signature matches and no other; one it cannot
	// read is kept as it is.
	for k, want := range st.folders {
		m := got.folders[k]
		wantNames, readable := want.fileNames()
		if m.summed != (readable && want.sig != "") {
			t.Errorf("%v: summed %v, want %v", k, m.summed, readable)
		}
		names, ok := m.fileNames()
		if ok != readable || !slices.Equal(names, wantNames) || m.hasSig() != want.hasSig() {
			t.Errorf("%v: names %q, %v, want %q, %v", k, names, ok, wantNames, readable)
		}
		if want.sig != "" && (!m.sameSig([]byte(want.sig)) || m.sameSig([]byte(want.sig+"\"d.jsonl\"\t!\n"))) {
			t.Errorf("%v: its signature does not match as it should", k)
		}
	}
	for n := range len(data) {
		if _, ok := decodeState(string(data[:n])); ok {
			t.Errorf("decodeState took the first %d of %d bytes", n, len(data))
		}
	}
	// A version past 64 bits is refused, not taken modulo 2^64 for a 3.
	over := []byte{stateRecordVersion | 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}
	if _, ok := decodeState(string(append(over, data[1:]...))); ok {
		t.Error("decodeState took a version of more than 64 bits")
	}
	if _, ok := decodeState(string(append([]byte{stateRecordVersion + 1}, data[1:]...))); ok {
		t.Error("decodeState took a record of another version")
	}
}

func FuzzDecodeState(f *testing.F) {
	f.Add(encodeState(state{tapes: map[string]bool{"main": true}, folders: map[fileKey]folderMark{{tape: "main", folder: "001_a"}: {sig: "x"}}}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Whatever it is given, decodeState neither panics nor makes
		// what it cannot hold (counts are bounded by the bytes left); what
		// it takes re-encodes to a record that decodes to the same state.
		st, ok := decodeState(string(data))
		if !ok {
			return
		}
		again, ok := decodeState(string(encodeState(st)))
		if !ok || !bytes.Equal(encodeState(again), encodeState(st)) {
			t.Fatalf("decoded %+v does not round-trip", st)
		}
	})
}

// TestStateRecordOfAnotherSchemaIsIgnored: a tape of an older schema that
// rebuilt the index in place kept the table, and the record, as they were;
// a Projector that opened the index before must not trust it.
func TestStateRecordOfAnotherSchemaIsIgnored(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "kept")
	p := openProjector(t, ws)
	settleWithRecord(t, ws, p)
	if _, err := p.DB().Exec(`UPDATE meta SET value = '10' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	if p.ReadStateRecord(context.Background()) != nil {
		t.Error("the state record of an index of schema 10 was read")
	}
}

// A record of another version, left by another build of tape on an index
// of the same schema, or a damaged one, is replaced by the next pass that
// finds nothing new: kept, it would stop every reader from using one.
func TestStateRecordOfAnotherVersionIsReplaced(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func([]byte) []byte{
		"another version": func(data []byte) []byte { return append([]byte{stateRecordVersion + 1}, data[1:]...) },
		"cut short":       func(data []byte) []byte { return data[:len(data)/2] },
	} {
		t.Run(name, func(t *testing.T) {
			ws := newWorkspace(t)
			appendMsg(t, ws, "main", "kept")
			p := openProjector(t, ws)
			settleWithRecord(t, ws, p)
			var data []byte
			if err := p.DB().QueryRow(`SELECT data FROM state_record`).Scan(&data); err != nil {
				t.Fatal(err)
			}
			if _, err := p.DB().Exec(`UPDATE state_record SET data = ?`, damage(data)); err != nil {
				t.Fatal(err)
			}
			if p.ReadStateRecord(context.Background()) != nil {
				t.Fatal("the record was read")
			}
			if st := catchUp(t, p); st.Entries != 0 || st.Removed != 0 {
				t.Fatalf("catch-up with nothing new: %+v", st)
			}
			if p.ReadStateRecord(context.Background()) == nil {
				t.Error("a catch-up that found nothing new kept the record")
			}
		})
	}
}

// settleWithRecord settles the workspace's folders and catches up until
// the index holds a state record: a catch-up then needs no pass.
func settleWithRecord(t *testing.T, ws *tapelog.Workspace, p *Projector) {
	t.Helper()
	var s settler
	s.settle(ws)
	catchUp(t, p)
	catchUp(t, p) // finds nothing new, and writes the record
	if p.ReadStateRecord(context.Background()) == nil {
		t.Fatal("no state record after two catch-ups of settled folders")
	}
}
