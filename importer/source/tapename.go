package source

import (
	"regexp"
	"strings"
)

// shortHex is how many characters of an id a tape name keeps.
const shortHex = 8

// TapeName is the tape name rule of tape's sources, readable and stable:
// the source and a short form of the session id ("claude-1a2b3c4d"), and
// for a subagent the short form of its id after "-agent-". long adds a sum
// of the whole ids ("claude-1a2b3c4d-5e6f7a8b"): the name a session takes
// when its short name belongs to another session's tape. Either is at
// most 40 bytes, whatever the ids hold. idFromEnd takes the last digits
// of the session id instead of the first, for ids whose first digits are
// a time (UUIDv7: the same for sessions started within a minute).
func TapeName(s Session, long, idFromEnd bool) string {
	name := s.Source + "-" + shortID(s.ID, idFromEnd)
	if s.Agent != "" {
		name += "-agent-" + shortID(s.Agent, false)
	}
	if long {
		name += "-" + ShortSum([]byte(s.Key()))
	}
	return name
}

// shortID is the first (or last) shortHex letters and digits of an id.
func shortID(id string, fromEnd bool) string {
	id = strings.ReplaceAll(nameSafe(id), "-", "")
	switch {
	case id == "":
		return "x"
	case len(id) <= shortHex:
		return id
	case fromEnd:
		return id[len(id)-shortHex:]
	}
	return id[:shortHex]
}

// nameSafe keeps the letters, digits, '-', '_' and '.' of an id, so that
// any id makes a valid tape name.
func nameSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if s == "" {
		return "x"
	}
	return s
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a UUID in its 36-character form: how a
// source tells a session's id in a transcript's file name.
func IsUUID(s string) bool { return uuidRE.MatchString(s) }
