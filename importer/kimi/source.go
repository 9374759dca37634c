// Package kimi imports the sessions of Moonshot AI's coding agents from
// their wire.jsonl files, one record a line, appended and never rewritten
// by the agent as it works:
//
//   - Kimi CLI (Python, 0.59 and later): <share dir>/sessions/<md5 of the
//     working directory>/<session id>/wire.jsonl, records {"timestamp",
//     "message": {"type", "payload"}}, and since 1.25 a subagent's own in
//     <session id>/subagents/<agent id>/wire.jsonl;
//   - Kimi Code (TypeScript, 2026): <data dir>/sessions/wd_<name>_<hash>/
//     session_<id>/agents/<agent>/wire.jsonl, records {"type", ...,
//     "time"}, the main agent's in agents/main.
//
// The context.jsonl beside a Kimi CLI wire.jsonl, and the state.json of
// either, are not read: decision 0089 says why, and how their facts
// reach the tape. docs/IMPORT.md has the mapping, field by field.
//
// Files: source.go (where the files live, their sessions, the
// converter's state), record.go (a line's members, its date), convert.go
// (a line to entries, the session's anchor), cli.go (Kimi CLI's
// messages), code.go (Kimi Code's records), parts.go (content parts,
// tool calls and results), usage.go (token usage as ccusage counts it).
package kimi

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// Source is Kimi CLI's and Kimi Code's sessions, as tape imports them:
// `tape import kimi`.
type Source struct{}

// Name is "kimi".
func (Source) Name() string { return "kimi" }

func (Source) Agent() string { return "Kimi CLI and Kimi Code" }

// DefaultDirs are the sessions folders of Kimi CLI ($KIMI_SHARE_DIR, else
// ~/.kimi) and of Kimi Code ($KIMI_CODE_HOME, else ~/.kimi-code); or, when
// $KIMI_DATA_DIR is set (the variable ccusage reads, a comma-separated
// list of such folders), the sessions folder of each folder it names, as
// ccusage reads them.
func (Source) DefaultDirs(getenv func(string) string, home string) []string {
	if dirs := getenv("KIMI_DATA_DIR"); strings.TrimSpace(dirs) != "" {
		var out []string
		for _, d := range strings.Split(dirs, ",") {
			if d = strings.TrimSpace(d); d != "" {
				out = append(out, filepath.Join(d, "sessions"))
			}
		}
		return out
	}
	dir := func(env, name string) string {
		if d := getenv(env); d != "" {
			return filepath.Join(d, "sessions")
		}
		return filepath.Join(home, name, "sessions")
	}
	return []string{dir("KIMI_SHARE_DIR", ".kimi"), dir("KIMI_CODE_HOME", ".kimi-code")}
}

// DirsEnv is KIMI_SHARE_DIR, Kimi CLI's (DefaultDirs reads KIMI_CODE_HOME
// and KIMI_DATA_DIR too).
func (Source) DirsEnv() string { return "KIMI_SHARE_DIR" }

// IsTranscript reports whether path is a wire.jsonl file: a session's, a
// Kimi CLI subagent's or a Kimi Code agent's. The context.jsonl, its
// rotations (context_1.jsonl...), state.json and meta.json beside it are
// not.
func (Source) IsTranscript(path string) bool { return filepath.Base(path) == wireFile }

const wireFile = "wire.jsonl"

// TapeName is source.TapeName on the first 8 digits of the session's
// UUID ("kimi-7d2e4f60"; Kimi Code's session_ and ses_ prefixes left
// out), and for a subagent -agent- and the last 10 letters and digits of
// its id, less Kimi Code's "agent-" ("kimi-7d2e4f60-agent-a1b2c3d4e",
// "kimi-2728744d-agent-0"). The long name adds a sum of the session's
// key, as source.TapeName's does: at most 40 bytes.
func (Source) TapeName(s source.Session, long bool) string {
	name := source.TapeName(source.Session{Source: s.Source, ID: uuidOf(s.ID)}, false, false)
	if s.Agent != "" {
		name += "-agent-" + lastAlnum(strings.TrimPrefix(s.Agent, "agent-"), 10)
	}
	if long {
		name += "-" + source.ShortSum([]byte(s.Key()))
	}
	return name
}

