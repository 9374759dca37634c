package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
)

// block is one thing a session shows: an anchor, a message, a tool call
// with what answered it, a result no call took, an event.
type block struct {
	kind   string // an entry kind, or "call" for a tool call
	id     string // the entry's
	date   string
	who    string // role, tool name, event name
	text   string // what it says: message text, thoughts, output
	args   string // a call's arguments
	status string // a call's: calls.StatusPending, StatusCompleted, StatusFailed
	took   string // a call's: the time to its answer
	dim    bool   // thinking, events, system text
	folded bool   // shown in a line until opened
	hidden bool   // a result shown with its call
	// lines are the block drawn at width linesAt (0: not drawn since it
	// changed): a fold toggled draws its block again, not the session's
	// thousands (300 ms at 10,000 entries).
	lines   []string
	linesAt int
	folder  string // the anchor folder it is in
}

// chat turns a session's entries into blocks, pairing each tool call with
// its result as the web page does (calls.CallFold), so that new entries
// fold into the calls already shown.
type chat struct {
	blocks []*block
	fold   calls.CallFold
	refs   int64
	byRef  map[int64][]*block // a tool entry's blocks: a tool_call's calls, a result's block
	raws   map[int64]json.RawMessage
}

func newChat() *chat {
	return &chat{byRef: map[int64][]*block{}, raws: map[int64]json.RawMessage{}}
}

// add reads the next entries of the session.
func (c *chat) add(entries []tapelog.Entry) {
	for _, e := range entries {
		c.addEntry(e)
	}
}

func (c *chat) addEntry(e tapelog.Entry) {
	b := &block{kind: e.Kind, id: e.ID, date: e.Date, folder: e.Pos.Folder}
	p, _ := rawjson.DecodeObject(e.Payload)
	switch e.Kind {
	case tapelog.KindAnchor:
		b.who, _ = p["name"].(string)
	case tapelog.KindMessage:
		b.who, _ = p["role"].(string)
		b.text, b.folded = views.MessageText(e.Payload), true // long text shows its start
	case tapelog.KindSystem:
		b.who, b.dim, b.folded = "system", true, true
		b.text = views.MessageText(e.Payload)
	case tapelog.KindEvent:
		b.who, _ = p["name"].(string)
		b.dim, b.folded = true, true
		b.text = views.EventText(b.who, p["data"])
		if run := views.ParseRun(e.Payload); run != nil {
			b.text = runLine(run)
		}
	case tapelog.KindError:
		b.who, _ = p["kind"].(string)
		b.text, _ = p["message"].(string)
		b.folded = true
	case tapelog.KindToolCall, tapelog.KindToolResult:
		c.tool(e, p, b)
		return
	}
	if b.text == "" && e.Kind != tapelog.KindAnchor {
		b.text = read.CompactJSON(e.Payload)
	}
	c.push(b)
	if views.IsToolKind(e.Kind) { // an error answers the calls before it
		c.foldIn(e, p, []*block{b})
	}
}

func (c *chat) push(b *block) { c.blocks = append(c.blocks, b) }

// tool adds a tool entry: a block per call of a tool_call, a block for a
// tool_result that its calls' blocks take the results of.
func (c *chat) tool(e tapelog.Entry, p map[string]any, b *block) {
	var blocks []*block
	if e.Kind == tapelog.KindToolCall {
		for _, raw := range views.Calls(e.Payload) {
			call := views.ParseCall(raw)
			cb := &block{kind: "call", id: e.ID, date: e.Date, folder: e.Pos.Folder, who: cmp.Or(call.Name, "tool"), status: calls.StatusPending, folded: true}
			cb.args = arguments(call.Arguments)
			blocks = append(blocks, cb)
		}
	} else {
		b.who, b.folded = "result", true
		var texts []string
		rs, _ := views.Results(e.Payload)
		for _, r := range rs {
			texts = append(texts, resultText(r))
		}
		b.text = strings.Join(texts, "\n")
		blocks = []*block{b}
	}
	for _, b := range blocks {
		c.push(b)
	}
	c.foldIn(e, p, blocks)
}

// foldIn hands a tool entry, shown as blocks, to the fold.
func (c *chat) foldIn(e tapelog.Entry, p map[string]any, blocks []*block) {
	c.refs++
	ref := c.refs
	c.raws[ref], c.byRef[ref] = e.Payload, blocks
	var at *int64
	if !e.Pos.Time.IsZero() && e.Date != "" {
		ns := e.Pos.Time.UnixNano()
		at = &ns
	}
	c.settle(c.fold.Add(calls.ToolEntry{Ref: ref, Kind: e.Kind, Time: at, Facts: views.Extract(e.Kind, p, e.Meta)}))
}

// settle writes what the fold paired into the calls' blocks, and hides a
// result whose every part a call shows.
func (c *chat) settle(done []calls.Call) {
	for _, call := range done {
		cbs := c.byRef[call.Entry]
		if call.Index >= len(cbs) {
			continue
		}
		cb := cbs[call.Index]
		cb.status, cb.linesAt = call.Status, 0
		if ms, ok := call.DurationMS(); ok {
			cb.took = (time.Duration(ms) * time.Millisecond).String()
		}
		if call.ResultEntry == 0 {
			continue
		}
		res := c.byRef[call.ResultEntry]
		if len(res) == 0 {
			continue
		}
		res[0].linesAt = 0
		rs, _ := views.Results(c.raws[call.ResultEntry])
		switch {
		case call.ResultIndex < 0:
			cb.text = res[0].text
		case call.ResultIndex < len(rs):
			cb.text = resultText(rs[call.ResultIndex])
			res[0].hidden = len(rs) == 1
		}
	}
}

// resultText is a result as text, or its JSON.
func resultText(raw json.RawMessage) string {
	if s, ok := views.ResultText(raw); ok {
		return s
	}
	return read.CompactJSON(raw)
}

// arguments are a call's arguments as text: a string as it is (OpenAI's
// JSON in a string, decoded), else compact JSON.
func arguments(raw json.RawMessage) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	return read.CompactJSON(raw)
}

// runLine is a run event in a line: its model and tokens.
func runLine(r *views.Run) string {
	s := cmp.Or(r.Model, "no model")
	if r.Usage {
		s += fmt.Sprintf(" · %d in, %d out", r.In, r.Out)
	}
	return s
}

// argKeys are the arguments a call's line shows alone when it has one:
// what a person reads a call by (the command run, the file read, the
// pattern looked for), rather than its whole JSON.
var argKeys = []string{"command", "cmd", "file_path", "path", "pattern", "query", "url", "description"}

// argsLine is a call's arguments in its folded line.
func argsLine(args string) string {
	m, err := rawjson.DecodeObject([]byte(args))
	if err != nil {
		return args
	}
	for _, k := range argKeys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any: // a command as argv (Codex's shell)
			words := make([]string, 0, len(v))
			for _, w := range v {
				if s, ok := w.(string); ok {
					words = append(words, s)
				}
			}
			if len(words) > 0 {
				return strings.Join(words, " ")
			}
		}
	}
	return args
}
