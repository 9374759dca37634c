// Package views owns what the view tables are made of, free of I/O: the
// facts taken from one entry (facts.go: a message's role, a tool_call's
// calls, which tool results failed, a run event's token usage, a working
// directory), the folds over a tape's entries in order that turn them into
// rows (the tool-call lifecycle in calls.go), and the context view
// (context.go): the chat messages an agent sends to its model, built from
// entries as the Bub framework builds them. The projector feeds entries in
// and stores the rows, so a view is rebuilt with the index and stays a
// function of the files.
package views