// uuidOf is the UUID a session's id ends in after a prefix of Kimi Code's
// ("session_<uuid>", "ses_<uuid>" for a session migrated from Kimi CLI),
// else the id.
func uuidOf(id string) string {
	if _, rest, ok := strings.Cut(id, "_"); ok && source.IsUUID(rest) {
		return rest
	}
	return id
}

// lastAlnum is the last n ASCII letters and digits of id ("x" for none).
func lastAlnum(id string, n int) string {
	var b []byte
	for i := len(id) - 1; i >= 0 && len(b) < n; i-- {
		if c := id[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "x"
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// NewConverter starts a converter of the wire.jsonl at path.
func (Source) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newConverter(path, state))
}

// place is what a transcript's path says of it: its session, the agent
// that wrote it, and the folder of its working directory.
type place struct {
	session source.Session
	agent   string // "kimi-cli" or "kimi-code" when the path says; "" for a file named elsewhere
	workDir string // the working directory's folder: an md5 (Kimi CLI), wd_<name>_<hash> (Kimi Code)
}

// placeOf reads a transcript's path:
//
//	<work dir>/<session>/wire.jsonl                         a Kimi CLI session
//	<work dir>/<session>/subagents/<agent id>/wire.jsonl    a Kimi CLI subagent (1.25 and later)
//	<work dir>/<session>/agents/main/wire.jsonl             a Kimi Code session
//	<work dir>/<session>/agents/<agent id>/wire.jsonl       a Kimi Code subagent
//
// A file of another name is a session named by its file's stem.
func placeOf(path string) place {
	p := place{session: source.Session{Source: "kimi"}}
	if filepath.Base(path) != wireFile {
		p.session.ID = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		return p
	}
	dir := filepath.Dir(path)
	up := filepath.Base(filepath.Dir(dir))
	switch {
	case up == "agents":
		p.agent = "kimi-code"
		if a := filepath.Base(dir); a != "main" {
			p.session.Agent = a
		}
		dir = filepath.Dir(filepath.Dir(dir))
	case up == "subagents":
		p.agent = "kimi-cli"
		p.session.Agent = filepath.Base(dir)
		dir = filepath.Dir(filepath.Dir(dir))
	default:
		p.agent = "kimi-cli"
	}
	p.session.ID = filepath.Base(dir)
	p.workDir = filepath.Base(filepath.Dir(dir))
	if strings.HasPrefix(p.workDir, "wd_") {
		p.agent = "kimi-code"
	}
	return p
}

// convState is what a Kimi converter carries from line to line, and
// keeps in a checkpoint.
type convState struct {
	Started map[string]bool `json:"started"` // sessions whose first anchor was made, by Session.Key
	// Metadata is the file's metadata line, without its type, once read
	// (Kimi CLI wrote none before 0.85): the first anchor says it. A JSON
	// text kept as a string: as a json.RawMessage, encoding/json would
	// escape its <, > and & on the way to the checkpoint.
	Metadata string `json:"metadata,omitempty"`
	CWD      string `json:"cwd,omitempty"` // the last working directory put in a meta
	// Prompt is a sum of the text of Kimi Code's last turn.prompt or
	// turn.steer, until the context.append_message that copies it into
	// the model's context comes: that one makes no entry (see copied).
	Prompt string `json:"prompt,omitempty"`
	// Date is the last date read: a record without one takes it, so that
	// it sorts where it was written.
	Date string `json:"date,omitempty"`
}

// converter converts one wire.jsonl.
type converter struct {
	path    string
	tag     string // source.LineID's tag of the path, "<tag>:", made once
	place   place
	st      convState
	members []rawjson.Member // the members of the line being read, reused
}

func newConverter(path string, state []byte) (*converter, error) {
	c := &converter{path: path, place: placeOf(path)}
	c.tag, _, _ = strings.Cut(source.LineID(path, 0, 0), ":")
	c.tag += ":"
	if err := source.LoadState(state, &c.st); err != nil {
		return nil, err
	}
	if c.st.Started == nil {
		c.st.Started = map[string]bool{}
	}
	return c, nil
}

// Held is never: every line is a record of its own.
func (c *converter) Held() (int, int64, bool) { return 0, 0, false }

func (c *converter) Flush() []source.Output { return nil }

func (c *converter) State() ([]byte, error) { return json.Marshal(c.st) }
