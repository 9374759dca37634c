// Package records owns the JSON shapes of tape's output: the lines the
// CLI prints with --json (tape log, tape anchors, tape tapes, tape calls,
// tape usage, tape append, ...) and the MCP server's structured content,
// which gives an agent the same shapes whichever way it asked. Their
// names are a contract. Each type carries json tags, the names, and
// jsonschema tags, the descriptions a model reads in the MCP tools'
// output schemas. The entry's own encoder (Entry.AppendJSON) lives here
// too, beside the type it must agree with.
package records
