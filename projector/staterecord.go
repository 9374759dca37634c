package projector

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/tape-dev/tape/internal/fts5"
	tapelog "github.com/tape-dev/tape/log"
)

// The state record: what a pass compares the files with, in one row.
//
// A catch-up that finds nothing to do still loaded, row by row, the
// identities and signature of every anchor folder (loadState) before its
// first stat: at 1M entries in 1,001 folders, 2.5–4 ms, on a connection of
// its own that took 1.5 ms to open, under the index lock. So a full pass
// that finds nothing to do writes that state as one record (state_record),
// unless the record is that state already; any pass that changes the
// index deletes it, in the same
// transaction. The record is thus always the state loadState would
// return, or absent (TestStateRecordIsTheState checks after every pass of
// random changes).
//
// Writing the record in every pass that changes the index, from the rows
// read back, made a search right after an append 42 ms instead of 30 at
// 1M entries: an agent that appends and searches in turn would pay it
// every time and never use it. Deleted instead, the record is written by
// the first pass that finds nothing new, which then commits once though
// it changed no row (a reader beside it runs its query again).
//
// A reader reads the record with the connection of its query and walks the
// files against it as a pass would: the walker's own code, in dry mode,
// which stops at the first op it would send (unchangedSince), newest
// folders first. Only if something changed, or there is no record, does it
// open a connection, take the lock and run a pass, which loads the state
// from the rows as before.

// StateRecord is the index's record of the files as its last full pass
// left them: ReadStateRecord reads it, CatchUpBeside compares the files
// with it.
type StateRecord struct{ st state }

// stateRecordVersion starts an encoded record; a record of another
// version is ignored, as if there were none, and replaced by the next
// full pass that finds nothing new (keepStateRecord).
const stateRecordVersion = 3

// ReadStateRecord reads the state record with DB's connection; nil if
// there is none, or it cannot be read (a pass then finds out for itself).
func (p *Projector) ReadStateRecord(ctx context.Context) *StateRecord {
	if p.db == nil {
		return nil
	}
	if buildsLeft(p.ws) {
		return nil // a pass, under the lock, removes them (or a rebuild is running)
	}
	// Only from an index of this schema: an older tape that rebuilt it in
	// place would have left the table, and the record, as they were.
	// Into a string, which database/sql copies the driver's bytes to once,
	// as decodeState wants them: the record of 1,001 folders is 98 KB.
	var data string
	if err := p.db.QueryRowContext(ctx, `SELECT data FROM state_record
		WHERE (SELECT value FROM meta WHERE key = 'schema_version') = ?`, strconv.Itoa(SchemaVersion)).Scan(&data); err != nil {
		return nil
	}
	st, ok := decodeState(data)
	if !ok {
		return nil
	}
	st.index()
	return &StateRecord{st: st}
}

// buildsLeft reports whether scratch builds of the search index are there:
// left by a killed pass, which only a pass under the lock may remove
// (fts5.RemoveBuilds), or a rebuild's, running.
func buildsLeft(ws *tapelog.Workspace) bool {
	return len(fts5.BuildsLeft(ws.Dir())) > 0
}

// unchangedFrom reports whether the files are as rec says (nil: no
// record, and no answer), with what the dry walk looked at.
func (p *Projector) unchangedFrom(ctx context.Context, rec *StateRecord) (Stats, bool) {
	if rec == nil || p.replaced() {
		return Stats{}, false
	}
	stats, same, err := p.unchangedSince(ctx, rec.st)
	return stats, err == nil && same
}

// errChanged stops a dry walk at the first op it would send.
var errChanged = errors.New("the files changed")

// unchangedSince reports whether a pass that starts from st would find
// nothing to do: whether the files are as st says, to the walker.
func (p *Projector) unchangedSince(ctx context.Context, st state) (Stats, bool, error) {
	var stats Stats
	w := &walker{ws: p.ws, st: st, stats: &stats, dry: true}
	switch err := w.walk(ctx); {
	case errors.Is(err, errChanged):
		return stats, false, nil
	case err != nil:
		return stats, false, err
	}
	return stats, true, nil
}

