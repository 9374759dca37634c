// Package views owns what the view tables are made of: the facts taken
// from one entry (facts.go: a message's role, a tool_call's calls, which
// tool results failed, a run event's token usage, a working directory) and
// the folds over a tape's entries in order that turn them into rows (the
// tool-call lifecycle in calls.go). Nothing here touches a file or the
// database: the projector feeds entries in and stores the rows, so a view
// is rebuilt with the index and stays a function of the files.
package views
