package projector

import (
	"cmp"
	"slices"
)

// newTapesByStart orders the tapes of want that the index does not hold
// yet by when they started (their first anchor's date, then their name),
// after the tapes it holds, in name order. The index gives entries rowids
// in the order the walk reads them, and a search of a common word across
// tapes (newestInBlocks) prunes by the latest time of each block of
// rowids: read by name, a block held sessions of every age, and bounded
// nothing; read by start, blocks follow time, and a word of old sessions
// costs a probe of the new ones' blocks, not a probe of each of their
// entries (decision 0077). Reading each new tape's first anchor.json
// first costs a few system calls a tape, next to the reading of all its
// files. A tape whose first anchor cannot be read goes first, as one
// without a date.
func (w *walker) newTapesByStart(want []string) []string {
	known, fresh := []string{}, []string{}
	for _, name := range want {
		if w.st.tapes[name] {
			known = append(known, name)
		} else {
			fresh = append(fresh, name)
		}
	}
	if w.dry || len(fresh) < 2 {
		return want
	}
	start := make(map[string]int64, len(fresh))
	for _, name := range fresh {
		start[name] = w.startOf(name)
	}
	slices.SortStableFunc(fresh, func(a, b string) int { return cmp.Compare(start[a], start[b]) })
	return append(known, fresh...)
}

// startOf is when the tape started (tapelog.Tape.Started), in
// nanoseconds; 0 when it has no date or it cannot be read.
func (w *walker) startOf(name string) int64 {
	t, err := w.ws.Tape(name)
	if err != nil {
		return 0
	}
	at, err := t.Started()
	if err != nil || at.IsZero() {
		return 0
	}
	return at.UnixNano()
}
