package read

import "testing"

func TestResumeShellLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    Resume
		want string
	}{
		{Resume{Argv: []string{"claude", "--resume", "abc-1"}, CWD: "/home/u/proj"}, "cd /home/u/proj && claude --resume abc-1"},
		{Resume{Argv: []string{"codex", "resume", "x"}, CWD: "/home/u/my proj's"}, `cd '/home/u/my proj'\''s' && codex resume x`},
		{Resume{Argv: []string{"claude", "--resume", "=ls"}}, "claude --resume '=ls'"}, // zsh expands a bare =word
		{Resume{Argv: []string{"claude", "--resume", "$(rm -rf ~)"}}, `claude --resume '$(rm -rf ~)'`},
		{Resume{}, ""},
	} {
		if got := tc.r.Shell(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.r, got, tc.want)
		}
	}
}
