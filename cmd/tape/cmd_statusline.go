package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/read"
)

// StatuslineCmd is `tape statusline`.
type StatuslineCmd struct {
	CostSource string `name:"cost-source" default:"auto" enum:"auto,tape,claude" help:"The session's cost: auto (Claude Code's own figure when its JSON gives one, else tape's), tape (priced from the index), or claude (Claude Code's figure)."`
}

func (c *StatuslineCmd) Help() string {
	return `Prints one line for Claude Code's status line: the model, this session's
cost, today's (local time), and the active 5-hour block's with the time it has
left and its burn rate, as ccusage statusline does. It reads the JSON Claude
Code passes on stdin (session_id, model.display_name, cost.total_cost_usd) and
the index as it stands, without catching up, to be fast on every prompt: keep
it live with 'tape watch --follow claude'.

In ~/.claude/settings.json:
  {"statusLine": {"type": "command", "command": "tape --tape-dir ~/.tape statusline", "padding": 0}}

Example:
  echo '{"session_id": "abc", "model": {"display_name": "Opus"}}' | tape statusline`
}

// statusInput is what Claude Code writes to a status line command.
type statusInput struct {
	SessionID *string `json:"session_id"`
	Model     struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
}

// maxStatusInput bounds what is read of stdin: Claude Code's object is a
// few hundred bytes.
const maxStatusInput = 1 << 20

func (c *StatuslineCmd) Run(env *Env, g *Globals) error {
	in, err := readStatusInput(env.Stdin)
	if err != nil {
		return err
	}
	// The index as it stands, as --no-catchup reads it: a new one is
	// filled once, then the watcher keeps it.
	g.NoCatchup = true
	ix, closeAll, err := g.openWorkspaceIndex(env)
	if err != nil {
		return err
	}
	defer closeAll()
	now := time.Now()
	st, err := read.StatusAt(env.Context(), ix, loadPrices(env), *in.SessionID, now, time.Local)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(env.Stdout, c.line(in, st, now))
	return err
}

func readStatusInput(r io.Reader) (statusInput, error) {
	var in statusInput
	data, err := io.ReadAll(io.LimitReader(r, maxStatusInput+1))
	if err != nil {
		return in, fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > maxStatusInput {
		return in, usagef("stdin holds more than %d bytes: want the JSON object Claude Code passes to a status line command", maxStatusInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || len(strings.TrimSpace(string(data))) == 0 {
			return in, usagef("stdin is not JSON (%v): want the object Claude Code passes to a status line command, with session_id", err)
		}
		return in, usagef("stdin: %v", err)
	}
	if in.SessionID == nil {
		return in, usagef("stdin has no session_id: want the object Claude Code passes to a status line command")
	}
	return in, nil
}

// line is the status line: 🤖 model | 💰 $session session / $today today /
// $block block (3h 27m left) | 🔥 $/hr, as ccusage statusline prints it.
func (c *StatuslineCmd) line(in statusInput, st read.Status, now time.Time) string {
	model := in.Model.DisplayName
	if model == "" {
		model = orNone(in.Model.ID, "?")
	}
	session := "N/A"
	claude := in.Cost.TotalCostUSD
	switch {
	case c.CostSource != "tape" && claude != nil:
		session = dollars(*claude, true)
	case c.CostSource != "claude" && st.SessionFound:
		session = dollars(st.Session.CostUSD, true)
	case c.CostSource != "claude":
		session = dollars(0, true)
	}
	parts := []string{"🤖 " + wording.Printable(model)}
	money := fmt.Sprintf("💰 %s session / %s today", session, dollars(st.Today.CostUSD, true))
	b := st.Block.Block
	if b == nil {
		parts = append(parts, money+" / no active block")
		return strings.Join(parts, " | ")
	}
	parts = append(parts, fmt.Sprintf("%s / %s block (%s left)", money, dollars(st.Block.CostUSD, true), wording.HoursMinutes(b.End.Sub(now).Round(time.Minute))))
	if b.Rate != nil {
		parts = append(parts, fmt.Sprintf("🔥 %s/hr", dollars(b.Rate.CostPerHour, true)))
	}
	return strings.Join(parts, " | ")
}
