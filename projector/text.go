package projector

import (
	"github.com/tape-dev/tape/internal/searchlang"
)

// ftsText is what entries_fts holds of an entry: its search text,
// tokenized, and the parts of the identifiers in it
// (searchlang.IdentifierParts), in
// a column of their own that ranks below the text (see Search).
type ftsText struct {
	text  string
	parts string
}

// newFTSText prepares an entry's search text for entries_fts.
func newFTSText(text string) ftsText {
	return ftsText{text: searchlang.Tokenize(text), parts: searchlang.IdentifierParts(text)}
}
