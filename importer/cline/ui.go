package cline

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// ui_messages.json (claude_messages.json in Claude Dev 1.x) is what the
// person saw: an array of {"ts", "type": "say" or "ask", "say" or "ask":
// what it is, "text", "images", "files", "partial", ...}, each message's
// ts its id, written again as it changes (a streamed text grows, a
// request's tokens come when it ends). Most of it shows the model's
// messages, calls and results, which api_conversation_history.json holds
// too (echoes, below); what only it holds is each request's tokens and
// cost, and what the agent told the person: errors, retries,
// checkpoints, hooks.

// echoedSays and echoedAsks are the messages that show what the model's
// messages hold (its text, reasoning, calls and their results, the
// person's answers): they make no entry, for those messages' entries
// hold their text (decision 0094).
var (
	echoedSays = map[string]bool{
		"text": true, "reasoning": true, "user_feedback": true, "user_feedback_diff": true, "completion_result": true,
		"tool": true, "command": true, "command_output": true, "browser_action": true, "browser_action_launch": true,
		"browser_action_result": true, "mcp_server_request_started": true, "mcp_server_response": true,
		"use_mcp_server": true, "subtask_result": true, "codebase_search_result": true, "task_progress": true,
		"use_subagents": true, "subagent": true, "load_mcp_documentation": true,
	}
	echoedAsks = map[string]bool{
		"followup": true, "plan_mode_respond": true, "act_mode_respond": true, "command": true, "command_output": true,
		"completion_result": true, "tool": true, "browser_action_launch": true, "use_mcp_server": true,
		"new_task": true, "condense": true, "summarize_task": true, "report_bug": true, "use_subagents": true,
	}
)

// uiEnvelope are the members an event of a message does not keep: its
// entry's id, date and name say them.
var uiEnvelope = []string{"ts", "type", "say", "ask"}

// uiMessage maps a message the person saw: the first, the task, as the
// tape's title; a request's tokens as a run; an echo as nothing; any
// other as an event "cline/say/<say>" or "cline/ask/<ask>" of the message
// without its envelope. A message of another shape (no type, no name) is
// kept whole, as "cline/ui_message".
func (c *converter) uiMessage(in *input, ms []rawjson.Member, raw []byte) []source.Output {
	typ, _ := str(ms, "type")
	name, ok := str(ms, typ)
	if typ != "say" && typ != "ask" || !ok || !isPlain(name) {
		return append(c.start(in, nil), in.event("cline/ui_message", raw))
	}
	switch {
	case typ == "say" && in.index == 0 && (name == "task" || name == "text"):
		// The task the person gave, as Cline 3.57 and later call it
		// ("text" before, and in the forks): the title; its text and
		// images are the model's first message's.
		text, ok := str(ms, "text")
		if !ok {
			break
		}
		return append(c.start(in, nil), in.title(text, "task"))
	case typ == "say" && (name == "api_req_started" || name == "api_req_finished" || name == "subagent_usage"):
		run, ok := c.run(in, ms, name)
		if !ok {
			break
		}
		if run == nil {
			return nil // a request that has not ended: its text is the model's message
		}
		return append(c.start(in, nil), *run)
	case typ == "say" && echoedSays[name], typ == "ask" && echoedAsks[name]:
		return nil
	}
	return append(c.start(in, nil), in.event("cline/"+typ+"/"+name, others(ms, uiEnvelope...)))
}
