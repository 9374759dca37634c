// Package sourcetest holds the checks every agent source's tests run
// (docs/ADDING_A_SOURCE.md), so that a new source is held to what
// claude and codex are held to by calling a few functions:
//
//   - CheckKeepsText: the property "an importer never drops text", on
//     transcripts of records of random shapes (Gen) and the source's rule
//     of which strings are structure (Rule);
//   - FuzzResume: a fuzz target on the converter, seeded with the
//     source's golden transcripts (Fixtures): a checkpoint anywhere loses
//     nothing and adds nothing, and every entry is one a tape takes;
//   - CheckShape: a table test's case: the entries lines of odd shapes
//     make.
//
// It depends on the source package only through source.Source, and
// reads nothing but testdata/import/<source>/ at the module's root.
package sourcetest
