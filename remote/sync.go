package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/redact"
)

// SyncStats says what a sync wrote.
type SyncStats struct {
	Entries  int   // entries written, in transactions that committed (anchor entries among them)
	BadLines int   // bad lines written, likewise
	Bytes    int64 // of the lines written
	Files    int   // files read from a checkpoint on
	Removed  int   // files, folders and tapes whose rows were removed
	Tapes    int   // tapes whose tapes and calls rows were brought up to date
	Commits  int   // transactions
	Redacted int   // secrets replaced in what was sent
	// Unsynced names the files and folders that could not be synced, and
	// why; the next sync tries them again.
	Unsynced []string
	// SamePlace are the other workspaces on the server that last synced
	// from this host and folder: most likely this one's before it was
	// made again (a new id), whose sessions --remote counts beside its
	// own until it is forgotten (Forget).
	SamePlace []Workspace
}

// add adds what a committer wrote.
func (st *SyncStats) add(w SyncStats) {
	st.Entries, st.BadLines, st.Bytes, st.Commits = st.Entries+w.Entries, st.BadLines+w.BadLines, st.Bytes+w.Bytes, st.Commits+w.Commits
}

// SyncOptions tune a sync.
type SyncOptions struct {
	// Redactor, if set, replaces the secrets of every line sent with
	// [REDACTED:<kind>], in its row, its text and its search vector: the
	// server never receives them (redact.go).
	Redactor *redact.Redactor
	// BatchRows and BatchBytes bound a transaction: it commits once it
	// holds this many rows, or lines of this many bytes. 0 for the
	// defaults.
	BatchRows, BatchBytes int
	// Full removes the workspace's rows from the server first, and sends
	// everything again: for a server whose rows were changed by hand.
	Full bool
	// Moved says the workspace moved from the host and folder it last
	// synced from: without it, a sync from elsewhere is refused as a
	// copy's (ErrAnotherCopy).
	Moved bool
	// LockWait bounds the wait for the server's lock of the workspace
	// when another session holds it; 0 for DefaultLockWait. OnLockWait,
	// if set, is told when the wait begins.
	LockWait   time.Duration
	OnLockWait func(wait time.Duration)
}

// Default bounds of a transaction: large enough that a commit's cost is
// small beside its rows', small enough that a sync killed mid-way loses
// little and holds little memory.
const (
	DefaultBatchRows  = 5000
	DefaultBatchBytes = 16 << 20
)

// DefaultLockWait is how long a sync waits for the server's lock of its
// workspace before it refuses. A sync killed a moment ago leaves its
// session to the server, which ends it, and releases its lock, only once
// it sees the connection gone: a sync run again at once found the lock
// held for about a second, and was refused.
const DefaultLockWait = 10 * time.Second

// ErrSyncRunning is returned when another sync of the same workspace
// holds the server.
var ErrSyncRunning = errors.New("remote: another tape sync of this workspace is running against this server")

// Sync projects the workspace of ix into the database conn is open on,
// incrementally: what the server has of each file is compared with what
// the local index has read of it, and the difference, read from the
// files, is written; files, anchor folders and tapes that are gone are
// removed; the tapes and calls rows of the tapes that changed are
// brought up to the local index's. The caller makes ix fresh first: a
// sync copies what the local index has read, and no more.
//
// Every transaction writes rows with the checkpoints of the files they
// came from, so a sync stopped at any moment, by a kill or a server that
// goes away, leaves a state that the next sync goes on from, and ends
// with the rows one uninterrupted sync writes.
func Sync(ctx context.Context, ix *projector.Projector, conn *pgx.Conn, opts SyncOptions) (SyncStats, error) {
	ws := ix.Workspace()
	id, saved := ws.ProposedIdentity() // a new id is written once the server took it (register)
	if err := migrate(ctx, conn); err != nil {
		return SyncStats{}, err
	}
	unlock, err := lockWorkspace(ctx, conn, id.ID, cmp.Or(opts.LockWait, DefaultLockWait), opts.OnLockWait)
	if err != nil {
		return SyncStats{}, err
	}
	defer unlock()
	if err := register(ctx, conn, ws, id, saved, opts.Moved); err != nil {
		return SyncStats{}, err
	}
	samePlace, err := workspacesAt(ctx, conn, id.ID, ws.Dir())
	if err != nil {
		return SyncStats{}, err
	}
	local, err := readLocal(ctx, ix)
	if err != nil {
		return SyncStats{}, err
	}
	if opts.Full {
		if err := removeWorkspaceRows(ctx, conn, id.ID); err != nil {
			return SyncStats{}, err
		}
	} else if same, err := syncedState(ctx, conn, id.ID, local.digest); err != nil || same {
		return SyncStats{SamePlace: samePlace}, err
	}
	s := &syncer{ix: ix, ws: ws, conn: conn, wsID: id.ID, opts: opts, batch: newBatch(), tapes: map[string]*tapelog.Tape{}}
	s.stats.SamePlace = samePlace
	s.opts.BatchRows = cmp.Or(s.opts.BatchRows, DefaultBatchRows)
	s.opts.BatchBytes = cmp.Or(s.opts.BatchBytes, DefaultBatchBytes)
	defer s.closeTapes()
	s.committer = startCommitter(ctx, conn, id.ID)
	err = s.run(ctx, local)
	written, cerr := s.committer.wait()
	s.stats.add(written)
	if err = cmp.Or(cerr, err); err != nil { // a commit's error is the cause of the others
		return s.stats, err
	}
	var state any
	if !s.skipped {
		state = local.digest
	}
	_, err = conn.Exec(ctx, `UPDATE tape.workspaces SET synced_at = now(), synced_state = $2 WHERE id = $1`, id.ID, state)
	return s.stats, err
}

