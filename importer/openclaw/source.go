// Package openclaw imports OpenClaw's session transcripts (the personal
// agent first called Clawdbot, then Moltbot): one entry of pi's session
// format a line, which OpenClaw's SessionManager (pi-coding-agent's, which
// OpenClaw builds on) writes to <state dir>/agents/<agent>/sessions/
// <session>.jsonl: a header ({"type": "session"}), then entries with an
// id and the id of the entry before them on their branch (parentId), the
// messages of pi-ai (user, assistant, toolResult) among them. The three
// layouts of that format (no ids; ids; the custom role) are read alike.
// OpenClaw 2026.7.2 and later keep their transcripts in a SQLite database
// instead, which is not read: decision 0091. docs/IMPORT.md has the
// mapping, field by field.
//
// Files: source.go (where transcripts live, their sessions, the
// converter's state), record.go (a line's members as the mapping reads
// them), convert.go (records to entries; the session's first anchor),
// entries.go (the records other than messages: compactions, branch
// summaries, model changes, titles, extensions' records), message.go (a
// message's members, by role), parts.go (a message's content), usage.go
// (an assistant message's usage to run events, as ccusage counts it).
package openclaw

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is OpenClaw's session transcripts, as tape imports them: `tape
// import openclaw`.
type Source struct{}

// Name is "openclaw".
func (Source) Name() string { return "openclaw" }

func (Source) Agent() string { return "OpenClaw" }

// stateDirs are the names of OpenClaw's state folder under the home
// folder: the current one, and those of Clawdbot and Moltbot (".moldbot"
// is a misspelling OpenClaw also looks for), in the order OpenClaw reads
// them (config/paths.ts).
var stateDirs = []string{".openclaw", ".clawdbot", ".moldbot", ".moltbot"}

// DefaultDirs are the agents/ and sessions/ folders of OpenClaw's state
// folder (sessions/ held the transcripts before agents/<agent>/sessions/,
// in Clawdbot's first releases): $OPENCLAW_STATE_DIR (else
// $CLAWDBOT_STATE_DIR, its name before 2026) alone when it is set; else
// those of ~/.openclaw, ~/.clawdbot, ~/.moldbot and ~/.moltbot, where ~ is
// $OPENCLAW_HOME when that is set, as OpenClaw reads them (a leading ~ is
// the home folder). The state folder's workspace/ is not searched.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	expand := func(dir string) string {
		if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') {
			return home + rest
		}
		return dir
	}
	states := make([]string, 0, len(stateDirs))
	for _, env := range []string{"OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"} {
		if dir := strings.TrimSpace(getenv(env)); dir != "" && len(states) == 0 {
			states = append(states, expand(dir))
		}
	}
	if len(states) == 0 {
		if h := strings.TrimSpace(getenv("OPENCLAW_HOME")); h != "" {
			home = expand(h)
		}
		for _, d := range stateDirs {
			states = append(states, filepath.Join(home, d))
		}
	}
	var dirs []string
	for _, s := range states {
		dirs = append(dirs, filepath.Join(s, "agents"), filepath.Join(s, "sessions"))
	}
	return dirs
}

// DirsEnv is OPENCLAW_STATE_DIR.
func (Source) DirsEnv() string { return "OPENCLAW_STATE_DIR" }

// IsTranscript reports whether path is a transcript in a sessions/
// folder: <session>.jsonl (a Telegram topic's <session>-topic-<id>.jsonl,
// a fork's <time>_<session>.jsonl, a compaction's copy
// <session>.checkpoint.<id>.jsonl), or one OpenClaw archived on a reset or
// a deletion (<session>.jsonl.reset.<time>, .jsonl.deleted.<time>); not
// the trajectory traces (.trajectory.jsonl), the backups of a repair
// (.jsonl.bak...) nor sessions.json beside them.
func (Source) IsTranscript(path string) bool {
	if filepath.Base(filepath.Dir(path)) != "sessions" {
		return false
	}
	base := filepath.Base(path)
	if strings.HasSuffix(base, ".jsonl") {
		return !strings.HasSuffix(base, ".trajectory.jsonl")
	}
	return archived.MatchString(base)
}

// archived is the name OpenClaw gives a transcript it archives
// (config/sessions/artifacts.ts): the time, with - for :, after the
// reason.
var archived = regexp.MustCompile(`\.jsonl\.(reset|deleted)\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(\.\d{3})?Z$`)

// TapeName is source.TapeName on the first digits of the session id
// ("openclaw-6f1c2a9e": OpenClaw's ids are random UUIDs).
func (Source) TapeName(s source.Session, long bool) string { return source.TapeName(s, long, false) }

// NewConverter starts a converter of the transcript at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// checkpointCopy is the name of the copy of a transcript OpenClaw kept
// before a compaction, up to April 2026: <session>.checkpoint.<uuid>.
var checkpointCopy = regexp.MustCompile(`^(.+)\.checkpoint\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// fileSessionID is the session a transcript's name says it holds: the
// name up to ".jsonl" (an archive's suffix after it); of a compaction's
// copy, the session it copies; of a fork's <time>_<uuid>.jsonl (pi's own
// naming), the UUID. A name is a transcript's id only until its header
// says one.
func fileSessionID(path string) string {
	name := filepath.Base(path)
	if i := strings.Index(name, ".jsonl"); i > 0 {
		name = name[:i]
	}
	if m := checkpointCopy.FindStringSubmatch(name); m != nil {
		name = m[1]
	}
	if i := strings.LastIndexByte(name, '_'); i >= 0 && source.IsUUID(name[i+1:]) {
		name = name[i+1:]
	}
	return name
}

// agentOf is the OpenClaw agent whose sessions folder holds path
// (agents/<agent>/sessions/), "" when the path says none.
func agentOf(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "sessions" || filepath.Base(filepath.Dir(filepath.Dir(dir))) != "agents" {
		return ""
	}
	return filepath.Base(filepath.Dir(dir))
}

// convState is what an OpenClaw converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Session source.Session `json:"session"`
	Started bool           `json:"started"` // the session's first anchor was made
	// Model is the model of the last model_change or model-snapshot
	// record (or a first layout's header): the model of an assistant
	// message that names none, as ccusage reads it.
	Model string `json:"model,omitempty"`
	// Date is the last timestamp read: a record without one takes it, so
	// that it sorts where it was written.
	Date string `json:"date,omitempty"`
}

// converter converts one OpenClaw transcript.
type converter struct {
	path string
	// idPath is the path whose name tags the ids of the lines without an
	// id of their own (source.LineID): the transcript's name without an
	// archive's suffix, so that a transcript OpenClaw renames on a reset
	// makes the same ids.
	idPath  string
	st      convState
	members []rawjson.Member // the members of the line being read, reused
	parts   []part           // the parts of its message, reused
	// msgMembers are the members of its message, reused.
	msgMembers []rawjson.Member
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path, idPath: fileSessionID(path) + ".jsonl"}
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Session.Source == "" {
		c.st.Session = source.Session{Source: "openclaw", ID: fileSessionID(path)}
	}
	return c, nil
}

// Held is never ok: every line is a whole record.
func (c *converter) Held() (int, int64, bool) { return 0, 0, false }

func (c *converter) Flush() []source.Output { return nil }

func (c *converter) State() ([]byte, error) { return json.Marshal(c.st) }
