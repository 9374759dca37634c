// Package views owns the views of the tapes: what the index keeps beside
// the entries, and the contract by which the projector keeps it.
//
// This package holds what every view shares, free of I/O: the facts taken
// from one entry as the projector parses it (facts.go: a message's role,
// a tool_call's calls, which tool results failed, a run event's token
// usage, a working directory), the reading of a tool entry's payload
// (payload.go: its calls and results, a call's id, name and arguments),
// the one rule that pairs a result with its call (pairing.go), which the
// context Bub builds (package bub) follows too, the text of a payload as
// search and a session's title read it (text.go), and the contract
// (view.go): Table and Pass, which the projector drives through a pass,
// and Index and Reader, through which a view's queries read.
//
// Each view with tables is a package of its own that owns its fold, its
// tables, how a pass keeps them and how they are queried: views/calls
// (the tool-call lifecycle), views/usage (run events and their token
// usage) and views/sessions (the tapes as a list of sessions). The projector lists them in one place (projector/views.go), so
// a view is rebuilt with the index and stays a function of the files.
package views
