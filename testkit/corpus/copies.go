package corpus

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Copies of real transcripts, the users' shape at any size (issue 31): a
// folder of agent transcripts (Claude Code's projects/, Codex's sessions/)
// copied n times with every id rewritten per copy, consistently across
// files and in file names, so that each copy is a set of sessions of its
// own (its sessions, messages, requests and tool calls new) and the text
// is the real text.

// idPattern matches the ids agents write: UUIDs (sessions, records, Codex
// rollouts), provider-prefixed ids (Anthropic's msg_, req_, toolu_;
// OpenAI's call_, fc_, resp_, rs_; OpenCode's ses_, prt_), and Claude Code's subagent ids, in a
// file name (agent-<id>) or a field ("agentId":"<id>").
var idPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}` +
	`|\b(?:msg|req|toolu|call|fc|resp|rs|ses|prt)_[0-9A-Za-z]{8,}` +
	`|agent-[0-9a-f]{6,}|"agentId":"[0-9a-f]{6,}"`)

// CopyStats is what CopyTranscripts wrote.
type CopyStats struct {
	Files int
	Bytes int64
}

// CopyTranscripts writes n copies of every file under src into dst, each
// with its ids rewritten for that copy (RewriteIDs), in the same folders:
// a project's copies sit beside its sessions, as more sessions of it would.
// A file whose path holds no id goes under copy-<k>/, so that no copy
// overwrites another.
func CopyTranscripts(src, dst string, n int) (CopyStats, error) {
	var st CopyStats
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		ids := idPattern.FindAllIndex(data, -1) // once: the regexp is most of the time
		for k := range n {
			to := string(RewriteIDs(k, []byte(rel)))
			if to == rel {
				to = filepath.Join(fmt.Sprintf("copy-%d", k), rel)
			}
			out := filepath.Join(dst, to)
			if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
				return err
			}
			copied := rewriteAt(k, data, ids)
			if err := os.WriteFile(out, copied, 0o600); err != nil {
				return err
			}
			st.Files++
			st.Bytes += int64(len(copied))
		}
		return nil
	})
	return st, err
}

// RewriteIDs returns b with every id idPattern matches replaced by the id
// of copy k: of the same form and length, the same for the same id, and
// another for another copy or another id.
func RewriteIDs(k int, b []byte) []byte { return rewriteAt(k, b, idPattern.FindAllIndex(b, -1)) }

// rewriteAt is b with the ids at the spans idPattern found rewritten for
// copy k; an id keeps its length, so the rest is copied as it is.
func rewriteAt(k int, b []byte, spans [][]int) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	for _, sp := range spans {
		rewriteID(k, out[sp[0]:sp[1]])
	}
	return out
}

// rewriteID rewrites, in place, the id idPattern matched.
func rewriteID(k int, out []byte) {
	id := string(out)
	start, end := 0, len(out)
	switch {
	case out[0] == '"': // "agentId":"<hex>"
		start, end = len(`"agentId":"`), end-1
	case id[:6] == "agent-":
		start = len("agent-")
	default: // after a provider's prefix; a UUID from its start
		if i := strings.IndexByte(id, '_'); i >= 0 {
			start = i + 1
		}
	}
	fill(out[start:end], k, []byte(id[start:end])) // the bare id: agent-X and "agentId":"X" agree
}

// fill overwrites the id's characters, keeping dashes, with hex digits (or
// letters and digits where the id had others) drawn from a hash of the
// copy and the id.
func fill(b []byte, k int, id []byte) {
	var stream []byte
	for block := 0; len(stream) < 2*len(b); block++ {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%d/", k, block)
		h.Write(id)
		stream = binary.BigEndian.AppendUint64(stream, h.Sum64())
	}
	digits := hex.EncodeToString(stream)
	const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	for i, c := range b {
		switch {
		case c == '-':
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
			b[i] = digits[i]
		default:
			b[i] = alnum[int(stream[i%len(stream)])%len(alnum)]
		}
	}
}
