package bub

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// SessionTape is the tape name the Bub agent framework gives a session:
// md5(absolute project path)[:16] + "__" + md5(session id)[:16], in hex.
// The project is the folder that holds .tape, with symlinks resolved, as
// Python's Path.resolve() gives it. A Bub user who passes the same session
// id finds the same tape.
func SessionTape(project, sessionID string) (string, error) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", fmt.Errorf("session tape: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	return md5hex16(abs) + "__" + md5hex16(sessionID), nil
}

// FileTape is the tape a Bub tape file holds: Bub names each file after
// its tape, ~/.bub/tapes/<tape>.jsonl.
func FileTape(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

func md5hex16(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}
