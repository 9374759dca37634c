package source

import (
	"crypto/sha256"
	"encoding/hex"
)

// ShortSum is the first 8 hex digits of the SHA-256 of b: the part of an
// id or a tape name that changes with what it names (a title, a row, a
// session's key), where nothing else in the record gives one.
func ShortSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}
