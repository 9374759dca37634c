package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tape-dev/tape/bub"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
)

// ContextCmd is `tape context`.
type ContextCmd struct {
	Anchor string `placeholder:"NAME" help:"Start after the last anchor of this name (or folder, seq, slug) instead of the last anchor."`
	All    bool   `short:"a" help:"The whole tape, every anchor included as a message."`
	JSON   bool   `help:"Print one JSON array of messages, ready to send as the model's messages (with --max-tokens, one object; see below)."`

	MaxTokens *int `name:"max-tokens" placeholder:"N" help:"Keep the newest messages that fit in about N tokens, by the estimate below; the oldest are dropped."`
}

func (c *ContextCmd) Help() string {
	return `Prints the chat messages an agent sends to its model, built from the tape as
the Bub agent framework builds them: anchors as assistant notes, messages as
they are, tool calls as assistant messages with tool_calls, and each tool
result as a tool message paired with its call: by the call id it carries
(tool_call_id, tool_use_id, call_id), else by position, as Bub does. system,
event and error entries, and entries whose meta.context is false, are left
out. By default the entries after the last anchor.

--max-tokens N keeps the newest messages whose estimate fits in N tokens and
drops the oldest, saying so on stderr. A tool call and its results are kept
or dropped together. The newest anchor note is always kept, even when it
alone is over N (the context after an anchor leaves that anchor out, so
there is one only with --all, or when anchors come after --anchor's). The
estimate, without a tokenizer, is each message's JSON as sent: one token
per CJK character, one per 3 bytes of anything else; it runs above OpenAI's
tokenizers, by 15 to 40% for prose, code and tool calls. With --json it prints one
object: "messages" (the array), "dropped" (entries dropped), "estimate"
(tokens of the messages kept), "max_tokens", "over_budget" (true only when
the anchor note alone is over N).

Examples:
  tape context --json | jq length
  tape context --anchor auto_handoff/context_overflow
  tape context --all --json > messages.json
  tape context --max-tokens 8000 --json | jq .messages`
}

func (c *ContextCmd) Validate() error {
	if c.All && c.Anchor != "" {
		return usagef("--all reads the whole tape; give it or --anchor, not both")
	}
	if c.MaxTokens != nil && *c.MaxTokens <= 0 {
		return usagef("--max-tokens must be a positive number of tokens")
	}
	return nil
}

func (c *ContextCmd) Run(env *Env, g *Globals) error {
	t, ix, closeAll, err := g.openIndexed(env, oneTape, false)
	if err != nil {
		return err
	}
	defer closeAll()
	entries, unreadable, err := c.entries(env, ix, t.Name())
	if err != nil {
		return err
	}
	msgs := bub.Context(entries)
	if len(msgs) == 0 {
		defer hintEmptyDefault(env, g, t)
	}
	if c.MaxTokens != nil {
		err = c.printFitted(env, msgs)
	} else if c.JSON {
		err = newJSONLines(env.Stdout).write(msgs)
	} else {
		err = printMessages(env, msgs)
	}
	if err != nil {
		return err
	}
	return unreadable
}

// printFitted prints the messages that fit in --max-tokens: with --json one
// object (bub.Fitted's JSON); else the messages, and on stderr what was
// dropped to fit them.
func (c *ContextCmd) printFitted(env *Env, msgs []bub.Message) error {
	f := bub.FitTokens(msgs, *c.MaxTokens)
	if c.JSON {
		return newJSONLines(env.Stdout).write(f)
	}
	if err := printMessages(env, f.Messages); err != nil {
		return err
	}
	dropped := len(msgs) - len(f.Messages)
	switch {
	case f.OverBudget():
		fmt.Fprintf(env.Stderr, "tape: warning: the anchor note alone is about %d tokens, over --max-tokens %d; kept it, dropped %s (%s)\n",
			f.Estimate, f.MaxTokens, wording.Plural(f.Dropped, "entry", "entries"), wording.Plural(dropped, "message", "messages"))
	case dropped > 0:
		fmt.Fprintf(env.Stderr, "tape: dropped the oldest %s (%s) to fit --max-tokens %d; kept %s, about %d tokens\n",
			wording.Plural(f.Dropped, "entry", "entries"), wording.Plural(dropped, "message", "messages"), f.MaxTokens, wording.Plural(len(f.Messages), "message", "messages"), f.Estimate)
	}
	return nil
}

// entries reads the entries the flags select (bub.ContextSpan), in tape
// order: the whole tape, or the entries after an anchor (its own entry
// left out, the entries of the anchors after it kept), and warns of the
// lines it could not read.
func (c *ContextCmd) entries(env *Env, ix *projector.Projector, tape string) ([]tapelog.Entry, error, error) {
	got, err := read.ReadContext(env.Context(), ix, tape, c.Anchor, c.All)
	if err != nil {
		return nil, nil, anchorHint(err)
	}
	unreadable, err := warnLines(env, got.Unread)
	if err != nil {
		return nil, nil, err
	}
	return got.Entries, unreadable, nil
}

// printMessages prints messages for a person: the role, then the content,
// its later lines indented, control characters escaped.
func printMessages(env *Env, msgs []bub.Message) error {
	for _, m := range msgs {
		raw, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("render message: %w", err)
		}
		var p map[string]json.RawMessage
		_ = json.Unmarshal(raw, &p) // every message is an object
		var role, id, name string
		_ = json.Unmarshal(p["role"], &role)
		_ = json.Unmarshal(p["tool_call_id"], &id)
		_ = json.Unmarshal(p["name"], &name)
		text := read.ContentText(p["content"])
		if calls := read.CallsText(p["tool_calls"]); len(p["tool_calls"]) > 0 {
			text = strings.TrimSpace(text + " → " + calls)
		}
		if name != "" || id != "" {
			text = "(" + strings.TrimSpace(name+" "+id) + ") " + text
		}
		if _, err := fmt.Fprintf(env.Stdout, "%-9s  %s\n", wording.Printable(role), indentLines(text, 11)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

// indentLines makes each line of s printable and indents all but the first
// by n spaces.
func indentLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = wording.Printable(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n"+strings.Repeat(" ", n))
}
