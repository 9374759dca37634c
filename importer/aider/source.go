// Package aider imports Aider's chat logs: .aider.chat.history.md, the
// Markdown file Aider appends each run of a project to (a run starts at
// "# aider chat started at <time>"; the user's lines start with "#### ",
// Aider's own output is blockquoted with "> ", the model's answers are
// plain text with its edits as SEARCH/REPLACE blocks), one tape per run;
// and .aider.input.history, the user's inputs with their times, one tape
// per file. Both lie in the project folder (the git repository's root),
// not in a folder of Aider's own. docs/IMPORT.md has the mapping, and
// decision 0096 why it is so.
//
// Files: source.go (where the files are, which tape), chat.go (a chat
// history's lines into blocks, held until the next line of another kind),
// blocks.go (a block's entries), edits.go (thinking and SEARCH/REPLACE
// blocks in an answer), tool.go (Aider's output: command results, edit
// results, usage), usage.go (the "Tokens:" line), input.go (the input
// history), dates.go (Aider's local times).
package aider

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// The files Aider writes in a project, by default.
const (
	ChatHistory  = ".aider.chat.history.md"
	InputHistory = ".aider.input.history"
)

// homeDepth is how many folders below the home folder a walk of it goes
// (decision 0096): ~/a/b/c/.aider.chat.history.md is found, a project
// deeper is not, unless its folder, or one above it, is named.
const homeDepth = 3

// Source is Aider's chat and input histories, as tape imports them:
// `tape import aider`.
type Source struct{}

// Name is "aider".
func (Source) Name() string { return "aider" }

func (Source) Agent() string { return "Aider" }

// DefaultDirs is the home folder, walked homeDepth folders deep (Prune),
// once Aider has run on this machine: it keeps ~/.aider (its version
// check and analytics). Without ~/.aider, none: a home folder is not
// walked for an agent that was never run there. config.json's
// aider_roots, when it names folders, is read instead (Roots).
func (Source) DefaultDirs(_ func(string) string, home string) []string {
	if home == "" {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(home, ".aider")); err != nil || !fi.IsDir() {
		return nil
	}
	return []string{home}
}

// DirsEnv is "": Aider has no variable for a folder of its files (its
// AIDER_CHAT_HISTORY_FILE names one file, which may be given as a PATH).
func (Source) DirsEnv() string { return "" }

// Roots are the folders config.json's aider_roots names, ~ and relative
// paths taken from the home folder.
func (Source) Roots(cfg tapelog.Config, home string) []string {
	var out []string
	for _, r := range cfg.AiderRoots {
		switch {
		case r == "":
			continue
		case r == "~":
			r = home
		case strings.HasPrefix(r, "~/"):
			r = filepath.Join(home, r[2:])
		case !filepath.IsAbs(r):
			r = filepath.Join(home, r)
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

// IsTranscript reports whether path is a chat or an input history by its
// default name.
func (Source) IsTranscript(path string) bool {
	base := filepath.Base(path)
	return base == ChatHistory || base == InputHistory
}

// Prune leaves out of a walk the folders no history is in: .git and
// node_modules anywhere; and under the home folder (the default, or the
// home folder named), its hidden folders, macOS's Library, and every
// folder more than homeDepth below it.
func (Source) Prune(root, path string, depth int) bool {
	name := filepath.Base(path)
	if name == ".git" || name == "node_modules" {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || filepath.Clean(root) != filepath.Clean(home) {
		return false
	}
	return depth > homeDepth || strings.HasPrefix(name, ".") || depth == 1 && name == "Library"
}

// TapeName is "aider-", the project's folder (its first 11 letters,
// digits, '-', '_' and '.') and the run's start ("aider-myrepo-250610-091502"),
// or "input" for an input history ("aider-myrepo-input"): Aider has no
// session ids, and the path the session id holds is too long for a name.
// long adds the first 8 hex digits of the SHA-256 of the session's key,
// as source.TapeName does: the name of a run whose short name another
// project's run of the same second has, or a second run of the same
// second.
func (Source) TapeName(s source.Session, long bool) string {
	name := "aider-" + shortName(s.ID)
	if long {
		name += "-" + source.ShortSum([]byte(s.Key()))
	}
	return name
}

// shortName is the part of a tape name after "aider-" of the session id
// id: "<path>#<run start>" (and "#<n>" for the n-th run of one second),
// or "<path>#input".
func shortName(id string) string {
	slash := strings.LastIndexByte(id, '/')
	hash := strings.IndexByte(id[slash+1:], '#')
	if slash < 0 || hash < 0 {
		return source.ShortSum([]byte(id))
	}
	project := nameSafe(filepath.Base(id[:slash]))
	if len(project) > 11 {
		project = project[:11]
	}
	when := id[slash+1+hash+1:]
	if when == "input" {
		return project + "-input"
	}
	var d []byte
	for i := 0; i < len(when) && len(d) < 14; i++ {
		if when[i] >= '0' && when[i] <= '9' {
			d = append(d, when[i])
		}
	}
	if len(d) < 14 {
		return project + "-" + source.ShortSum([]byte(when))
	}
	return project + "-" + string(d[2:8]) + "-" + string(d[8:14])
}

// nameSafe keeps the letters, digits, '-', '_' and '.' of s (not a '.'
// first): a part of a tape name.
func nameSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if out == "" {
		return "x"
	}
	return out
}

// NewConverter starts a converter of the file at path: an input history
// when its name ends in "input.history", else a chat history (Aider's
// --chat-history-file may name it anything).
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	if strings.HasSuffix(filepath.Base(path), "input.history") {
		return source.NewConverter(newInputConverter(path, state))
	}
	return source.NewConverter(newChatConverter(path, state))
}

// fileTag is the part of an entry's id that names the file at path: the
// path itself, for every project's history has the same name (and a
// tag of a sum would hide which file an id is of).
func fileTag(path string) string { return path }

// lineID is the id of the k-th entry made from line n of the file of tag:
// the tag and the line number ("/home/u/app/.aider.chat.history.md:12").
func lineID(tag string, n, k int) string {
	return source.WithPart(tag+":"+strconv.Itoa(n), k)
}
