package qwen

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// record is the part of a transcript line the mapping reads: Qwen Code's
// ChatRecord. Its raw members are parts of the line, valid while the line
// is converted.
type record struct {
	Type, Subtype   string
	UUID, Parent    string // uuid, parentUuid
	SessionID       string
	CWD, GitBranch  string
	Version, Model  string
	AgentID         string
	AgentName       string
	Provenance      string
	IsSidechain     bool
	RawDate         []byte // timestamp as written: Timestamp is what source.RecordDate reads of it
	Timestamp       string
	badDate         []byte // RawDate, when it is no date
	Message         []byte // message (an object), nil when absent or null
	Usage           []byte // usageMetadata
	ToolCallResult  []byte
	SystemPayload   []byte
	ForkedFrom      []byte
	members         []rawjson.Member // the line's members, each key once (the last written)
	mismatch        bool             // a member the mapping reads is of another type than Qwen Code writes
	hasType         bool             // type is a string
	messageReadable bool             // message is absent, null, or an object whose parts the mapping reads
}

// decode reads a line's members (source.LineMembers, which checks the
// line) and the envelope's from them.
func (c *converter) decode(line []byte) (record, error) {
	members, err := source.LineMembers(line, c.members)
	if err != nil {
		return record{}, err
	}
	c.members = members
	r := record{members: members}
	for _, mb := range r.members {
		r.read(string(mb.Key), source.Trim(mb.Value))
	}
	return r, nil
}

// read takes one member of the line into r.
func (r *record) read(key string, v []byte) {
	str := func(dst *string) {
		if string(v) == "null" {
			return
		}
		s, ok := source.StringValue(v)
		r.mismatch = r.mismatch || !ok
		*dst = s
	}
	switch key {
	case "type":
		str(&r.Type)
		_, r.hasType = source.StringValue(v)
	case "subtype":
		str(&r.Subtype)
	case "uuid":
		str(&r.UUID)
	case "parentUuid":
		str(&r.Parent)
	case "sessionId":
		str(&r.SessionID)
	case "cwd":
		str(&r.CWD)
	case "gitBranch":
		str(&r.GitBranch)
	case "version":
		str(&r.Version)
	case "model":
		str(&r.Model)
	case "agentId":
		str(&r.AgentID)
	case "agentName":
		str(&r.AgentName)
	case "provenance":
		str(&r.Provenance)
	case "isSidechain":
		switch string(v) {
		case "true":
			r.IsSidechain = true
		case "false", "null":
		default:
			r.mismatch = true
		}
	case "timestamp":
		r.RawDate = v
	case "message":
		switch {
		case string(v) == "null":
		case len(v) > 0 && v[0] == '{':
			r.Message = v
		default:
			r.mismatch = true
		}
	case "usageMetadata":
		r.Usage = v
	case "toolCallResult":
		r.ToolCallResult = v
	case "systemPayload":
		r.SystemPayload = v
	case "forkedFrom":
		r.ForkedFrom = v
	}
}

// envelope are the members that place a record (ids, dates, where it was
// written, who wrote it) rather than say what it holds: what an event
// that keeps a record leaves out (docs/IMPORT.md).
var envelope = map[string]bool{
	"uuid": true, "parentUuid": true, "sessionId": true, "timestamp": true, "type": true, "subtype": true,
	"cwd": true, "version": true, "gitBranch": true, "provenance": true,
	"agentId": true, "agentName": true, "agentColor": true, "isSidechain": true,
}

// withoutEnvelope is the record's members but the envelope's, as a JSON
// object.
func (r record) withoutEnvelope() []byte {
	return source.MembersObject(r.members, func(k string) bool { return envelope[k] })
}

// whole is the record, every member of it, as a JSON object.
func (r record) whole() []byte { return source.MembersObject(r.members, nil) }

// member is the value of the record's member key (nil when absent).
func (r record) member(key string) []byte {
	v, _ := rawjson.Lookup(r.members, key)
	return v
}
