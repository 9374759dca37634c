package log

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/fileutil"
)

// importLock is the workspace's import lock file.
const importLock = "import.lock"

// LockImports takes the workspace's import lock, waiting for it until ctx
// is done, and returns what releases it. One import (or follower pass) at
// a time, of any source: each reads what the tapes and its checkpoints
// hold, then appends what they lack, and two at once would both append it.
func (w *Workspace) LockImports(ctx context.Context) (unlock func(), err error) {
	lock, err := w.OpenPrivate(importLock)
	if err != nil {
		return nil, err
	}
	if err := fileutil.LockContext(ctx, lock); err != nil {
		lock.Close()
		return nil, fmt.Errorf("wait for another tape import: %w", err)
	}
	return func() { lock.Close() }, nil // closing releases the lock
}

// HandoffEntry starts the next phase of the tape with an anchor entry made
// elsewhere, as an import copies it: its id, payload, meta and date are kept
// (an empty id or date is assigned as Handoff assigns them). The payload must
// hold a string "name", a valid anchor name; its state must be an object
// when present. Unlike Handoff, a tape that does not exist yet gets this
// anchor as its first one, with no bootstrap anchor before it.
func (t *Tape) HandoffEntry(ctx context.Context, e Entry) (Anchor, error) {
	return t.handoffEntry(ctx, e, true)
}

// HandoffRecorded is HandoffEntry for an anchor recorded elsewhere without
// a date: it is written without one, as AppendRecorded writes entries,
// where HandoffEntry would stamp it with the time of the write. (An
// import then writes the same anchor today and next year.)
func (t *Tape) HandoffRecorded(ctx context.Context, e Entry) (Anchor, error) {
	return t.handoffEntry(ctx, e, false)
}

func (t *Tape) handoffEntry(ctx context.Context, e Entry, stamp bool) (Anchor, error) {
	if err := ctx.Err(); err != nil {
		return Anchor{}, err
	}
	name, f, err := t.prepareAnchor(e, stamp)
	if err != nil {
		return Anchor{}, err
	}
	var a Anchor
	err = t.withFoldersLock(ctx, func() error {
		var err error
		a, err = t.createAnchorEntryLocked(name, f)
		return err
	})
	return a, err
}

// prepareAnchor checks an anchor entry made elsewhere and returns its
// name and the anchor.json it makes.
func (t *Tape) prepareAnchor(e Entry, stamp bool) (string, lineFields, error) {
	limit := t.ws.config.MaxEntryBytes
	payload, err := normalizeObject(e.Payload, "payload", limit)
	if err != nil {
		return "", lineFields{}, err
	}
	name, state, reason := anchorFields(payload)
	if reason != "" {
		return "", lineFields{}, fmt.Errorf("%w: %s", ErrInvalid, reason)
	}
	if err := ValidateAnchorName(name); err != nil {
		return "", lineFields{}, err
	}
	if _, err := normalizeObject(state, "state", limit); err != nil {
		return "", lineFields{}, err
	}
	meta, err := normalizeObject(e.Meta, "meta", limit)
	if err != nil {
		return "", lineFields{}, err
	}
	f, err := t.anchorLine(e, payload, meta, stamp)
	return name, f, err
}

// anchorLine is the anchor.json of an imported anchor entry.
func (t *Tape) anchorLine(e Entry, payload, meta []byte, stamp bool) (lineFields, error) {
	id, now := t.ws.ids.next(time.Now())
	if e.ID != "" {
		if !utf8.ValidString(e.ID) {
			return lineFields{}, fmt.Errorf("%w: id is not valid UTF-8", ErrInvalid)
		}
		id = e.ID
	}
	date := FormatTime(now)
	if !stamp {
		date = ""
	}
	if e.Date != "" {
		if _, err := ParseTime(e.Date); err != nil {
			return lineFields{}, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		date = e.Date
	}
	return lineFields{ID: id, Kind: KindAnchor, Payload: payload, Meta: meta, Date: date}, nil
}

// Refused reports whether err is a tape's refusal of one entry (not a
// JSON object, over max_entry_bytes, an anchor name it does not take),
// which an importer reports and goes past, rather than a failure to write.
func Refused(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrBadName)
}

// AppendRecordedEach appends entries recorded elsewhere as AppendRecorded
// does, but an entry the tape refuses is handed to refused (with its
// index in entries) and left out, and the others are written. It returns
// how many were written; an error of refused, or a failure to write,
// ends it.
func (t *Tape) AppendRecordedEach(ctx context.Context, entries []Entry, refused func(i int, err error) error) (int, error) {
	batch := slices.Clone(entries)
	index := make([]int, len(entries)) // where each entry of batch is in entries
	for i := range index {
		index[i] = i
	}
	for len(batch) > 0 {
		_, err := t.AppendRecorded(ctx, batch...)
		var ee *EntryError
		if !errors.As(err, &ee) {
			if err != nil {
				return 0, err
			}
			return len(batch), nil
		}
		if err := refused(index[ee.Index], ee.Err); err != nil {
			return 0, err
		}
		batch = slices.Delete(batch, ee.Index, ee.Index+1)
		index = slices.Delete(index, ee.Index, ee.Index+1)
	}
	return 0, nil
}
