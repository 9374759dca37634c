// Package searchlang is tape's search language, both of its sides: how an
// entry's text becomes the tokens the search index holds (Tokenize: runs
// of Chinese and Japanese as bigrams; IdentifierParts: the parts of
// camelCase names), and how what a person types becomes an FTS5 MATCH
// expression over those tokens that is never an FTS5 syntax error
// (MatchExpr, LooseExpr, QueryTerms); and the snippet that shows a hit's
// words (Snippet, SnippetSpans). The two sides must agree, so they live
// together; the local index (package projector) and the team index on
// PostgreSQL (package remote) both use them. It is pure functions: no
// SQL, no files.
package searchlang
