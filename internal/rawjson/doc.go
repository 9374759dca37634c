// Package rawjson owns tape's hand-written JSON on raw bytes: the places
// where encoding/json was measured to cost too much on a hot path and
// tape reads or writes the JSON text itself.
//
// It holds:
//
//   - the one string encoder (AppendString) and AppendFloat, which write
//     what encoding/json's Encoder with SetEscapeHTML(false) writes: every
//     line tape appends, every record the CLI prints, every payload an
//     import makes (Object) goes through them;
//   - copying and compacting valid JSON (AppendCompact, IsCompactObject):
//     a record's payload printed without its white space, and the check
//     that lets an append keep a payload that is already compact;
//   - splitting an object into its members while checking that it is valid
//     JSON (SplitObject), for every line a reader parses;
//   - scanning JSON that encoding/json has already checked (ObjectMembers,
//     ArrayItems, String), for the content blocks of an imported
//     transcript;
//   - decoding a payload into the map encoding/json makes of it
//     (DecodeObject, DecodeValue), for every entry an index is built from;
//   - telling the bytes of strings from the rest (Quotes), for the
//     scanners that count brackets: MCP's bound on a request's depth and
//     serve's printer of JSON too deep for encoding/json.
//
// Each fast path says in its doc comment what it buys, with the benchmark
// that shows it, and what it depends on. Each leaves what it does not
// handle to encoding/json rather than guess, and each has a FuzzXxx target
// that holds it to encoding/json: the same bytes written, the same values
// read, the same text accepted.
package rawjson
