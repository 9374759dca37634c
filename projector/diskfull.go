package projector

import (
	"errors"
	"fmt"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDiskFull wraps a pass that failed for want of space (the index's
// disk or quota is full). A read then answers from the index as it stands
// (fresh.Reading.Stale), as when another process holds it: the files,
// which hold the truth, were written, or refused, before.
var ErrDiskFull = errors.New("projector: the disk is full")

// IsDiskFull reports whether err says that a disk or a quota is full:
// SQLite's SQLITE_FULL, or ENOSPC or EDQUOT from the file system.
func IsDiskFull(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// LimitPagesForTest caps index.db at n pages for every connection this
// Projector has and opens (SQLite's max_page_count): a write past them
// fails with SQLITE_FULL, as on a full disk. It is for tests alone, of
// this package and of package fresh, whose reads answer from the index
// as it stands on a full disk; a read catches up beside on a connection
// of its own, hence every connection's.
func (p *Projector) LimitPagesForTest(n int) error {
	p.maxPages = fmt.Sprintf("&_pragma=max_page_count(%d)", n)
	if _, err := p.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, n)); err != nil {
		return fmt.Errorf("cap the index's pages: %w", err)
	}
	return nil
}

// diskFull wraps err in ErrDiskFull, with what to do, if it says that the
// disk is full.
func (p *Projector) diskFull(err error) error {
	if err == nil || errors.Is(err, ErrDiskFull) || !IsDiskFull(err) {
		return err
	}
	return fmt.Errorf("%w (%v): the index could not be brought up to date; free space on the disk of %s", ErrDiskFull, err, p.ws.Dir())
}
