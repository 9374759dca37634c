package views

// The tool-call lifecycle: which calls are still pending, which completed,
// which failed. Nothing is updated in place: a call's status is a fold
// over the tape's tool entries in order, computed again from the first
// change (see projector/views.go).
//
// Results are paired with calls by pairing.go's rule, the context's too: by
// the call id a result carries, else by position. An error entry that
// comes while calls are pending answers them all as failed.

// Call statuses.
const (
	StatusPending   = "pending"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// ToolEntry is what the fold reads of an entry: the tool_call, tool_result
// and error entries of a tape, in tape order. Ref is the caller's handle of
// the entry (the index's rowid), Time its date in Unix nanoseconds, or
// nil when it has none.
type ToolEntry struct {
	Ref   int64
	Kind  string
	Time  *int64
	Facts Facts
}

// Call is one tool call and what answered it.
type Call struct {
	Entry    int64 // Ref of the tool_call entry
	Index    int   // position of the call in it
	ID, Name string
	Status   string
	CalledAt *int64
	// What answered the call: a tool_result entry and the position of the
	// result in it, or an error entry (ResultIndex -1). Zero when pending.
	ResultEntry int64
	ResultIndex int
	AnsweredAt  *int64
}

// DurationMS is the time from the call to its answer in milliseconds, and
// whether both had a date.
func (c Call) DurationMS() (int64, bool) {
	if c.CalledAt == nil || c.AnsweredAt == nil {
		return 0, false
	}
	return (*c.AnsweredAt - *c.CalledAt) / 1e6, true
}

// CallFold folds tool entries, in tape order, into calls, pairing results
// with calls as pairing.go says. Its zero value starts with nothing
// pending, as a tape does, and as the fold does again at any tool_call
// entry that does not follow another tool_call (RestartsFold).
type CallFold struct {
	pending []Call
	orphans []Orphan
	last    string // the kind of the last tool entry added
	latest  int64  // Ref of the latest tool_call entry
}

// Add reads the next tool entry and returns the calls it settled: answered,
// or left pending for good because a new tool_call replaced them or a
// tool_result without ids ended their wait.
func (f *CallFold) Add(e ToolEntry) []Call {
	last := f.last
	f.last = e.Kind
	switch e.Kind {
	case "tool_call":
		var done []Call
		if RestartsFold(last) {
			done = f.settlePending()
		}
		f.latest = e.Ref
		for i, ref := range e.Facts.Calls {
			f.pending = append(f.pending, Call{Entry: e.Ref, Index: i, ID: ref.ID, Name: ref.Name, Status: StatusPending, CalledAt: e.Time})
		}
		return done
	case "tool_result":
		return f.answer(e)
	case "error":
		done := f.pending
		for i := range done {
			done[i].Status = StatusFailed
			done[i].ResultEntry, done[i].ResultIndex, done[i].AnsweredAt = e.Ref, -1, e.Time
		}
		f.pending = nil
		return done
	}
	return nil
}

// answer pairs a tool_result entry's results with the pending calls.
func (f *CallFold) answer(e ToolEntry) []Call {
	refs := make([]PendingRef, len(f.pending))
	for i, c := range f.pending {
		refs[i] = PendingRef{ID: c.ID, Index: c.Index, Latest: c.Entry == f.latest}
	}
	answers, orphan, ends := Match(refs, e.Facts.Results)
	var done []Call
	answered := make([]bool, len(f.pending))
	for i, j := range answers {
		if orphan[i] {
			f.orphans = append(f.orphans, Orphan{Entry: e.Ref, Index: i, CallID: e.Facts.Results[i].CallID})
		}
		if j < 0 {
			continue
		}
		c := f.pending[j]
		c.Status = StatusCompleted
		if e.Facts.Results[i].Failed {
			c.Status = StatusFailed
		}
		c.ResultEntry, c.ResultIndex, c.AnsweredAt = e.Ref, i, e.Time
		done, answered[j] = append(done, c), true
	}
	rest := f.pending[:0:0]
	for j, c := range f.pending {
		if !answered[j] {
			rest = append(rest, c)
		}
	}
	f.pending = rest
	if ends {
		done = append(done, f.settlePending()...)
	}
	return done
}

// IsToolKind reports whether entries of a kind take part in pairing: the
// tool entry before a tool_call, which RestartsFold is asked about, is the
// last entry of such a kind.
func IsToolKind(kind string) bool {
	return kind == "tool_call" || kind == "tool_result" || kind == "error"
}

// RestartsFold reports whether a fold that starts afresh at a tool_call
// entry gives the same calls from there on as a fold of the whole tape: it
// does unless the tool entry before it is a tool_call too, whose pending
// calls it would join. prev is that entry's kind, "" for none.
func RestartsFold(prev string) bool { return prev != "tool_call" }

// Orphans returns the results found since the last call that answer no
// call (see Orphan), and forgets them.
func (f *CallFold) Orphans() []Orphan {
	o := f.orphans
	f.orphans = nil
	return o
}

// IsPending reports whether calls of the tool_call entry ref are pending.
func (f *CallFold) IsPending(ref int64) bool {
	for _, c := range f.pending {
		if c.Entry == ref {
			return true
		}
	}
	return false
}

// Flush returns the calls still pending at the end of the tape.
func (f *CallFold) Flush() []Call { return f.settlePending() }

func (f *CallFold) settlePending() []Call {
	done := f.pending
	f.pending = nil
	return done
}
