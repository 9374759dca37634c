package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read/records"
)

// The tools that write: append and handoff. They write through package
// log, as tape append and tape handoff do: the same locks (an flock of
// the file for a line, of the tape for a handoff), the same checks and
// limits (max_entry_bytes), and tape names that never leave the
// workspace. They are refused unless the server was started with
// --allow-write.

// writes marks a tool that adds to a tape and never changes what is there.
var writes = &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}

// errReadOnly is what a write says on a server started without
// --allow-write.
var errReadOnly = errors.New("this tape server is read-only: append and handoff are enabled by starting it as 'tape mcp --allow-write' (in the agent's MCP configuration)")

type appendArgs struct {
	Tape    string     `json:"tape,omitempty" jsonschema:"The tape to append to, created if it does not exist. Left out: the workspace's default tape."`
	Kind    string     `json:"kind" jsonschema:"The entry's kind: message (payload {role, content}), tool_call, tool_result, event (payload {name, data}), error, system, or your own."`
	Payload jsonObject `json:"payload" jsonschema:"The entry's content, a JSON object."`
	Meta    jsonObject `json:"meta,omitempty" jsonschema:"Facts about the entry (a JSON object): its model, working directory, or context: false to leave it out of context."`
}

func (s *server) addAppend(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "append", Title: "Append an entry", Annotations: writes,
		Description: `Append one entry to the current anchor of a tape and return its id: a note, a decision, an event for the agents that read the tape later. The tape is created if it does not exist. Needs the server started with --allow-write.`},
		s.append)
}

func (s *server) append(ctx context.Context, a appendArgs) (records.Append, string, error) {
	if !s.opts.AllowWrite {
		return records.Append{}, "", errReadOnly
	}
	if a.Kind == "" {
		return records.Append{}, "", errors.New(`"kind" is required: message, tool_call, tool_result, event, error, system, or your own`)
	}
	t, err := s.openTape(a.Tape, tapelog.NewTape, false)
	if err != nil {
		return records.Append{}, "", err
	}
	defer t.Close()
	written, err := t.Append(ctx, tapelog.Entry{Kind: a.Kind, Payload: json.RawMessage(a.Payload), Meta: json.RawMessage(a.Meta)})
	if err != nil {
		return records.Append{}, "", err
	}
	r := records.NewAppend(written[0])
	return r, fmt.Sprintf("appended %s to tape %s, anchor %03d %s\n", r.ID, r.Tape, r.AnchorSeq, r.Anchor), nil
}

type handoffArgs struct {
	Tape    string     `json:"tape,omitempty" jsonschema:"The tape to hand off, created if it does not exist. Left out: the workspace's default tape."`
	Name    string     `json:"name" jsonschema:"The new anchor's name, the phase that starts (review, implement, session/resume); may contain /."`
	State   jsonObject `json:"state,omitempty" jsonschema:"The state the next phase inherits, a JSON object: what was done, what comes next, the branch, open questions."`
	Summary string     `json:"summary,omitempty" jsonschema:"A summary of the phase that ends, stored as state.summary."`
}

type handoffResult struct {
	records.Anchor
}

func (s *server) addHandoff(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "handoff", Title: "End a phase: start a new anchor", Annotations: writes,
		Description: `End the current phase of a tape and start the next: a new anchor with a name and the state the next phase starts from (a summary of what was done, what comes next). Later appends go to it, and context starts after it. Needs the server started with --allow-write.`},
		s.handoff)
}

func (s *server) handoff(ctx context.Context, a handoffArgs) (handoffResult, string, error) {
	if !s.opts.AllowWrite {
		return handoffResult{}, "", errReadOnly
	}
	state, err := tapelog.WithSummary(json.RawMessage(a.State), a.Summary)
	if err != nil {
		return handoffResult{}, "", err
	}
	t, err := s.openTape(a.Tape, tapelog.NewTape, false)
	if err != nil {
		return handoffResult{}, "", err
	}
	defer t.Close()
	an, err := t.Handoff(ctx, a.Name, state)
	if err != nil {
		return handoffResult{}, "", err
	}
	r := records.NewAnchor(t.Name(), an, 0, s.ws.Abs("tapes/"+t.Name()+"/anchors/"+an.Folder))
	return handoffResult{r}, fmt.Sprintf("handed off tape %s: anchor %s (%s)\n", r.Tape, r.Folder, r.Name), nil
}
