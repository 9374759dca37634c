package main

// ImportCursorCmd is `tape import cursor`.
type ImportCursorCmd struct{ importSessions }

func (c *ImportCursorCmd) Help() string {
	return `A chat's tape is named cursor-<first 8 digits of the chat id>; its first
anchor names the chat, its folder (cwd) and, for a subagent or a chat
another started, its parent. Without a PATH, the Cursor CLI's agent
transcripts (~/.cursor/projects/<project>/agent-transcripts/*.jsonl) and
chats (~/.cursor/chats/<hash>/<id>/store.db), and the editor's chats
(<user>/globalStorage/state.vscdb, with each workspace's
<user>/workspaceStorage/<hash>/state.vscdb for a chat's folder; <user> is
$XDG_CONFIG_HOME/Cursor/User, else ~/.config/Cursor/User on Linux, and
~/Library/Application Support/Cursor/User on macOS) are read. The
databases are read, never written: their settled rows are exported to
.tape/import/cursor/ and imported from there. Cursor keeps no token counts
of what a request cost: no usage is imported.

Examples:
  tape import cursor
  tape import cursor ~/.cursor/projects
  tape import cursor ~/.config/Cursor/User/globalStorage/state.vscdb`
}

func (c *ImportCursorCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "cursor")
}
