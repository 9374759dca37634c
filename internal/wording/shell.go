package wording

import "strings"

// ShellQuote is s quoted for a POSIX shell, always: a command printed for
// a person to paste runs on the very path printed.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellWord is s as one word of a POSIX shell: as it is when it holds
// only characters no shell reads specially (and does not start with =,
// which zsh expands), else quoted.
func ShellWord(s string) string {
	if s != "" && s[0] != '=' && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return ShellQuote(s)
}
