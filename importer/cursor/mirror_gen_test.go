package cursor

import "github.com/tape-dev/tape/importer/sourcetest"

// mirrorKeptIn says where a string of a mirror line must be kept: in a
// payload (the editor's mapping is to come).
func mirrorKeptIn(m map[string]any, path []string) sourcetest.Kept { return sourcetest.InPayload }

// mirrorTranscript is a mirror file of lines of random shapes.
func mirrorTranscript(g *sourcetest.Gen) []string {
	var lines []string
	for range g.IntN(8) {
		lines = append(lines, sourcetest.JSONLine(map[string]any{"table": g.Str(), "data": g.Value(2)}))
	}
	return lines
}
