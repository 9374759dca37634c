package main

import (
	"runtime/debug"

	tapemcp "github.com/tape-dev/tape/mcp"
)

// McpCmd is `tape mcp`.
type McpCmd struct {
	AllowWrite bool `name:"allow-write" help:"Enable the append and handoff tools (default: read only)."`
	NoRedact   bool `name:"no-redact" help:"Send secrets as they are, not as [REDACTED:<kind>] (see tape secrets)."`
}

func (c *McpCmd) Help() string {
	return `Serves this workspace (or --tape-dir's) to an AI agent over the Model Context
Protocol, on stdin and stdout, until stdin ends. The agent starts it; register
it once in its MCP configuration:

  claude mcp add tape -- tape mcp                  # Claude Code
  [mcp_servers.tape] command = "tape" args = ["mcp"]  # Codex, ~/.codex/config.toml

Tools: search, context (max_tokens), log, show, anchors, tapes, calls, usage;
with --allow-write, append and handoff. Resources: each tape as tape://<tape>
and each anchor as tape://<tape>/<folder>, their entries as JSON lines. Each
call reads the index as fresh as a read command does (a running tape watch,
else a catch-up). What it answers goes to the agent's model provider:
secrets are sent as [REDACTED:<kind>] (as tape secrets finds them), unless
--no-redact.

Example:
  tape mcp --allow-write`
}

func (c *McpCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	info, _ := debug.ReadBuildInfo()
	opts := tapemcp.Options{
		AllowWrite: c.AllowWrite,
		Reading:    reading(env, ws),
		Version:    versionOf(info).Version,
		Prices:     loadPrices(env),
	}
	if opts.Redactor, err = newRedactor(!c.NoRedact); err != nil {
		return err
	}
	return tapemcp.Serve(env.Context(), ws, env.Stdin, env.Stdout, opts)
}
