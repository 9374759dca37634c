package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// SessionOptions shape a workspace of sessions (GenerateSessions).
type SessionOptions struct {
	Tapes        int // sessions, one tape each
	Seed         uint64
	End          time.Time // the sessions start in the Days before it; zero means 2026-11-01 UTC
	Days         int       // 0 means 90
	ChineseShare float64   // share of texts in Chinese; 0 means 0.2
}

// SessionStats says what GenerateSessions wrote.
type SessionStats struct {
	Tapes   int
	Anchors int   // anchor folders
	Files   int   // files of the anchor folders, anchor.json included
	Entries int   // entry lines of the JSONL files (anchor entries not counted)
	Bytes   int64 // of the JSONL files
}

// The shape of a workspace of sessions, as the users' workspaces are:
// thousands of short sessions and a few long ones.
const (
	sessionMedian = 20   // entries of a session: log-normal, median 20 ...
	sessionSigma  = 1.06 // ... and mean about 35 (exp(σ²/2) = 1.75)
	sessionMax    = 600
	handoffShare  = 0.15 // of sessions, a second anchor folder (a compaction), more likely the longer they are
	codexShare    = 5    // one session in five is Codex's, the others Claude Code's
	titleShare    = 0.6  // of Claude Code sessions, a title event
	pendingShare  = 0.03 // of calls, no result
	failedShare   = 0.06 // of results, failed
)

// GenerateSessions writes into the .tape folder dir (created if needed) a
// workspace of many small sessions, one tape each, as `tape import`
// writes Claude Code's and Codex's sessions (docs/IMPORT.md): the first
// anchor's state says where the session came from (source, session_id,
// file, cwd, git_branch), entries' meta names the transcript line, the
// working directory and the branch when they change, and the entries are
// mostly tool calls (ids, each answered by id, some failed, a few never)
// and their results, with messages, run events with model and usage, and
// titles. Sessions start over the Days before End, and last minutes to
// hours. Texts are drawn as Generate draws them, rare words included
// (RareWord, counting the entry lines in the order they are written). The
// same options give the same files.
func GenerateSessions(dir string, opts SessionOptions) (SessionStats, error) {
	if opts.End.IsZero() {
		opts.End = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	}
	if opts.Days == 0 {
		opts.Days = 90
	}
	if opts.ChineseShare == 0 {
		opts.ChineseShare = 0.2
	}
	g := newGenerator(opts.Seed, 0x5e55, Options{ChineseShare: opts.ChineseShare}, opts.End)
	var st SessionStats
	names := map[string]bool{}
	for range opts.Tapes {
		s := g.newSession(opts, names, &st)
		if err := s.write(dir); err != nil {
			return st, fmt.Errorf("write tape %s: %w", s.tape, err)
		}
		st.Tapes++
	}
	return st, nil
}

// session writes one session's tape.
type session struct {
	g           *generator
	st          *SessionStats
	codex       bool
	id, tape    string
	transcript  string // the file it was imported from
	tag         string // of the ids of its lines without a uuid
	cwd, branch string
	model       string
	at          time.Time
	line        int    // the transcript's last line
	parent      string // Claude Code: the uuid of the line before
	metaCWD     string // the working directory and the branch meta said last
	metaBranch  string
	count       int // entries written
	folder      string
	files       folderFiles
}

func (g *generator) newSession(opts SessionOptions, names map[string]bool, st *SessionStats) *session {
	s := &session{g: g, st: st, codex: g.r.IntN(codexShare) == 0, id: g.uuid()}
	s.at = opts.End.Add(-time.Duration(g.r.Int64N(int64(opts.Days) * int64(24*time.Hour))))
	project := fmt.Sprintf("project%02d", g.r.IntN(30))
	s.cwd, s.branch = "/home/dev/src/"+project, "main"
	if g.r.IntN(3) == 0 {
		s.branch = "fix-" + g.word()
	}
	if s.codex {
		s.tape = "codex-" + s.id[len(s.id)-8:]
		s.transcript = fmt.Sprintf("/home/dev/.codex/sessions/%s/rollout-%s-%s.jsonl", s.at.Format("2006/01/02"), s.at.Format("2006-01-02T15-04-05"), s.id)
		s.model = []string{"gpt-5-codex", "gpt-5"}[g.r.IntN(2)]
	} else {
		s.tape = "claude-" + s.id[:8]
		s.transcript = "/home/dev/.claude/projects/-home-dev-src-" + project + "/" + s.id + ".jsonl"
		s.model = []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"}[g.r.IntN(2)]
	}
	s.tag = shortHash(filepath.Base(s.transcript), 3)
	if names[s.tape] { // as the importer names a second session with the same short name
		s.tape += "-" + shortHash(s.id, 4)
	}
	names[s.tape] = true
	return s
}

// shortHash is the first n bytes of the SHA-256 of s, in hex.
func shortHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:n])
}

// length draws how many entries a session has.
func (g *generator) length() int {
	n := math.Exp(math.Log(sessionMedian) + sessionSigma*g.r.NormFloat64())
	return min(sessionMax, max(2, int(math.Round(n))))
}

