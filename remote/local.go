package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/tape-dev/tape/projector"
)

// What the local index has read, which a sync brings the server up to, and
// the digest that tells a sync there is nothing to send.

// localState is what the local index has read, which a sync brings the
// server up to.
type localState struct {
	files   []localFile // in the index's order: by tape, folder and name
	anchors []projector.AnchorFolder
	digest  string // of both, and of the schema the rows are in
}

// localFile is how far the local index has read a file.
type localFile struct {
	key  fileKey
	read projector.FileRead
}

// readLocal hashes what the local index has read of every file and
// anchor folder, and the schema's version: a sync that ended with every
// file synced keeps the digest on the server, and a sync that finds it
// unchanged has nothing to send. It spares reading the server's
// checkpoints, a row a file: 1,000 sessions synced nothing new in 40 ms
// against 75 with them read; and the files are hashed in the order the
// index streams them, not mapped and sorted first: 28,000 sessions
// (119,492 files) in 0.2 s against 0.36 (tape-bench pg).
func readLocal(ctx context.Context, ix *projector.Projector) (localState, error) {
	var l localState
	h := sha256.New()
	buf := fmt.Appendf(nil, "schema %d\n", SchemaVersion)
	h.Write(buf)
	err := ix.EachFileRead(ctx, func(k fileKey, f projector.FileRead) error {
		l.files = append(l.files, localFile{k, f})
		buf = appendFields(buf[:0], k.Tape, k.Folder, k.Name, strconv.FormatInt(f.Offset, 10), f.Stamp)
		h.Write(buf)
		return nil
	})
	if err != nil {
		return l, err
	}
	if l.anchors, err = ix.AnchorFolders(ctx); err != nil {
		return l, err
	}
	for _, a := range l.anchors {
		h.Write(appendFields(buf[:0], a.Tape, a.Folder, strconv.FormatInt(a.Seq, 10), a.Stamp))
	}
	l.digest = hex.EncodeToString(h.Sum(nil))
	return l, nil
}

// appendFields appends fields, each with its length before it, and a
// newline: no two lists of fields append the same bytes.
func appendFields(buf []byte, fields ...string) []byte {
	for _, f := range fields {
		buf = strconv.AppendInt(buf, int64(len(f)), 10)
		buf = append(append(buf, ':'), f...)
	}
	return append(buf, '\n')
}

// syncedState reports whether the server's rows of the workspace are
// those of the local state of digest, with nothing left behind.
func syncedState(ctx context.Context, conn *pgx.Conn, wsID, digest string) (bool, error) {
	var same bool
	err := conn.QueryRow(ctx, `SELECT coalesce(synced_state = $2, false) AND NOT EXISTS (SELECT 1 FROM tape.pending WHERE workspace_id = $1)
		FROM tape.workspaces WHERE id = $1`, wsID, digest).Scan(&same)
	if err != nil {
		return false, fmt.Errorf("read the workspace's state on the server: %w", err)
	}
	return same, nil
}
