package remote

import (
	"context"
	"errors"
	"io"
	"time"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/views"
)

// Reading the lines the server lacks from the files, as rows.

// syncAnchor writes an anchor folder that is new, or whose anchor.json
// changed: its anchors row and its anchor entry, in place of the old.
func (s *syncer) syncAnchor(ctx context.Context, af projector.AnchorFolder) error {
	t, err := s.tape(af.Tape)
	if err != nil {
		return err
	}
	a, raw, err := t.ReadAnchorRaw(af.Folder)
	if err != nil {
		return err
	}
	a, raw = s.redactAnchor(a, raw)
	k := folderKey{af.Tape, af.Folder}
	b := s.batch
	b.removals = append(b.removals, removal{table: "anchors", tape: k.tape, folder: k.folder},
		removal{table: "entries", tape: k.tape, folder: k.folder, file: tapelog.AnchorFile},
		removal{table: "bad_lines", tape: k.tape, folder: k.folder, file: tapelog.AnchorFile})
	var state any
	if a.State != nil {
		state = string(a.State)
	}
	b.anchors = append(b.anchors, []any{s.wsID, af.Tape, af.Folder, af.Seq, pgText(a.Name), state, af.Stamp})
	row := projector.AnchorRow(a, raw != nil)
	var rawCol any
	if raw != nil {
		rawCol = raw
	}
	if !a.Unanchored { // a folder of entries before the first anchor has no anchor entry
		b.entries = append(b.entries, s.entryRow(af.Tape, a.Entry.ID, a.Entry.Kind, row, rawCol))
	}
	if a.Err != nil && raw != nil {
		b.bad = append(b.bad, []any{s.wsID, af.Tape, af.Folder, tapelog.AnchorFile, int32(1), int64(0), pgText(a.Err.Reason), raw})
	}
	b.mark(af.Tape, row.Place)
	b.bytes += len(raw)
	return s.commitIfFull(ctx)
}

// syncFile writes the lines of a file the server lacks: from its
// checkpoint when the file can only have grown since (projector's
// FileRead.Grew, and the checkpoint's fingerprint), else from its start,
// its old rows removed in the transaction of its new checkpoint; up to
// where the local index has read it, and no further.
func (s *syncer) syncFile(ctx context.Context, k fileKey, local projector.FileRead, server *checkpoint) error {
	t, err := s.tape(k.Tape)
	if err != nil {
		return err
	}
	from := tapelog.FilePos{}
	if server != nil && local.Grew(projector.FileRead{Offset: server.pos.Offset, Stamp: server.stamp}) {
		from = server.pos
	}
	if local.Offset == 0 { // nothing the index has read: an empty file, or a first line in progress
		s.readAgain(k, server, from)
		s.batch.files[k] = checkpoint{stamp: local.Stamp}
		return s.commitIfFull(ctx)
	}
	a := tapelog.Anchor{Folder: k.Folder}
	a.Seq, a.Name, _ = tapelog.ParseFolderName(k.Folder)
	sc, err := t.ScanFileWith(&s.buf, a, k.Name, from)
	if err != nil && from.Offset > 0 { // changed under the checkpoint, or shorter than it
		from = tapelog.FilePos{}
		sc, err = t.ScanFileWith(&s.buf, a, k.Name, from)
	}
	s.readAgain(k, server, from)
	if err != nil {
		var le *tapelog.LineError
		if errors.As(err, &le) {
			s.skipped = true
			return nil // gone or unreadable since the index read it: the next sync sees what the index then says
		}
		return err
	}
	defer sc.Close()
	sc.StopAt(local.Offset)
	s.stats.Files++
	for {
		e, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *tapelog.LineError
		switch {
		case errors.As(err, &le) && le.Err != nil:
			// The file could not be read on: what was read is kept, up
			// to its checkpoint, and the next sync tries again.
			s.skipped = true
			return s.checkpoint(k, sc, local.Stamp)
		case errors.As(err, &le):
			s.addBad(k, le, sc.Raw())
		case err != nil:
			return err
		default:
			s.addEntry(e, sc.Raw())
		}
		if s.full() {
			if err := s.checkpoint(k, sc, local.Stamp); err != nil {
				return err
			}
			if err := s.commit(ctx); err != nil {
				return err
			}
		}
	}
	return s.checkpoint(k, sc, local.Stamp)
}

// readAgain removes the file's rows from the server when it is read from
// its start, and marks its tape from the start: in the batch that writes
// its new checkpoint (a zero one, until a line is read), so that the
// server never holds a checkpoint without the rows before it.
func (s *syncer) readAgain(k fileKey, server *checkpoint, from tapelog.FilePos) {
	if server == nil || from.Offset != 0 || server.pos.Offset == 0 {
		return
	}
	s.batch.mark(k.Tape, views.TapeStart)
	s.batch.removals = append(s.batch.removals, fileRemovals(k)...)
	s.batch.files[k] = checkpoint{} // no stamp: the next sync looks at it again
}

func (s *syncer) checkpoint(k fileKey, sc *tapelog.FileScanner, stamp string) error {
	pos, err := sc.Pos()
	if err != nil {
		return err
	}
	s.batch.files[k] = checkpoint{pos: pos, stamp: stamp}
	return nil
}

func (s *syncer) addEntry(e tapelog.Entry, raw []byte) {
	e, raw = s.redactEntry(e, raw)
	row := projector.EntryRow(e)
	line := append([]byte(nil), raw...)
	b := s.batch
	b.entries = append(b.entries, s.entryRow(e.Pos.Tape, e.ID, e.Kind, row, line))
	if r := row.Facts.Run; r != nil {
		var usageID any
		if r.UsageID != "" {
			usageID = pgText(r.UsageID)
			b.usageIDs[pgText(r.UsageID)] = true
		}
		b.runs = append(b.runs, []any{s.wsID, e.Pos.Tape, e.Pos.Folder, e.Pos.File, int32(e.Pos.Line), row.Place.Seq, row.Place.Eff, timeOf(row.TimeNS),
			pgText(r.Status), pgText(r.Model), r.Usage, r.In, r.Out, r.CacheCreation, r.CacheRead, r.Total, usageID, r.BadUsage, r.Copy})
	}
	b.mark(e.Pos.Tape, row.Place)
	b.bytes += len(raw)
}

func (s *syncer) entryRow(tape, id, kind string, row projector.Row, raw any) []any {
	p := row.Place
	return []any{s.wsID, tape, p.Folder, p.File, int32(p.Line), pgText(id), pgText(kind), p.Seq, p.Eff, timeOf(row.TimeNS), raw, searchVector(row.Text, row.Parts)}
}

func (s *syncer) addBad(k fileKey, le *tapelog.LineError, raw []byte) {
	var rawCol any
	if raw != nil {
		rawCol = append([]byte(nil), s.redactText(raw)...)
	}
	s.batch.bad = append(s.batch.bad, []any{s.wsID, k.Tape, k.Folder, k.Name, int32(le.Line), le.Offset, pgText(le.Reason), rawCol})
	s.batch.bytes += len(raw)
}

// timeOf is a time in nanoseconds as a timestamptz: nil for none, and
// for the earliest effective time, which stands for none.
func timeOf(ns *int64) any {
	if ns == nil || *ns == projector.EffTime(time.Time{}) {
		return nil
	}
	return time.Unix(0, *ns).UTC()
}
