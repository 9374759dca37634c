package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bash script, run by bash, completes commands, a command's flags
// after a global flag and its value, and the values of an enum flag.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to test its completion script: install bash")
	}
	script, errOut, code := runTape(t, t.TempDir(), "completion", "bash")
	if code != 0 {
		t.Fatalf("tape completion bash: exit %d: %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "tape.bash")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		words string // the command line; the last word is completed
		want  string
	}{
		{"tape lo", "log"},
		{"tape s", "sources show search statusline secrets serve sync"}, // in the order of tape --help
		{"tape -t main log --fo", "--follow"},
		{"tape --tape-dir x search --all", "--all-tapes --all-words"},
		{"tape log --color al", "always"},
		{"tape --color never wa", "watch"},
		{"tape calls --status p", "pending"},
		// A command with subcommands completes them, then their flags.
		{"tape import c", "claude codex copilot crush cline cursor"},
		{"tape import --color never b", "bub"},
		{"tape import claude --f", "--full"},
		{"tape import bub --j", "--json"},
		{"tape show 1 --j", "--json"},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.words)
		shell := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _tape; echo "${COMPREPLY[*]}"`
		out, err := exec.Command(bash, append([]string{"-c", shell, "bash", file}, words...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v: %s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("completing %q = %q, want %q", tt.words, got, tt.want)
		}
	}
}

func TestCompletionZshAndFish(t *testing.T) {
	t.Parallel()
	zsh := mustRun(t, t.TempDir(), "completion", "zsh")
	if !strings.HasPrefix(zsh, "#compdef tape\n") || !strings.Contains(zsh, "complete -o default -F _tape tape") {
		t.Errorf("zsh script:\n%s", zsh)
	}
	fish := mustRun(t, t.TempDir(), "completion", "fish")
	for _, want := range []string{
		"complete -c tape -n __fish_use_subcommand -a search -d 'Find entries by their text",
		"complete -c tape -n '__fish_seen_subcommand_from log' -l follow -s f -d",
		"complete -c tape -l color -r -a 'auto always never' -d",
		"complete -c tape -n '__fish_seen_subcommand_from import; and not __fish_seen_subcommand_from all claude codex gemini qwen copilot pi kimi droid openclaw opencode amp aider goose crush cline cursor kilo bub' -a claude -d 'Import Claude Code",
		"complete -c tape -n '__fish_seen_subcommand_from import; and __fish_seen_subcommand_from claude' -l full -d",
	} {
		if !strings.Contains(fish, want) {
			t.Errorf("fish script lacks %q:\n%s", want, fish)
		}
	}
	if _, _, code := runTape(t, t.TempDir(), "completion", "powershell"); code != exitUsage {
		t.Errorf("completion powershell: exit %d, want %d", code, exitUsage)
	}
}
