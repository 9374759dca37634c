package records

import (
	"math"
	"strconv"

	"github.com/tape-dev/tape/internal/rawjson"
)

// AppendJSON appends the tape's record as `tape tapes --json` prints it,
// a line of JSON, as encoding/json's Encoder with SetEscapeHTML(false)
// writes it (FuzzTapeJSON): by reflection that was a tenth of a listing
// of every tape.
func (r Tape) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if r.Workspace != nil {
		dst = appendStringField(dst, `"workspace":`, *r.Workspace)
		dst = append(dst, ',')
	}
	dst = appendStringField(dst, `"name":`, r.Name)
	dst = appendStringField(dst, `,"title":`, r.Title)
	dst = appendStringField(dst, `,"cwd":`, r.CWD)
	dst = appendStringField(dst, `,"branch":`, r.Branch)
	dst = appendStringField(dst, `,"model":`, r.Model)
	dst = appendOptional(dst, `,"first":`, r.First)
	dst = appendOptional(dst, `,"last":`, r.Last)
	dst = strconv.AppendInt(append(dst, `,"entries":`...), int64(r.Entries), 10)
	dst = strconv.AppendInt(append(dst, `,"anchors":`...), int64(r.Anchors), 10)
	if r.Forks != nil {
		dst = strconv.AppendInt(append(dst, `,"forks":`...), int64(*r.Forks), 10)
	}
	dst = appendStringField(dst, `,"source":`, r.Source)
	dst = appendStringField(dst, `,"session_id":`, r.SessionID)
	dst = appendOptional(dst, `,"parent":`, r.Parent)
	if r.CostUSD != nil {
		dst = appendFloat(append(dst, `,"cost_usd":`...), *r.CostUSD)
	}
	return append(dst, '}', '\n')
}

// appendFloat appends f as encoding/json writes a float64.
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2], dst = dst[n-1], dst[:n-1] // e-07 as e-7, as encoding/json
	}
	return dst
}

// appendOptional appends name and s as a JSON string, or null for nil.
func appendOptional(dst []byte, name string, s *string) []byte {
	if s == nil {
		return append(append(dst, name...), "null"...)
	}
	return rawjson.AppendString(append(dst, name...), *s)
}
