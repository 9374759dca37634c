// Package mcp owns tape's Model Context Protocol server: a workspace
// served over stdio (`tape mcp`) to the agents that speak MCP, with the
// official Go SDK.
//
// It holds the tools (search, context, log, show, anchors, tapes, calls,
// usage; append and handoff when writes are allowed) with the schemas and
// descriptions a model reads, and the resources: each tape as
// tape://<tape> and each anchor as tape://<tape>/<folder>, their entries
// as JSON lines.
//
// It decides nothing the CLI decides: a tool reads through the same calls
// as the command of its name (the projector's queries, the views, bub's
// context), selects its tapes by the same rule (log.Workspace.SelectTape),
// makes the index fresh by the same function before each call
// (fresh.Read, with the caller's fresh.Reading), and writes
// through package log, under its locks and limits. What is its own is the
// protocol's side: arguments checked and said back as tool errors, pages
// and cursors, results as structured content with a short text form, and
// the listing of resources a page at a time. See docs/decisions/0064.
//
// Files: server.go (the server, one index per session, freshness, scope
// and errors), bind.go (typed tools over the SDK, their schemas),
// text.go (results' text forms; what they hold is package
// read/records, the shapes of the CLI's --json), read.go (search, context, log, show,
// anchors), views.go (tapes, calls, usage), write.go (append, handoff),
// resources.go; input.go, message.go, batch.go and output.go (the
// client's input a line at a time: each line the SDK takes passed on,
// every other answered with a JSON-RPC error, and the session goes on;
// see docs/decisions/0072), drain.go (every request piped in is answered
// before the input's end ends the session).
package mcp
