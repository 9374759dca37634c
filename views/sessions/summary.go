package sessions

import (
	"context"
	"fmt"

	"github.com/tape-dev/tape/views"
)

// Summary is what tape info says of a whole workspace: its tapes, their
// entries and anchors, and the most recently written.
type Summary struct {
	Tapes, Entries, Anchors int
	Newest                  []Session // the newest tapes, as List orders them
}

// Summarize reads the workspace's summary, with its newest n tapes, in
// one snapshot: the counts are sums over the kept rows, one per tape.
func Summarize(ctx context.Context, ix views.Index, n int) (o Summary, err error) {
	err = ix.Read(ctx, func(r views.Reader) error {
		if err := r.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(entries), 0), coalesce(sum(anchors), 0) FROM sessions`).
			Scan(&o.Tapes, &o.Entries, &o.Anchors); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		return each(ctx, r, "", nil, views.Page{Limit: n}, func(s Session) error {
			o.Newest = append(o.Newest, s)
			return nil
		})
	})
	return o, err
}
