package read

import (
	"context"
	"fmt"
	"slices"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// Pick says which anchors of a tape a read covers. The zero Pick is the
// tape's current (last) anchor; a front end checks that its arguments
// ask for one thing (say, All and From together) before it makes one.
type Pick struct {
	All      bool   // every anchor
	From, To string // from anchor From to anchor To, both included (log.SelectAnchors); "" is the tape's first or last
	One      string // this anchor alone (log.FindAnchor): its folder, seq, name or slug
	Folder   string // this anchor alone, by its folder's name and nothing else: what a link names
}

// Anchors is the part of anchors, a tape's in order, that p picks. An
// anchor p names that is not there is an error wrapping
// log.ErrNoAnchor; a tape with no anchors has none of them.
func (p Pick) Anchors(anchors []tapelog.Anchor) ([]tapelog.Anchor, error) {
	switch {
	case p.Folder != "":
		if i := slices.IndexFunc(anchors, func(a tapelog.Anchor) bool { return a.Folder == p.Folder }); i >= 0 {
			return anchors[i : i+1], nil
		}
		return nil, fmt.Errorf("%w %q", tapelog.ErrNoAnchor, p.Folder)
	case p.One != "":
		i, err := tapelog.FindAnchor(anchors, p.One)
		if err != nil {
			return nil, err
		}
		return anchors[i : i+1], nil
	case p.From != "" || p.To != "":
		return tapelog.SelectAnchors(anchors, p.From, p.To)
	case p.All || len(anchors) == 0:
		return anchors, nil
	}
	return anchors[len(anchors)-1:], nil
}

// SearchFolders are the anchor folders a search limited to anchor sel
// covers in the given tapes (nil: every tape of the index): in each
// tape, every anchor that log.MatchAnchors matches, so that a name many
// sessions give a phase ("plan") searches that phase of each. None in
// any tape is an error wrapping log.ErrNoAnchor.
func SearchFolders(ctx context.Context, ix *projector.Projector, tapes []string, sel string) ([]string, error) {
	if tapes == nil {
		var err error
		if tapes, err = ix.Tapes(ctx); err != nil {
			return nil, err
		}
	}
	folders := []string{}
	for _, tape := range tapes {
		anchors, _, err := ix.Anchors(ctx, tape)
		if err != nil {
			return nil, err
		}
		found, _ := tapelog.MatchAnchors(anchors, sel)
		for _, i := range found {
			folders = append(folders, anchors[i].Folder)
		}
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("%w %q", tapelog.ErrNoAnchor, sel)
	}
	return folders, nil
}
