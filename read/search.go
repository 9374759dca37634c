package read

import (
	"context"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// Found is what a search found.
type Found struct {
	Hits []projector.Hit // at most the query's Limit, best first
	More bool            // more entries match than Hits holds
	// Unlisted are the tapes of the search's scope, or anchor folders of
	// them, that could not be read at all, and were not searched
	// (projector.Projector.Unlisted).
	Unlisted []*tapelog.LineError
}

// Search runs q over the index, limited to the anchors anchor names in
// q's tapes when it is not "" (SearchFolders: an error wrapping
// log.ErrNoAnchor when none has it), and says what of q's scope could not
// be read. A q without words is projector.ErrEmptyQuery.
func Search(ctx context.Context, ix *projector.Projector, q projector.SearchQuery, anchor string) (Found, error) {
	var f Found
	if anchor != "" {
		var err error
		if q.Folders, err = SearchFolders(ctx, ix, q.Tapes, anchor); err != nil {
			return f, err
		}
	}
	limit := q.Limit
	if limit > 0 {
		q.Limit++ // one more tells whether more match
	}
	hits, err := ix.Search(ctx, q)
	if err != nil {
		return f, err
	}
	if limit > 0 && len(hits) > limit {
		hits, f.More = hits[:limit], true
	}
	f.Hits = hits
	f.Unlisted, err = ix.Unlisted(ctx, q.Tapes)
	return f, err
}
