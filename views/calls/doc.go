// Package calls owns the tool-call view: what became of each tool call of
// a tape (pending, completed or failed), the results that answer no call,
// and the count of calls by status.
//
// A call's status is never updated in place: it is a fold of the tape's
// tool entries in order (fold.go), with results paired with their calls by
// the one rule of package views (by the id a result carries, else by
// position), and an error entry answering every pending call as failed.
// A pass of the projector keeps the tables by folding again from the last
// tool_call before the first change (table.go; docs/decisions/0034); the
// queries of tape calls read a list, its count and its entries in one
// snapshot (query.go); and a copy elsewhere, the team index, keeps the
// calls the same way (export.go).
package calls
