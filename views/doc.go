// Package views will own the view tables: functions from a tape's entries,
// in order, to rows (sessions, the tool-call lifecycle, token usage, the
// messages of a session), kept current by the projector and rebuilt with
// it. Nothing is implemented here yet; issue 5 builds the views.
package views
