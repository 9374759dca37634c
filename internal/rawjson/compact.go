package rawjson

// AppendCompact appends the JSON value raw without the white space between
// its tokens, as encoding/json's Encoder writes a json.RawMessage; empty
// raw is null, as it writes a nil RawMessage.
//
// It buys what encoding/json spends checking and compacting a payload
// byte by byte through its scanner, which was most of the time `tape
// search --json` spent printing twenty hits with long tool output: it
// copies strings whole, finding their ends with skipString.
// BenchmarkAppendCompact (medians of 6): a 10 KB tool result in 5.6 µs,
// against 39 µs for encoding/json's Encoder writing it as a RawMessage. It
// depends on raw being valid JSON, as the payload and meta of every entry
// read from a tape are (the reader checks each line); of anything else it
// writes garbage. FuzzAppendCompact holds it to json.Compact.
func AppendCompact(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	for len(raw) > 0 {
		switch c := raw[0]; c {
		case ' ', '\t', '\n', '\r':
			raw = raw[1:]
		case '"':
			n := skipString(raw, 0)
			dst, raw = append(dst, raw[:n]...), raw[n:]
		default:
			dst, raw = append(dst, c), raw[1:]
		}
	}
	return dst
}

// IsCompactObject reports whether raw is one valid JSON object with no
// white space between its tokens: what json.Compact would return
// unchanged.
//
// It buys a copy and a second scan of every payload an import appends:
// every append compacts its payload, and an import's converters write
// them compact, which json.Compact scanned and copied again.
// BenchmarkIsCompactObject (medians of 6): a compact 16 KB payload in
// 10 µs against json.Compact's 46 µs (and BenchmarkImportClaude in
// importer). It stops at the first white space between tokens, so a
// payload that is not compact (Python's json.dumps writes ", " and ": ")
// costs little more than json.Compact alone (BenchmarkNormalizeObject in
// log). It depends on raw being valid UTF-8, which it does not check
// (log's normalizeObject checks it first), and says no to nesting deeper
// than maxDepth, which it leaves to json.Compact. FuzzCompactObject holds
// it to json.Compact.
func IsCompactObject(raw []byte) bool {
	s := scanner{b: raw, compact: true}
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	s.i++
	return s.object(1) && s.i == len(raw)
}
