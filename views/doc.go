// Package views will own the view tables: functions from a tape's entries,
// in order, to rows (sessions, the tool-call lifecycle, token usage, the
// messages of a session), kept current by the projector and rebuilt with
// it. Nothing is implemented here yet; issue 5 builds the views.
//
// It owns today the context view (context.go): the chat messages an agent
// sends to its model, built from entries as the Bub framework builds them,
// and the pairing of tool results with the calls before them (Calls,
// Results, Pair) that the tool-call view reuses.
package views
