package wording

import "testing"

// TestShellQuote checks the quoting of the paths doctor prints in
// commands.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/me/.tape":     `'/home/me/.tape'`,
		"/home/it's/.tape":   `'/home/it'\''s/.tape'`,
		"/home/a b/$x/.tape": `'/home/a b/$x/.tape'`,
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
