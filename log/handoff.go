package log

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tape-dev/tape/internal/fileutil"
	"github.com/tape-dev/tape/internal/rawjson"
)

// The bootstrap anchor that opens every new tape, as Bub writes it.
const (
	BootstrapName  = "session/start"
	bootstrapState = `{"owner":"human"}`
)

// MaxAnchorNameBytes bounds an anchor's full name (its slug is shorter).
const MaxAnchorNameBytes = 1024

// ValidateAnchorName reports whether name can name an anchor. Anchor names
// are free text ("session/start", "审查") and only their slug reaches the file
// system, but they must be non-empty UTF-8 without control characters, so
// that they print on one line.
func ValidateAnchorName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: anchor name %q %s", ErrBadName, name, why)
	}
	switch {
	case name == "":
		return bad("is empty")
	case len(name) > MaxAnchorNameBytes:
		return bad(fmt.Sprintf("is longer than %d bytes", MaxAnchorNameBytes))
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return bad("contains a control character")
		}
	}
	return nil
}

// Handoff ends the tape's current phase and starts the next: it creates the
// next anchor folder with its anchor.json and returns the new anchor. Later
// appends go into it. state must be a JSON object, or nil for {}. A tape that
// does not exist yet is created with its bootstrap anchor first.
//
// The folder is built under a temporary name, fsynced, renamed into place
// and its parent fsynced, whatever the Sync setting, so readers never see an
// anchor folder without its anchor.json and a returned handoff survives a
// crash. Handoffs hold the tape's lock (flock of the tape folder), so two
// processes handing off at once get different seqs.
func (t *Tape) Handoff(ctx context.Context, name string, state json.RawMessage) (Anchor, error) {
	if err := ctx.Err(); err != nil {
		return Anchor{}, err
	}
	if err := ValidateAnchorName(name); err != nil {
		return Anchor{}, err
	}
	state, err := normalizeObject(state, "state", t.ws.config.MaxEntryBytes)
	if err != nil {
		return Anchor{}, err
	}
	var a Anchor
	err = t.withFoldersLock(ctx, func() error {
		if _, err := t.ensureLocked(); err != nil {
			return err
		}
		var err error
		a, err = t.createAnchorLocked(name, state)
		return err
	})
	return a, err
}

// withFoldersLock runs fn, which adds anchor folders, under the tape's
// lock, then drops the append cache: the next append goes to the newest
// folder, which fn may have made.
func (t *Tape) withFoldersLock(ctx context.Context, fn func() error) error {
	err := t.withLock(ctx, fn)
	if err == nil {
		t.mu.Lock()
		t.forgetLocked()
		t.mu.Unlock()
	}
	return err
}

// ensure creates the tape, with its bootstrap anchor, if it has no anchor
// folder yet. It reports whether it created one.
func (t *Tape) ensure(ctx context.Context) (bool, error) {
	var made bool
	err := t.withLock(ctx, func() error {
		var err error
		made, err = t.ensureLocked()
		return err
	})
	return made, err
}

func (t *Tape) ensureLocked() (bool, error) {
	refs, err := t.listFolders()
	if err != nil || len(refs) > 0 {
		return false, err
	}
	_, err = t.createAnchorLocked(BootstrapName, json.RawMessage(bootstrapState))
	return err == nil, err
}

