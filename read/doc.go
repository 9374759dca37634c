// Package read is tape's read layer: each read that more than one front
// end makes (the CLI in cmd/tape, the MCP server in mcp, the web page in
// web, and the terminal UI and export to come), written once. A read
// takes an open index (a projector.Projector) and returns data with the
// warnings that go with it. It prints nothing; front ends keep their
// arguments, paging, wording and rendering (decisions 0064, 0066, 0076).
//
// It owns the rules that decide what a read covers:
//
//   - which anchors of a tape a read covers (Pick): by log.FindAnchor
//     and log.SelectAnchors, and, for a search's anchor filter, every
//     anchor log.MatchAnchors matches in each tape searched
//     (SearchFolders);
//   - that an anchor's entries come with the lines of its files that
//     could not be read, each marked acknowledged or not (a person
//     acknowledges a bad line with tape doctor), and the lines that
//     changed since the index read them (Entries, EntryPage; Unread is
//     what a front end warns of);
//   - the span of a tape that a context reads (ReadContext, by
//     bub.ContextSpan);
//   - a search's scope: the anchors it is limited to, whether more match
//     than it returns, and what of its tapes it could not read (Search);
//   - the warnings beside each page of a view (ListTapes, and EachTape,
//     which hands on each tape as it is read; ListCalls, SumUsage; in
//     lists.go);
//   - an entry's text in one line (Summary, in summary.go).
package read