// write writes the session's anchor folders and their entries: a first
// message from the user, then steps until it has its length, a title
// early on, and a compaction in some.
func (s *session) write(dir string) error {
	g := s.g
	n := g.length()
	handoff := -1
	if n >= 6 && g.r.Float64() < handoffShare*float64(n)/35 {
		handoff = n/3 + g.r.IntN(n/3+1)
	}
	title := -1
	if !s.codex && g.r.Float64() < titleShare {
		title = 1 + g.r.IntN(3)
	}
	if err := s.startFolder(dir, 1, "session/start", lineSource{File: s.transcript, Line: 1, id: s.id}, s.startState()); err != nil {
		return err
	}
	s.message("user")
	for s.count < n {
		switch {
		case s.count >= handoff && handoff >= 0:
			handoff = -1
			if err := s.compact(dir); err != nil {
				return err
			}
		case s.count >= title && title >= 0:
			title = -1
			s.title()
		default:
			s.step()
		}
	}
	return s.endFolder()
}

// startState is the state of the first anchor, as the importer writes it.
func (s *session) startState() map[string]any {
	state := map[string]any{"source": "claude", "session_id": s.id, "file": s.transcript, "cwd": s.cwd, "git_branch": s.branch}
	if s.codex {
		state["source"], state["cli_version"], state["originator"] = "codex", "0.46.0", "codex_cli_rs"
		state["git_commit"] = fmt.Sprintf("%016x%016x%08x", s.g.r.Uint64(), s.g.r.Uint64(), s.g.r.Uint32())
	} else {
		state["version"] = "2.1.100"
	}
	return state
}

// compact hands off to a second anchor folder, as a compaction does.
func (s *session) compact(dir string) error {
	g := s.g
	state := map[string]any{"source": "claude", "compact": map[string]any{"trigger": "auto", "preTokens": 150000 + g.r.IntN(20000)}}
	if s.codex {
		state = map[string]any{"source": "codex"}
	}
	state["summary"] = "This session is being continued from a previous conversation that ran out of context.\n\n" + g.text(g.size(200, 4000))
	if err := s.endFolder(); err != nil {
		return err
	}
	return s.startFolder(dir, 2, "compact", s.next(!s.codex, ""), state)
}

// startFolder makes the anchor folder seq of the tape, and its anchor
// made from the transcript's line src.
func (s *session) startFolder(dir string, seq int, name string, src lineSource, state map[string]any) error {
	s.folder = filepath.Join(dir, "tapes", s.tape, "anchors", tapelog.FolderName(int64(seq), name))
	if err := os.MkdirAll(s.folder, 0o700); err != nil {
		return err
	}
	rec := record{ID: src.id, Kind: tapelog.KindAnchor, Payload: map[string]any{"name": name, "state": state}, Meta: entryMeta{Source: src}, Date: s.date()}
	var b folderFiles
	encode(b.file(tapelog.AnchorFile), rec)
	n, err := b.write(s.folder)
	s.st.Anchors++
	s.st.Files += n
	return err
}

// endFolder writes the files of the anchor folder.
func (s *session) endFolder() error {
	n, err := s.files.write(s.folder)
	s.st.Files += n
	return err
}

// step writes what comes next in a session: a message, a tool call and
// its results, or a run event, in the proportions of the users' sessions
// (of the entries, about 20% messages, 36% calls, 39% results, 5% runs).
func (s *session) step() {
	k := s.g.r.IntN(60)
	if k >= 55 && s.rare() != "" { // a run event has no text to hold the rare word
		k = 0
	}
	switch {
	case k < 20:
		s.message([]string{"user", "assistant", "assistant"}[s.g.r.IntN(3)])
	case k < 55:
		s.toolCalls()
	default:
		s.run()
	}
}

// rare is the rare word of the next entry, with a space before it; ""
// for most.
func (s *session) rare() string {
	if i := s.st.Entries; i%RareEvery == 0 {
		return " " + RareWord(i)
	}
	return ""
}

func (s *session) message(role string) {
	payload := map[string]any{"role": role, "content": s.g.text(s.g.size(40, 3000)) + s.rare()}
	s.emit(tapelog.KindMessage, s.next(!s.codex, ""), payload)
}

// toolCalls writes a tool_call entry of one to three calls, then a result
// for each, by id, but for the few left pending; some fail.
func (s *session) toolCalls() {
	g := s.g
	if g.r.IntN(200) == 0 {
		s.branch = "fix-" + g.word() // the session moved to another branch
	}
	n := 1
	if k := g.r.IntN(50); k < 5 {
		n = 2 + k/4
	}
	calls, ids := make([]any, n), make([]string, n)
	rare := s.rare()
	for i := range calls {
		ids[i] = fmt.Sprintf("toolu_01%022x", g.r.Uint64())
		if s.codex {
			ids[i] = fmt.Sprintf("call_%016x", g.r.Uint64())
		}
		name, input := s.toolInput(rare)
		rare = ""
		args, _ := json.Marshal(input) // strings: it cannot fail
		calls[i] = map[string]any{"id": ids[i], "type": "function", "function": map[string]any{"name": name, "arguments": string(args)}}
	}
	s.emit(tapelog.KindToolCall, s.next(!s.codex, ""), map[string]any{"calls": calls})
	for _, id := range ids {
		if g.r.Float64() < pendingShare {
			continue
		}
		result := map[string]any{"tool_call_id": id, "content": g.text(g.size(10, 10000)) + s.rare()}
		if g.r.Float64() < failedShare {
			result["is_error"] = true
		}
		s.emit(tapelog.KindToolResult, s.next(!s.codex, ""), map[string]any{"results": []any{result}})
	}
}

