package importer

import (
	"slices"
	"testing"

	"github.com/tape-dev/tape/importer/source"
)

// Each agent's command that reopens one of its sessions (decision 0108),
// and the agents that have none.
func TestResumeCommands(t *testing.T) {
	t.Parallel()
	s := source.Resumable{ID: "S1", CWD: "/home/u/app", File: "/home/u/.agent/s1.jsonl"}
	want := map[string][]string{
		"claude":   {"claude", "--resume", "S1"},
		"codex":    {"codex", "resume", "S1"},
		"gemini":   {"gemini", "--resume", "S1"},
		"qwen":     {"qwen", "--resume", "S1"},
		"copilot":  {"copilot", "--resume=S1"},
		"pi":       {"pi", "--session", "/home/u/.agent/s1.jsonl"},
		"kimi":     {"kimi", "--work-dir", "/home/u/app", "--session", "S1"},
		"droid":    {"droid", "--resume", "S1"},
		"opencode": {"opencode", "--session", "S1"},
		"kilo":     {"kilo", "--session", "S1"},
		"amp":      {"amp", "threads", "continue", "S1"},
		"aider":    {"aider", "--restore-chat-history", "--chat-history-file", "/home/u/.agent/s1.jsonl"},
		"goose":    {"goose", "session", "--resume", "--session-id", "S1"},
		"crush":    {"crush", "--session", "S1"},
		"cursor":   nil, // an editor's chat: the file is no CLI transcript
		"openclaw": nil, // resumed by a Gateway's session key, which the transcript does not give
		"cline":    nil, // VS Code's extensions: reopened in the editor
	}
	for _, name := range SourceNames() {
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: no resume command listed in this test", name)
			continue
		}
		got, ok := ResumeCommand(name, s)
		if !slices.Equal(got, w) || ok != (w != nil) {
			t.Errorf("%s: %q, %v; want %q", name, got, ok, w)
		}
		if none, ok := ResumeCommand(name, source.Resumable{}); ok {
			t.Errorf("%s: a session with no id nor file resumes as %q", name, none)
		}
	}
	cli := source.Resumable{ID: "c1", File: "/home/u/.cursor/projects/p/agent-transcripts/c1.jsonl"}
	if got, _ := ResumeCommand("cursor", cli); !slices.Equal(got, []string{"cursor-agent", "--resume=c1"}) {
		t.Errorf("a Cursor CLI chat: %q", got)
	}
	if _, ok := ResumeCommand("no-such-agent", s); ok {
		t.Error("an unknown source resumes")
	}
}
