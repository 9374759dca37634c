package projector

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// Generations: which index a reader and a watcher mean.
//
// index.db can be deleted at any moment, and the next process to open it
// makes a new one. A watcher that opened the old one keeps it open (its
// inode cannot be reused while it does) and caught up with events, so it
// had nothing to do when a reader asked: it answered "caught up" for an
// index the reader did not read, and a reader of the new, empty index
// trusted it (issue 29: every read answered from an empty index until
// `tape reindex --full`). The file's identity alone does not say enough,
// either: an index of another schema is made anew in the same file.
//
// So every index is given a generation when its tables are made: a
// random id in meta, never changed after. A Projector remembers the
// generation it opened; a reader's barrier names it (package fresh), and
// the watcher answers only for that generation, after reopening and
// looking at every file if its own is another. A pass that finds another
// generation at index.db than the one it last caught up looks at every
// file too (prepareLocked).

// newGeneration is a new index's generation: 128 random bits, in hex.
func newGeneration() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Generation is the generation of the index this Projector has open.
func (p *Projector) Generation() string { return p.gen }

// Replaced reports whether index.db was deleted or replaced since this
// Projector opened it: a watcher that caught up answers then for a
// database its reader does not read (package fresh).
func (p *Projector) Replaced() bool { return p.replaced() }

// writeGeneration gives an index made before generations one. The caller
// holds the index lock.
func (p *Projector) writeGeneration(ctx context.Context) (string, error) {
	gen := newGeneration()
	if _, err := p.db.ExecContext(ctx, `INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', ?)`, gen); err != nil {
		return "", fmt.Errorf("write the index's generation: %w", err)
	}
	// OR IGNORE and read back: another process without the lock (Open's
	// fast path) never writes it, but read what is there all the same.
	if err := p.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'generation'`).Scan(&gen); err != nil {
		return "", fmt.Errorf("read the index's generation: %w", err)
	}
	return gen, nil
}
