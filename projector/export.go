package projector

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/searchlang"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
)

// What a second projection of the tapes (the team index on PostgreSQL,
// package remote) takes from this one: how far the index has read each
// file and which anchor.json it read, to tell what changed without
// walking the files again; and what the index takes of an entry (its
// place, time, search text and facts) by the rules it takes them by, so
// that both projections agree on them. Package fresh measures the lag and
// the drift with the first two as well.

// FileRead is how far the index has read a tape file.
type FileRead struct {
	Offset int64 // the end of the last complete line read
	// Stamp tells the file read apart from another, or from itself
	// changed: its size, modification time, inode and device then.
	Stamp string
}

// Grew reports whether the file the index read as f can only have grown
// since it was read as was, by the rule the index goes on from its own
// checkpoints by (walk.go): the same file (device and inode), not shorter,
// and not the same size with a new modification time (an edit in place,
// which a checkpoint's fingerprint misses in the middle of the file).
// Otherwise it must be read again from its start.
func (f FileRead) Grew(was FileRead) bool {
	now, ok1 := parseStamp(f.Stamp)
	old, ok2 := parseStamp(was.Stamp)
	if !ok1 || !ok2 || now.dev != old.dev || now.ino != old.ino || f.Offset < was.Offset {
		return false
	}
	return now.size > old.size || now.size == old.size && now.mtimeNS == old.mtimeNS
}

type fileStamp struct{ size, mtimeNS, ino, dev int64 }

// parseStamp reads a FileRead's Stamp: size/mtime/inode/device.
func parseStamp(s string) (fileStamp, bool) {
	var st fileStamp
	fields := strings.Split(s, "/")
	if len(fields) != 4 {
		return st, false
	}
	for i, p := range []*int64{&st.size, &st.mtimeNS, &st.ino, &st.dev} {
		v, err := strconv.ParseInt(fields[i], 10, 64)
		if err != nil {
			return st, false
		}
		*p = v
	}
	return st, true
}

// EachFileRead calls fn with how far the index has read each tape file,
// by tape, folder and name (byte order), and stops at its first error.
func (p *Projector) EachFileRead(ctx context.Context, fn func(tapelog.FileKey, FileRead) error) error {
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder, name, offset, size || '/' || mtime_ns || '/' || ino || '/' || dev FROM files ORDER BY tape, folder, name`)
	if err != nil {
		return fmt.Errorf("query checkpoints: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k tapelog.FileKey
		var f FileRead
		if err := rows.Scan(&k.Tape, &k.Folder, &k.Name, &f.Offset, &f.Stamp); err != nil {
			return fmt.Errorf("query checkpoints: %w", err)
		}
		if err := fn(k, f); err != nil {
			return err
		}
	}
	return rows.Err()
}

// AnchorFolder is an anchor folder as the index last read it.
type AnchorFolder struct {
	Tape, Folder string
	Seq          int64
	// Stamp tells the anchor.json read apart from another: its size,
	// modification time and inode ("-1/0/0" for a folder without one).
	Stamp string
}

// AnchorFolders returns every anchor folder of the index, by tape and
// folder.
func (p *Projector) AnchorFolders(ctx context.Context) ([]AnchorFolder, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT tape, folder, seq, size || '/' || mtime_ns || '/' || ino FROM anchors ORDER BY tape, folder`)
	if err != nil {
		return nil, fmt.Errorf("query anchors: %w", err)
	}
	defer rows.Close()
	var out []AnchorFolder
	for rows.Next() {
		var a AnchorFolder
		if err := rows.Scan(&a.Tape, &a.Folder, &a.Seq, &a.Stamp); err != nil {
			return nil, fmt.Errorf("query anchors: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Row is what the index takes of an entry besides its bytes.
type Row struct {
	Place  views.Place // its place in tape order
	TimeNS *int64      // the time --since and --until compare; nil for none
	Text   string      // its search text (SearchText)
	Parts  string      // the parts of the camelCase names in it (searchlang.IdentifierParts)
	Facts  views.Facts
}

// EntryRow is what the index takes of an entry read from a tape file.
func EntryRow(e tapelog.Entry) Row {
	text, facts := views.TextAndFacts(e)
	eff := effTime(e.Pos.Time)
	return Row{Place: views.Place{Seq: e.Pos.AnchorSeq, Folder: e.Pos.Folder, Eff: eff, File: e.Pos.File, Line: e.Pos.Line},
		TimeNS: &eff, Text: text, Parts: searchlang.IdentifierParts(text), Facts: facts}
}

// AnchorRow is what the index takes of an anchor's entry; hasFile says
// that its folder has an anchor.json, readable or not (line 1; line 0
// for none).
func AnchorRow(a tapelog.Anchor, hasFile bool) Row {
	text := views.SearchText(a.Entry)
	var date *string
	if a.Entry.Date != "" {
		date = &a.Entry.Date
	}
	line := 0
	if hasFile {
		line = 1
	}
	return Row{Place: views.Place{Seq: a.Seq, Folder: a.Folder, Eff: anchorEffTime, File: tapelog.AnchorFile, Line: line},
		TimeNS: anchorTime(date), Text: text, Parts: searchlang.IdentifierParts(text)}
}

// EffTime is a file's effective time as the index keeps it in a place
// and a checkpoint: nanoseconds, the earliest for none, a date beyond
// what nanoseconds hold taken as the nearest end.
func EffTime(t time.Time) int64 { return effTime(t) }

// TimeOfEff reads an effective time kept by EffTime back as a
// log.FilePos's Time, which gives the lines after it the same places.
func TimeOfEff(eff int64) time.Time {
	if eff == noDateEffTime {
		return time.Time{}
	}
	return time.Unix(0, eff).UTC()
}
