package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
)

// What the tools' results hold. An entry, an anchor, a tape, a call and a
// usage group have the names the CLI's --json output gives them (tape log
// --json, tape anchors --json, ...), so that an agent reads one shape
// whichever way it asked.

// entryRecord is an entry, as `tape log --json` prints it.
type entryRecord struct {
	ID        string          `json:"id"`
	Tape      string          `json:"tape"`
	Anchor    string          `json:"anchor" jsonschema:"the name of the anchor (phase) the entry belongs to"`
	AnchorSeq int64           `json:"anchor_seq" jsonschema:"the anchor's sequence number in its tape"`
	Kind      string          `json:"kind" jsonschema:"message, tool_call, tool_result, event, error, system, anchor, or an agent's own"`
	Date      *string         `json:"date" jsonschema:"when it was written (RFC 3339), or null"`
	Payload   json.RawMessage `json:"payload" jsonschema:"the entry's content; a message's is a chat message ({role, content})"`
	Meta      json.RawMessage `json:"meta"`
	File      string          `json:"file" jsonschema:"the file it is in, relative to the .tape folder"`
	Line      int             `json:"line"`
}

func newEntryRecord(e tapelog.Entry) entryRecord {
	r := entryRecord{ID: e.ID, Tape: e.Pos.Tape, Anchor: e.Pos.Anchor, AnchorSeq: e.Pos.AnchorSeq, Kind: e.Kind,
		Date: optional(e.Date), Payload: e.Payload, Meta: e.Meta, File: e.Pos.Path(), Line: e.Pos.Line}
	if r.Payload == nil {
		r.Payload = json.RawMessage("null")
	}
	if r.Meta == nil {
		r.Meta = json.RawMessage("{}")
	}
	return r
}

// anchorRecord is an anchor, as `tape anchors --json` prints it.
type anchorRecord struct {
	Name    string          `json:"name"`
	Seq     int64           `json:"seq"`
	State   json.RawMessage `json:"state" jsonschema:"the state the phase started with, as its handoff gave it ({} for none)"`
	Date    *string         `json:"date"`
	Entries int             `json:"entries" jsonschema:"how many entries it holds besides its anchor entry"`
	Folder  string          `json:"folder" jsonschema:"its folder, NNN_slug: what the anchor arguments and tape://<tape>/<folder> take"`
	Tape    string          `json:"tape"`
	Path    string          `json:"path,omitempty"`
}

func newAnchorRecord(tape string, a tapelog.Anchor, entries int) anchorRecord {
	r := anchorRecord{Name: a.Name, Seq: a.Seq, State: a.State, Date: optional(a.Entry.Date), Entries: entries, Folder: a.Folder, Tape: tape}
	if r.State == nil {
		r.State = json.RawMessage("{}")
	}
	return r
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// jsonLines is records as JSON lines: the text form of a list of entries,
// which a model reads as readily as the structured form.
func jsonLines[T any](records []T) (string, error) {
	var b strings.Builder
	for _, r := range records {
		line, err := marshal(r)
		if err != nil {
			return "", err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// plural is "1 entry", "2 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
