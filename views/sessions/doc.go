// Package sessions owns the sessions view: the tapes as a list of
// sessions (tape tapes), one row per tape in the sessions table, kept by
// every pass of the projector in the transaction that changes the tape's
// entries, so that a list reads one page of an index instead of
// describing every tape when asked (issue 18: 7.2 s at 10,000 tapes).
//
// It owns the rules of what a list says of a tape: its title (the last
// title event, else its first message a person wrote), working directory
// and branch, model, dates and counts, and what its first anchor says of
// an imported session (fold.go); the table and how a pass keeps it
// (table.go); the queries that page it (query.go), a page in one query
// whose rows are handed on as they are read (Each, page.go), and the
// summary of a workspace that tape info prints (summary.go).
//
// A tape's chat messages (tape messages) are not this view's: they are
// the message entries in tape order, a filter of the entries table that
// the projector reads as it reads any entries (Projector.Messages), with
// nothing kept for them. Only the title's text, read from the first
// prompt for a page, is read here, by views.MessageText.
package sessions
