package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// TranscriptOptions shape a corpus of Claude Code transcripts.
type TranscriptOptions struct {
	Bytes    int64 // about how much to write, in all
	Projects int   // project folders to spread the sessions over; 0 means 20
	Seed     uint64
}

// TranscriptStats says what GenerateClaude wrote.
type TranscriptStats struct {
	Sessions, Subagents, Lines int
	Bytes                      int64
}

// GenerateClaude writes Claude Code transcripts into dir (a "projects"
// folder), as Claude Code 2.1 writes them: a file per session, of a size
// drawn from a long-tailed distribution (a few KB to a few MB, as real
// sessions are: most are short, a few run for hours), one line per content
// block of an assistant turn with the usage on each (the early lines with
// the usage of the stream's start, the last with the final one), tool
// calls answered one line each, thinking, compactions, queued prompts,
// and a subagent's transcript for one session in ten. The same seed gives
// the same files.
func GenerateClaude(dir string, opts TranscriptOptions) (TranscriptStats, error) {
	if opts.Projects == 0 {
		opts.Projects = 20
	}
	g := newGenerator(opts.Seed, 0xc1a0, Options{ChineseShare: 0.15}, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC))
	var st TranscriptStats
	for st.Bytes < opts.Bytes {
		project := filepath.Join(dir, fmt.Sprintf("-home-dev-src-project%02d", g.r.IntN(opts.Projects)))
		// Log-normal sizes around 120 KB, from 4 KB to 8 MB.
		size := int64(math.Min(8<<20, math.Max(4<<10, math.Exp(11.7+1.3*g.r.NormFloat64()))))
		id := g.uuid()
		t := &transcript{g: g, session: id, cwd: "/home/dev/src/" + filepath.Base(project)[len("-home-dev-src-"):], branch: "main"}
		if err := t.write(filepath.Join(project, id+".jsonl"), size, &st); err != nil {
			return st, err
		}
		st.Sessions++
		if g.r.IntN(10) == 0 {
			agent := fmt.Sprintf("a%016x", g.r.Uint64())
			sub := &transcript{g: g, session: id, agent: agent, cwd: t.cwd, branch: t.branch}
			if err := sub.write(filepath.Join(project, id, "subagents", "agent-"+agent+".jsonl"), size/4+2048, &st); err != nil {
				return st, err
			}
			st.Subagents++
		}
	}
	return st, nil
}

func (g *generator) uuid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>52&0xfff, b&0xffffffffffff)
}

// transcript writes one session's file.
type transcript struct {
	g           *generator
	session     string
	agent       string // a subagent's id; "" for the session
	cwd, branch string
	parent      string // the uuid of the last line
	at          time.Time
	w           *bufio.Writer
	enc         *json.Encoder
	lines       int
}

func (t *transcript) write(path string, size int64, st *TranscriptStats) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cw := &countWriter{w: f}
	t.w = bufio.NewWriterSize(cw, 64<<10)
	t.enc = json.NewEncoder(t.w)
	t.enc.SetEscapeHTML(false)
	t.at = t.g.now.Add(time.Duration(t.g.r.IntN(60*24*3600)) * time.Second)
	for t.w.Buffered()+int(cw.n) < int(size) {
		if err := t.exchange(); err != nil {
			return err
		}
	}
	if err := t.w.Flush(); err != nil {
		return err
	}
	st.Lines += t.lines
	st.Bytes += cw.n
	return nil
}

type countWriter struct {
	w *os.File
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// line writes one record with the envelope Claude Code gives every line
// of the conversation.
func (t *transcript) line(rec map[string]any) error {
	t.at = t.at.Add(time.Duration(200+t.g.r.IntN(20000)) * time.Millisecond)
	uuid := t.g.uuid()
	rec["parentUuid"] = nilIfEmpty(t.parent)
	rec["isSidechain"] = t.agent != ""
	if t.agent != "" {
		rec["agentId"] = t.agent
	}
	rec["uuid"], rec["timestamp"] = uuid, t.at.Format("2006-01-02T15:04:05.000Z")
	rec["userType"], rec["entrypoint"], rec["cwd"], rec["sessionId"] = "external", "cli", t.cwd, t.session
	rec["version"], rec["gitBranch"] = "2.1.100", t.branch
	t.parent = uuid
	t.lines++
	return t.enc.Encode(rec)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

var tools = []string{"Bash", "Read", "Edit", "Grep", "Glob", "Write", "WebFetch", "TodoWrite"}

// exchange writes a prompt, and the turns that answer it: each turn's
// blocks, and a result for each of its tool calls.
func (t *transcript) exchange() error {
	g := t.g
	if err := t.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": g.text(g.size(20, 2000))}}); err != nil {
		return err
	}
	if g.r.IntN(8) == 0 {
		t.lines++
		if err := t.enc.Encode(map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": t.at.Format("2006-01-02T15:04:05.000Z"),
			"sessionId": t.session, "content": g.sentence(6)}); err != nil {
			return err
		}
	}
	for turns := 1 + g.r.IntN(6); turns > 0; turns-- {
		calls, err := t.turn(turns == 1)
		if err != nil {
			return err
		}
		for _, c := range calls {
			res := map[string]any{"type": "tool_result", "tool_use_id": c, "content": g.text(g.size(60, 30000))}
			if g.r.IntN(20) == 0 {
				res["is_error"] = true
			}
			if err := t.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{res}}}); err != nil {
				return err
			}
		}
	}
	if g.r.IntN(60) == 0 {
		return t.compact()
	}
	return nil
}

// turn writes one assistant message, a line per block, and returns the
// ids of its tool calls (none for the last turn of an exchange).
func (t *transcript) turn(last bool) ([]string, error) {
	g := t.g
	msgID, reqID := fmt.Sprintf("msg_01%022x", g.r.Uint64()), fmt.Sprintf("req_011C%020x", g.r.Uint64())
	model := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001"}[g.r.IntN(3)]
	var blocks []map[string]any
	if g.r.IntN(3) == 0 {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": g.text(g.size(40, 3000)), "signature": fmt.Sprintf("Eq%060x", g.r.Uint64())})
	}
	if last || g.r.IntN(2) == 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": g.text(g.size(20, 4000))})
	}
	var calls []string
	if !last {
		for n := 1 + g.r.IntN(3); n > 0; n-- {
			id := fmt.Sprintf("toolu_01%022x", g.r.Uint64())
			calls = append(calls, id)
			input := map[string]any{"command": g.sentence(4) + "\n" + g.sentence(3), "description": g.sentence(5)}
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": tools[g.r.IntN(len(tools))], "input": input})
		}
	}
	in, cw, cr, out := 1+g.r.IntN(20), g.r.IntN(5000), g.r.IntN(90000), 20+g.r.IntN(2000)
	for i, b := range blocks {
		o := 1 + g.r.IntN(9) // the stream's start: the final count is on the last line
		if i == len(blocks)-1 {
			o = out
		}
		usage := map[string]any{"input_tokens": in, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": o, "service_tier": "standard"}
		msg := map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{b}, "stop_reason": nil, "usage": usage}
		if err := t.line(map[string]any{"type": "assistant", "message": msg, "requestId": reqID}); err != nil {
			return nil, err
		}
	}
	return calls, nil
}

// compact writes a compaction: its boundary and its summary.
func (t *transcript) compact() error {
	t.parent = ""
	if err := t.line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "level": "info",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000 + t.g.r.IntN(20000)}}); err != nil {
		return err
	}
	return t.line(map[string]any{"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
		"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation that ran out of context.\n\n" + t.g.text(3000)}})
}