// keepStateRecord keeps the state record true to the rows a pass leaves:
// a pass that changed them deletes it; a full pass that found nothing new
// writes st, the state it loaded, unless the record is st already. A
// scoped pass that changed nothing leaves it: it did not look at every
// folder.
func keepStateRecord(ctx context.Context, tx sqlTx, st state, scoped, changed bool) error {
	switch {
	case changed:
		if _, err := tx.ExecContext(ctx, `DELETE FROM state_record`); err != nil {
			return fmt.Errorf("delete state record: %w", err)
		}
		return nil
	case scoped:
		return nil
	}
	// A record that is the state is kept: a pass that finds nothing new
	// writes nothing. Any other (of another version, left by another build
	// of tape on an index of the same schema; or damaged) is one no reader
	// can use, and would never be replaced otherwise.
	data := encodeState(st)
	var kept []byte
	err := tx.QueryRowContext(ctx, `SELECT data FROM state_record`).Scan(&kept)
	switch {
	case err == nil && bytes.Equal(kept, data):
		return nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("read state record: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO state_record (id, data) VALUES (1, ?)`, data); err != nil {
		return fmt.Errorf("write state record: %w", err)
	}
	return nil
}

// encodeState encodes what loadState loads: the tapes, every folder's
// mark, what could not be read, and the tapes' listings, in the order of
// their keys. Numbers are varints; strings, a uvarint length and the
// bytes. The folders' tapes and the names of their files are strings of
// a table, written once and referred to by their index; a folder's
// signature is written as the names it lists and its sum (see
// folderMark), or, if this version cannot read it, as it is.
func encodeState(st state) []byte {
	b := binary.AppendUvarint(nil, stateRecordVersion)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(st.tapes)))
	for _, tape := range slices.Sorted(maps.Keys(st.tapes)) {
		str(tape)
	}
	keys := slices.SortedFunc(maps.Keys(st.folders), compareKeys)
	var table []string
	index := map[string]int{}
	intern := func(s string) {
		if _, ok := index[s]; !ok {
			index[s] = len(table)
			table = append(table, s)
		}
	}
	marks := make([]folderMark, len(keys))
	for i, k := range keys {
		marks[i] = st.folders[k].summedIfReadable()
		intern(k.tape)
		for _, name := range marks[i].names {
			intern(name)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(table)))
	for _, s := range table {
		str(s)
	}
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for i, k := range keys {
		m := marks[i]
		b = binary.AppendUvarint(b, uint64(index[k.tape]))
		str(k.folder)
		for _, n := range []int64{m.seq, m.size, m.mtimeNS, int64(m.ino), m.listing.mtimeNS, m.listing.ctimeNS, m.listing.listedNS, int64(m.listing.ino)} {
			b = binary.AppendVarint(b, n)
		}
		switch {
		case m.summed:
			b = append(b, sigSummed)
			b = binary.AppendUvarint(b, uint64(len(m.names)))
			for _, name := range m.names {
				b = binary.AppendUvarint(b, uint64(index[name]))
			}
			b = append(b, m.sum[:]...)
		default:
			b = append(b, sigText)
			str(m.sig)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(st.unreadable)))
	for _, k := range slices.SortedFunc(maps.Keys(st.unreadable), compareKeys) {
		str(k.tape)
		str(k.folder)
		str(k.name)
		str(st.unreadable[k])
	}
	b = binary.AppendUvarint(b, uint64(len(st.tapeListings)))
	for _, tape := range slices.Sorted(maps.Keys(st.tapeListings)) {
		l := st.tapeListings[tape]
		str(tape)
		for _, n := range []int64{l.listing.mtimeNS, l.listing.ctimeNS, l.listing.listedNS, int64(l.listing.ino)} {
			b = binary.AppendVarint(b, n)
		}
		str(l.folders)
	}
	return b
}