var codexTools = []string{"shell", "apply_patch", "update_plan", "view_image"}

// toolInput draws a tool and its input.
func (s *session) toolInput(rare string) (string, map[string]any) {
	g := s.g
	names := tools
	if s.codex {
		names = codexTools
	}
	name := names[g.r.IntN(len(names))]
	path := s.cwd + "/" + g.word() + "/" + g.word() + ".go"
	switch name {
	case "Bash", "shell":
		return name, map[string]any{"command": g.sentence(2+g.r.IntN(10)) + rare, "description": g.sentence(5)}
	case "Edit", "Write", "apply_patch":
		return name, map[string]any{"file_path": path, "content": g.text(g.size(20, 2000)) + rare}
	default:
		return name, map[string]any{"file_path": path, "pattern": g.sentence(2) + rare}
	}
}

// run writes a run event: the model of a turn and its usage.
func (s *session) run() {
	g := s.g
	model := s.model
	if g.r.IntN(10) == 0 {
		model = "claude-haiku-4-5-20251001"
		if s.codex {
			model = "gpt-5-mini"
		}
	}
	usage := map[string]any{"input_tokens": 1 + g.r.IntN(20), "cache_creation_input_tokens": g.r.IntN(5000),
		"cache_read_input_tokens": g.r.IntN(90000), "output_tokens": 20 + g.r.IntN(2000)}
	usageID := fmt.Sprintf("msg_01%022x:req_011C%020x", g.r.Uint64(), g.r.Uint64())
	if s.codex {
		usageID = fmt.Sprintf("codex:%016x", g.r.Uint64())
	}
	data := map[string]any{"status": "ok", "model": model, "usage": usage, "usage_id": usageID}
	s.emit(tapelog.KindEvent, s.next(!s.codex, "/usage"), map[string]any{"name": "run", "data": data})
}

// title writes the title Claude Code gives a session.
func (s *session) title() {
	data := map[string]any{"title": s.g.sentence(3+s.g.r.IntN(5)) + s.rare(), "from": "ai-title"}
	s.emit(tapelog.KindEvent, s.next(false, ""), map[string]any{"name": "title", "data": data})
}

// lineSource is the transcript line an entry was made from: its meta's
// "source".
type lineSource struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	UUID   string `json:"uuid,omitempty"`
	Parent string `json:"parent_uuid,omitempty"`
	id     string // the entry's id
}

// next moves to the transcript's next line, a moment later, and names the
// entry made from it as the importer does: by the line's uuid, with a
// suffix ("/usage" for a run event), when the line has one; else by the
// transcript's tag and the line's number.
func (s *session) next(uuid bool, suffix string) lineSource {
	s.line += 1 + s.g.r.IntN(2) // some lines make no entry
	s.at = s.at.Add(time.Duration(200+s.g.r.IntN(20000)) * time.Millisecond)
	src := lineSource{File: s.transcript, Line: s.line, id: fmt.Sprintf("%s:%d", s.tag, s.line)}
	if uuid {
		src.UUID, src.Parent = s.g.uuid(), s.parent
		src.id, s.parent = src.UUID+suffix, src.UUID
	}
	return src
}

func (s *session) date() string { return s.at.Format("2006-01-02T15:04:05.000Z") }

// record is an entry's line, its fields in the order tape writes them.
type record struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Payload any    `json:"payload"`
	Meta    any    `json:"meta"`
	Date    string `json:"date,omitempty"`
}

// entryMeta is an imported entry's meta: where it came from, and the
// working directory and branch when they changed.
type entryMeta struct {
	Source lineSource `json:"source"`
	CWD    string     `json:"cwd,omitempty"`
	Branch string     `json:"git_branch,omitempty"`
}

// emit writes an entry made from the transcript line src.
func (s *session) emit(kind string, src lineSource, payload any) {
	meta := entryMeta{Source: src}
	if s.cwd != s.metaCWD {
		meta.CWD, s.metaCWD = s.cwd, s.cwd
	}
	if s.branch != s.metaBranch {
		meta.Branch, s.metaBranch = s.branch, s.branch
	}
	b := s.files.file(tapelog.FileForKind(kind))
	n := b.Len()
	encode(b, record{ID: src.id, Kind: kind, Payload: payload, Meta: meta, Date: s.date()})
	s.count++
	s.st.Entries++
	s.st.Bytes += int64(b.Len() - n)
}

// encode writes v as one line of JSON, as tape writes it: no HTML escapes.
func encode(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps and slices of strings and numbers into a buffer: it cannot fail
}