// withLock runs fn holding the tape's lock: an exclusive flock of the tape
// folder, which it creates (with its anchors folder) if needed. The same
// lock is taken by `flock .tape/tapes/<tape> CMD` in a shell.
func (t *Tape) withLock(ctx context.Context, fn func() error) error {
	if err := t.notSymlink(); err != nil {
		return err
	}
	if err := t.ws.mkdirAll(t.anchorsPath()); err != nil {
		return err
	}
	d, err := t.ws.root.Open(t.dir)
	if err != nil {
		return fmt.Errorf("open tape %s: %w", t.name, err)
	}
	defer d.Close()
	if err := fileutil.LockContext(ctx, d); err != nil {
		return fmt.Errorf("lock tape %s: %w", t.name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	defer fileutil.Unlock(d) //nolint:errcheck // closing d releases the lock anyway
	return fn()
}

// createAnchorLocked makes the next anchor folder. The caller holds the
// tape's lock, so no other tape process picks the same seq; a folder made by
// hand under the same name makes it try the next seq.
func (t *Tape) createAnchorLocked(name string, state json.RawMessage) (Anchor, error) {
	id, now := t.ws.ids.next(time.Now())
	return t.createAnchorEntryLocked(name, lineFields{ID: id, Kind: KindAnchor, Payload: anchorPayload(name, state), Meta: jsonEmptyObject, Date: FormatTime(now)})
}

// createAnchorEntryLocked makes the next anchor folder, named for name, with
// f as its anchor.json. The caller holds the tape's lock.
func (t *Tape) createAnchorEntryLocked(name string, f lineFields) (Anchor, error) {
	refs, err := t.listFolders()
	if err != nil {
		return Anchor{}, err
	}
	seq := int64(1)
	if len(refs) > 0 {
		seq = refs[len(refs)-1].seq + 1
	}
	line, err := encodeLine(f)
	if err != nil {
		return Anchor{}, err
	}
	return t.placeAnchorLocked(seq, name, line)
}

// placeAnchorLocked makes the anchor folder for name, at seq or the first
// free seq after it, holding line as its anchor.json. The caller holds the
// tape's lock.
func (t *Tape) placeAnchorLocked(seq int64, name string, line []byte) (Anchor, error) {
	root := t.ws.root
	t.removeDeadTempsLocked()
	tmp := fileutil.TempName(t.anchorsPath())
	if err := root.Mkdir(tmp, dirPerm); err != nil {
		return Anchor{}, fmt.Errorf("create anchor folder: %w", err)
	}
	if err := fileutil.WriteNew(root, path.Join(tmp, AnchorFile), line, filePerm, !t.ws.deferring()); err != nil {
		_ = root.RemoveAll(tmp)
		return Anchor{}, fmt.Errorf("create anchor: %w", err)
	}
	if err := t.ws.syncDir(tmp); err != nil {
		_ = root.RemoveAll(tmp)
		return Anchor{}, err
	}
	for ; ; seq++ {
		folder := FolderName(seq, name)
		if got, _, ok := ParseFolderName(folder); !ok || got != seq {
			_ = root.RemoveAll(tmp)
			return Anchor{}, fmt.Errorf("log: tape %s has no seq left after %d; start a new tape", t.name, seq-1)
		}
		if _, err := root.Lstat(t.folderPath(folder)); err == nil {
			continue // made by hand under our lock's nose: take the next seq
		} else if !errors.Is(err, fs.ErrNotExist) {
			_ = root.RemoveAll(tmp)
			return Anchor{}, fmt.Errorf("create anchor: %w", err)
		}
		if err := root.Rename(tmp, t.folderPath(folder)); err != nil {
			_ = root.RemoveAll(tmp)
			return Anchor{}, fmt.Errorf("create anchor folder %s: %w", folder, err)
		}
		if err := t.ws.syncDir(t.anchorsPath()); err != nil {
			return Anchor{}, err
		}
		return t.readAnchor(folderRef{seq: seq, folder: folder}), nil
	}
}

// removeDeadTempsLocked removes the temporary folders (.tmp-…) of the
// anchors folder, which only a holder of the tape's lock makes (a handoff
// builds its folder there, by tape or by a script that follows
// docs/FORMAT.md; WriteFolder builds in the tape's folder instead). The
// caller holds the lock, so no handoff is under way: each was left by one
// that was killed, and nothing else would ever remove it. It is best
// effort: one that stays is reported by tape doctor.
func (t *Tape) removeDeadTempsLocked() {
	dirents, err := t.ws.readDir(t.anchorsPath())
	if err != nil {
		return
	}
	for _, d := range dirents {
		if strings.HasPrefix(d.Name(), fileutil.TempPrefix) {
			_ = t.ws.root.RemoveAll(path.Join(t.anchorsPath(), d.Name()))
		}
	}
}

// normalizeObject checks that raw is one JSON object of valid UTF-8 and
// returns it compacted onto one line; nil becomes {}.
func normalizeObject(raw json.RawMessage, what string, limit int64) (json.RawMessage, error) {
	if raw == nil {
		return jsonEmptyObject, nil
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the limit of %d (max_entry_bytes in config.json)", ErrTooLarge, what, len(raw), limit)
	}
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, what)
	}
	if rawjson.IsCompactObject(raw) {
		return raw, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("%w: %s is not valid JSON: %v", ErrInvalid, what, err)
	}
	if b := buf.Bytes(); len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("%w: %s must be a JSON object, like {\"key\": \"value\"}", ErrInvalid, what)
	}
	return buf.Bytes(), nil
}

// Errors of entries refused by Append and Handoff.
var (
	ErrInvalid  = errors.New("log: invalid entry")
	ErrTooLarge = errors.New("log: entry too large")
)

// Errors of WithSummary, each an ErrInvalid.
var (
	ErrStateNotObject = fmt.Errorf("%w: state must be a JSON object", ErrInvalid)
	ErrSummaryTwice   = fmt.Errorf(`%w: summary and a "summary" key in state both set the summary`, ErrInvalid)
)

// WithSummary is a handoff's state with a summary of the phase that ends
// stored as its "summary" key, as agents read it: state (a JSON object,
// or empty for {}) as it is when summary is "", the key order kept. It
// refuses a state that is not an object (ErrStateNotObject) and one that
// has a summary already (ErrSummaryTwice). Every front end that takes a
// summary beside a state (tape handoff --summary, the MCP handoff tool)
// builds it here.
func WithSummary(state json.RawMessage, summary string) (json.RawMessage, error) {
	if len(state) == 0 && summary == "" {
		return nil, nil
	}
	fields := map[string]json.RawMessage{}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &fields); err != nil || fields == nil {
			return nil, ErrStateNotObject
		}
	}
	if summary == "" {
		return state, nil // the key order as given
	}
	if _, ok := fields["summary"]; ok {
		return nil, ErrSummaryTwice
	}
	fields["summary"], _ = json.Marshal(summary) // a Go string always encodes
	return json.Marshal(fields)
}