// How a record writes a folder's signature.
const (
	sigText   = 0 // as it is
	sigSummed = 1 // as the names it lists and its sum
)

// summedIfReadable is m with its signature as names and a sum, unless
// this version cannot read it, or it lists no file.
func (m folderMark) summedIfReadable() folderMark {
	if m.summed || m.sig == "" {
		return m
	}
	names, ok := m.fileNames()
	if !ok {
		return m
	}
	m.names, m.sum, m.summed, m.sig = names, sumSig([]byte(m.sig)), true, ""
	return m
}

// decodeState decodes a record encodeState wrote; ok is false if data is
// not one, of this version.
func decodeState(data string) (st state, ok bool) {
	d := recordDecoder{s: data} // the strings below share it
	if d.uvarint() != stateRecordVersion {
		return state{}, false
	}
	n := d.count()
	st.tapes = make(map[string]bool, n)
	for range n {
		st.tapes[d.str()] = true
	}
	table := make([]string, d.count())
	for i := range table {
		table[i] = d.str()
	}
	n = d.count()
	st.folders = make(map[fileKey]folderMark, n)
	var names []string // the names of every folder's files, sliced per folder
	for range n {
		k := fileKey{tape: d.string(table), folder: d.str()}
		var m folderMark
		m.seq, m.size, m.mtimeNS = d.varint(), d.varint(), d.varint()
		m.ino = uint64(d.varint())
		m.listing.mtimeNS, m.listing.ctimeNS, m.listing.listedNS = d.varint(), d.varint(), d.varint()
		m.listing.ino = uint64(d.varint())
		switch d.byte() {
		case sigSummed:
			count := d.count()
			for range count {
				names = append(names, d.string(table))
			}
			m.names = names[len(names)-count : len(names) : len(names)]
			copy(m.sum[:], d.bytes(len(m.sum)))
			m.summed = true
		case sigText:
			m.sig = d.str()
		default:
			d.bad = true
		}
		st.folders[k] = m
	}
	n = d.count()
	st.unreadable = make(map[fileKey]string, n)
	for range n {
		k := fileKey{tape: d.str(), folder: d.str(), name: d.str()}
		st.unreadable[k] = d.str()
	}
	n = d.count()
	st.tapeListings = make(map[string]tapeListing, n)
	for range n {
		tape := d.str()
		var l tapeListing
		l.listing.mtimeNS, l.listing.ctimeNS, l.listing.listedNS = d.varint(), d.varint(), d.varint()
		l.listing.ino = uint64(d.varint())
		l.folders = d.str()
		st.tapeListings[tape] = l
	}
	st.files = map[fileKey]checkpoint{}
	return st, !d.bad && d.s == ""
}

// recordDecoder reads a record from s; bad says it ran past its end or
// read a malformed number, after which it reads zeros.
type recordDecoder struct {
	s   string
	bad bool
}

func (d *recordDecoder) uvarint() uint64 {
	var x uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break // past 64 bits, as binary.Uvarint refuses
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.s = d.s[i+1:]
			return x
		}
	}
	d.bad, d.s = true, ""
	return 0
}

func (d *recordDecoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1) // zigzag, as binary.AppendVarint
}

// count reads a count, bounded by what is left (each item takes a byte at
// least), so a corrupt one cannot make a huge map.
func (d *recordDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		d.bad, d.s = true, ""
		return 0
	}
	return int(n)
}

func (d *recordDecoder) byte() byte {
	if d.s == "" {
		d.bad = true
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

// bytes reads n bytes.
func (d *recordDecoder) bytes(n int) string {
	if n > len(d.s) {
		d.bad, d.s = true, ""
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

// string reads an index into table, and returns its string.
func (d *recordDecoder) string(table []string) string {
	i := d.uvarint()
	if i >= uint64(len(table)) {
		d.bad, d.s = true, ""
		return ""
	}
	return table[i]
}

func (d *recordDecoder) str() string {
	n := d.count()
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}
