package remote

import (
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/redact"
)

// What a sync sends has its secrets replaced when SyncOptions.Redactor is
// set (tape sync's default): the entry's row (its line as sent, each of
// its strings decoded, redacted and encoded again), its text
// and search vector (made from the redacted entry), an anchor's state,
// and a bad line's text. The files are not changed; a line is redacted
// again each time it is sent. Stats.Redacted counts the secrets replaced.

// redactEntry is an entry and its line with their secrets replaced.
func (s *syncer) redactEntry(e tapelog.Entry, raw []byte) (tapelog.Entry, []byte) {
	r := s.opts.Redactor
	if r == nil {
		return e, raw
	}
	red, found := r.Entry(e)
	if len(found) == 0 {
		return e, raw
	}
	s.stats.Redacted += len(found)
	line, _ := r.JSON(raw) // the line as sent: each string decoded, its secrets replaced, encoded again, whatever escapes it used
	return red, line
}

// redactAnchor is an anchor and its anchor.json with their secrets
// replaced: the name, the state and the entry.
func (s *syncer) redactAnchor(a tapelog.Anchor, raw []byte) (tapelog.Anchor, []byte) {
	r := s.opts.Redactor
	if r == nil {
		return a, raw
	}
	var found []redact.Finding
	if raw != nil {
		raw, found = r.JSON(raw)
	}
	entry, inEntry := r.Entry(a.Entry)
	state, inState := r.JSON(a.State)
	name, inName := r.Text(a.Name)
	if n := len(found) + len(inEntry) + len(inState) + len(inName); n > 0 {
		s.stats.Redacted += n
		a.Entry, a.State, a.Name = entry, state, name
	}
	return a, raw
}

// redactText is a bad line's text with its secrets replaced.
func (s *syncer) redactText(raw []byte) []byte {
	r := s.opts.Redactor
	if r == nil {
		return raw
	}
	text, found := r.Text(string(raw))
	if len(found) == 0 {
		return raw
	}
	s.stats.Redacted += len(found)
	return []byte(text)
}