// lockWorkspace takes the server's lock of the workspace for this
// connection's session: two syncs of one workspace would write the same
// rows. It is released by unlock, or by the server when the connection
// ends, a killed sync's too. When another session holds it, it waits up
// to wait for it (telling waiting first), and then refuses.
func lockWorkspace(ctx context.Context, conn *pgx.Conn, wsID string, wait time.Duration, waiting func(time.Duration)) (unlock func(), err error) {
	const key = `hashtextextended('tape.sync/' || $1, 0)`
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+key+`)`, wsID).Scan(&got); err != nil {
		return nil, fmt.Errorf("lock the workspace on the server: %w", err)
	}
	if !got {
		if waiting != nil {
			waiting(wait)
		}
		if err := waitForLock(ctx, conn, key, wsID, wait); err != nil {
			return nil, err
		}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Exec(ctx, `SELECT pg_advisory_unlock(`+key+`)`, wsID) //nolint:errcheck // the session's end releases it too
	}, nil
}

// waitForLock waits for the lock, up to wait: the server hands it over
// the moment it is released (pg_advisory_lock), and lock_timeout bounds
// the wait. The lock is the session's, and outlives the transaction that
// sets the timeout.
func waitForLock(ctx context.Context, conn *pgx.Conn, key, wsID string, wait time.Duration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("lock the workspace on the server: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, strconv.FormatInt(max(wait.Milliseconds(), 1), 10)); err != nil {
		return fmt.Errorf("lock the workspace on the server: %w", err)
	}
	_, err = tx.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`, wsID)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgLockNotAvailable {
		return fmt.Errorf("%w (workspace %s; waited %s for it); wait for it to end", ErrSyncRunning, wsID, wait)
	}
	if err != nil {
		return fmt.Errorf("lock the workspace on the server: %w", err)
	}
	return tx.Commit(ctx)
}

// pgLockNotAvailable is PostgreSQL's SQLSTATE for a lock wait that ran
// past lock_timeout.
const pgLockNotAvailable = "55P03"

// ErrAnotherCopy is returned when the server's workspace of this id last
// synced from another host or folder: most likely a copy (cp -r keeps
// config.json's id), whose sync would replace the other's rows with its
// own, and the other's the same the next time.
var ErrAnotherCopy = errors.New("remote: the workspace's id was last synced from another place")

// register writes the workspace's row: its name, and where it syncs from,
// which must be where it last synced from unless moved says it moved. An
// id not yet saved (a first sync) is written into config.json in the
// transaction that writes the row, once the server took it: a server
// that refuses (a role that may only read) leaves config.json as it was.
func register(ctx context.Context, conn *pgx.Conn, ws *tapelog.Workspace, id tapelog.Identity, saved, moved bool) error {
	host, _ := os.Hostname()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("register the workspace: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	var lastHost, lastPath string
	err = tx.QueryRow(ctx, `SELECT host, path FROM tape.workspaces WHERE id = $1`, id.ID).Scan(&lastHost, &lastPath)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return fmt.Errorf("register the workspace: %w", err)
	case !moved && (lastHost != host || lastPath != ws.Dir()):
		return fmt.Errorf("%w: workspace %s (%s) last synced from %s:%s, and this is %s:%s", ErrAnotherCopy, id.Name, id.ID, lastHost, lastPath, host, ws.Dir())
	}
	_, err = tx.Exec(ctx, `INSERT INTO tape.workspaces (id, name, host, path) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, host = excluded.host, path = excluded.path`,
		id.ID, id.Name, host, ws.Dir())
	if err != nil {
		return fmt.Errorf("register the workspace: %w", err)
	}
	if !saved {
		got, err := ws.SaveIdentity(id)
		if err != nil {
			return err
		}
		if got.ID != id.ID {
			return fmt.Errorf("%w: another tape gave the workspace its id (%s) meanwhile; run tape sync again", ErrSyncRunning, got.ID)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("register the workspace: %w", err)
	}
	return nil
}

// workspacesAt lists the workspaces on the server, but the one of id,
// that last synced from this host and the .tape folder dir.
func workspacesAt(ctx context.Context, conn *pgx.Conn, id, dir string) ([]Workspace, error) {
	host, _ := os.Hostname()
	rows, err := conn.Query(ctx, `SELECT id, name, host, path, synced_at, (SELECT count(*) FROM tape.tapes t WHERE t.workspace_id = w.id)
		FROM tape.workspaces w WHERE host = $1 AND path = $2 AND id <> $3 ORDER BY id`, host, dir, id)
	if err != nil {
		return nil, fmt.Errorf("list the workspaces synced from here: %w", err)
	}
	return collectWorkspaces(rows)
}

type fileKey = tapelog.FileKey

type folderKey struct{ tape, folder string }

type syncer struct {
	ix    *projector.Projector
	ws    *tapelog.Workspace
	conn  *pgx.Conn
	wsID  string
	opts  SyncOptions
	stats SyncStats
	batch *batch
	tapes map[string]*tapelog.Tape // opened, by name
	buf   tapelog.ScanBuffer
	// committer writes the batches, on a goroutine of its own, while the
	// next is read (see committer).
	committer *committer
	// skipped says a file could not be read as the local index had read
	// it: the server is not at the local state, and the next sync must
	// look again.
	skipped bool
}

func (s *syncer) run(ctx context.Context, local localState) error {
	have, err := s.serverFiles(ctx)
	if err != nil {
		return err
	}
	haveAnchors, err := s.serverAnchors(ctx)
	if err != nil {
		return err
	}
	if err := s.removeGone(ctx, local, have, haveAnchors); err != nil {
		return err
	}
	for _, a := range local.anchors {
		if !s.storable(a.Tape, a.Folder) {
			continue
		}
		if haveAnchors[folderKey{a.Tape, a.Folder}] != a.Stamp {
			if err := s.syncAnchor(ctx, a); err != nil {
				return err
			}
		}
	}
	for _, f := range local.files {
		k, server := f.key, have[f.key]
		if server != nil && server.stamp == f.read.Stamp && server.pos.Offset == f.read.Offset || !s.storable(k.Tape, k.Folder, k.Name) {
			continue
		}
		if err := s.syncFile(ctx, k, f.read, server); err != nil {
			return err
		}
	}
	if err := s.commit(ctx); err != nil {
		return err
	}
	written, err := s.committer.wait()
	s.stats.add(written)
	if err != nil {
		return err
	}
	return s.refreshPending(ctx)
}

func (s *syncer) full() bool {
	return s.batch.rows() >= s.opts.BatchRows || s.batch.bytes >= s.opts.BatchBytes
}

func (s *syncer) commitIfFull(ctx context.Context) error {
	if s.full() {
		return s.commit(ctx)
	}
	return nil
}

// commit hands the batch to the committer and starts the next.
func (s *syncer) commit(ctx context.Context) error {
	if s.batch.empty() {
		return nil
	}
	if err := s.committer.send(ctx, s.batch); err != nil {
		return err
	}
	s.batch = newBatch()
	return nil
}

// storable reports whether a place's names can be keys on the server:
// PostgreSQL's text is UTF-8, and a folder or file made by hand can be
// named in other bytes. One that cannot is not synced, and Unsynced
// names it.
func (s *syncer) storable(names ...string) bool {
	for _, n := range names {
		if !utf8.ValidString(n) {
			s.stats.Unsynced = append(s.stats.Unsynced, path.Join(names...)+": its name is not UTF-8; rename it to sync it")
			s.skipped = true
			return false
		}
	}
	return true
}

// pgText is a string as a text column holds it: PostgreSQL's text has no
// NUL, which a JSON string can hold as \u0000 (an id, a model's name, a
// title); it becomes U+FFFD.
func pgText(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

func (s *syncer) tape(name string) (*tapelog.Tape, error) {
	if t, ok := s.tapes[name]; ok {
		return t, nil
	}
	t, err := s.ws.Tape(name)
	if err != nil {
		return nil, err
	}
	s.tapes[name] = t
	return t, nil
}

func (s *syncer) closeTapes() {
	for _, t := range s.tapes {
		t.Close()
	}
}

func compareFileKeys(a, b fileKey) int {
	return cmp.Or(cmp.Compare(a.Tape, b.Tape), cmp.Compare(a.Folder, b.Folder), cmp.Compare(a.Name, b.Name))
}

func compareFolderKeys(a, b folderKey) int {
	return cmp.Or(cmp.Compare(a.tape, b.tape), cmp.Compare(a.folder, b.folder))
}
