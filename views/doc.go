// Package views owns what the view tables are made of, free of I/O: the
// facts taken from one entry (facts.go: a message's role, a tool_call's
// calls, which tool results failed, a run event's token usage, a working
// directory), the reading of a tool entry's payload (payload.go: its calls
// and results, a call's id, name and arguments), and the folds over a
// tape's entries in order that turn them into rows (the tool-call
// lifecycle in calls.go), by the one rule that pairs a result with its
// call (pairing.go), which the context Bub builds (package bub) follows
// too. The projector feeds entries in and stores the rows, so a view is
// rebuilt with the index and stays a function of the files.
package views
