package codex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// start makes the first anchor of the session's tape, before its first
// entry.
func (c *converter) start(in *input) []source.Output {
	if c.st.Started {
		return nil
	}
	c.st.Started = true
	state := map[string]any{"source": "codex", "session_id": c.st.Session.ID, "file": c.path}
	if in.cl.Type == "session_meta" {
		if in.it.ID != "" {
			c.st.Session.ID, state["session_id"] = in.it.ID, in.it.ID
		}
		if in.it.CWD != "" {
			state["cwd"] = in.it.CWD
		}
		var git gitInfo
		if json.Unmarshal(in.it.Git, &git) == nil {
			for k, v := range map[string]string{"git_branch": git.Branch, "git_commit": git.Commit, "repository_url": git.Repo} {
				if v != "" {
					state[k] = v
				}
			}
		}
		for k, v := range map[string]string{"cli_version": in.it.CLIVersion, "originator": in.it.Originator} {
			if v != "" {
				state[k] = v
			}
		}
		if p := parentOf(in.it); p != "" {
			c.st.Parent, state["parent_session"] = p, p
		}
	}
	payload := source.MustJSON(map[string]any{"name": "session/start", "state": state})
	e := tapelog.Entry{ID: c.st.Session.ID, Kind: tapelog.KindAnchor, Payload: payload,
		Meta: source.Meta(c.path, in.l.No, "", "", nil).Done(), Date: in.cl.Timestamp}
	return []source.Output{{Session: c.st.Session, Anchor: true, Entry: e}}
}

// gitInfo is what the first anchor keeps of a session_meta's git.
type gitInfo struct {
	Branch string `json:"branch"`
	Commit string `json:"commit_hash"`
	Repo   string `json:"repository_url"`
}

// spawnSource is what the first anchor keeps of a session_meta's source:
// the parent of a subagent (a source may also be a string, "cli").
type spawnSource struct {
	Subagent struct {
		ThreadSpawn struct {
			Parent string `json:"parent_thread_id"`
		} `json:"thread_spawn"`
	} `json:"subagent"`
}

// parentOf is the session a subagent's or a fork's rollout came from.
func parentOf(it payloadItem) string {
	if it.ForkedFrom != "" {
		return it.ForkedFrom
	}
	var src spawnSource
	if json.Unmarshal(it.Source, &src) == nil {
		return src.Subagent.ThreadSpawn.Parent
	}
	return ""
}

// metaReadable reports whether the first anchor can hold what a
// session_meta's git and source say: each absent, or an object of the
// shape Codex writes; a source may also be a string (the kind of client,
// "cli", which the anchor does not keep).
func metaReadable(it payloadItem) bool {
	readable := func(raw json.RawMessage, v any) bool {
		raw = source.Trim(raw)
		return len(raw) == 0 || string(raw) == "null" || raw[0] == '{' && json.Unmarshal(raw, v) == nil
	}
	src := source.Trim(it.Source)
	return readable(it.Git, &gitInfo{}) && (len(src) > 0 && src[0] == '"' || readable(src, &spawnSource{}))
}

// sessionMeta maps the session's header: its instructions become a
// system entry. A second header is a parent's, replayed: an event.
func (c *converter) sessionMeta(in *input) []source.Output {
	if c.st.Meta {
		return c.event(in, "codex/session_meta", in.cl.Payload)
	}
	c.st.Meta = true
	if in.it.CWD != "" {
		c.st.CWD = "" // the first entry's meta names it
	}
	var out []source.Output
	if in.it.Instructions != nil && *in.it.Instructions != "" {
		payload := source.MustJSON(map[string]any{"content": *in.it.Instructions})
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, 0, tapelog.KindSystem, payload)})
	}
	if !metaReadable(in.it) {
		// A git or source the anchor cannot hold: the header is kept
		// whole too.
		payload := source.NamedData("codex/session_meta", in.cl.Payload)
		out = append(out, source.Output{Session: c.st.Session, Entry: c.entry(in, len(out), tapelog.KindEvent, payload)})
	}
	return out
}

// entry is the k-th entry made from a line.
func (c *converter) entry(in *input, k int, kind string, payload json.RawMessage) tapelog.Entry {
	return c.entryMeta(in, k, kind, payload, false)
}

// entryMeta is entry for a message that may be synthetic: written for the
// model, not by a person. Its meta names the working directory the line
// names, when it changed.
func (c *converter) entryMeta(in *input, k int, kind string, payload json.RawMessage, synthetic bool) tapelog.Entry {
	cwd := in.it.CWD
	if cwd == c.st.CWD {
		cwd = "" // named by an entry before
	} else if cwd != "" {
		c.st.CWD = cwd
	}
	c.scratch = c.metas.appendMeta(c.scratch[:0], in.l.No, in.cl.badDate, cwd, synthetic)
	return tapelog.Entry{ID: c.ids.ID(in.l.No, k), Kind: kind, Payload: payload, Meta: c.chunks.keep(c.scratch), Date: in.cl.Timestamp}
}

// metaWriter writes an entry's meta: source.Meta's, of a line of one file,
// and what entryMeta adds, after the file's part written once. source.Meta's two rawjson.Objects were a tenth of the converter's
// time (BenchmarkConvert); TestMetaAgreesWithSourceMeta holds it to them.
type metaWriter struct {
	head []byte // {"source":{"file":<path>,"line":
}

func newMetaWriter(path string) metaWriter {
	return metaWriter{head: append(rawjson.AppendString([]byte(`{"source":{"file":`), path), `,"line":`...)}
}

// appendMeta appends source.Meta(path, line, "", "", badDate), then cwd
// unless it is "", and "synthetic": true if synthetic.
func (w metaWriter) appendMeta(b []byte, line int, badDate []byte, cwd string, synthetic bool) []byte {
	b = strconv.AppendInt(append(b, w.head...), int64(line), 10)
	if len(badDate) > 0 {
		b = append(append(b, `,"timestamp":`...), badDate...)
	}
	b = append(b, '}')
	if cwd != "" {
		b = rawjson.AppendString(append(b, `,"cwd":`...), cwd)
	}
	if synthetic {
		b = append(b, `,"synthetic":true`...)
	}
	return append(b, '}')
}

// isInjected reports whether the text of a user message is context Codex
// writes for the model (the environment, AGENTS.md) rather than what the
// user typed.
func isInjected(text string) bool {
	text = strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// event keeps a record as an event named after its type.
func (c *converter) event(in *input, name string, data json.RawMessage) []source.Output {
	payload := c.keep(appendNamed(c.scratch[:0], name, data))
	return c.chunks.output(c.st.Session, c.entry(in, 0, tapelog.KindEvent, payload))
}
