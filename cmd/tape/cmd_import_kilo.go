package main

// ImportKiloCmd is `tape import kilo`.
type ImportKiloCmd struct{ importSessions }

func (c *ImportKiloCmd) Help() string {
	return `A session's tape is named kilo-<the last 8 characters of the session id>;
a subagent's session is its own tape, whose parent is the session that started it.
The Kilo CLI (@kilocode/cli) is a fork of OpenCode and keeps its sessions in
OpenCode's database: tape reads it as it reads OpenCode's (tape import
opencode --help), with Kilo's own names. Without a PATH, reads kilo.db (and
kilo-<channel>.db, opencode-<channel>.db) in $KILO_DATA_DIR, else
$XDG_DATA_HOME/kilo, else ~/.local/share/kilo, and its storage/ folder of
JSON files. The database is opened read-only and never locked against Kilo:
each session's finished messages are exported, one row a line, to a mirror
in .tape/import/kilo/, which is imported as any agent's transcripts are. A
PATH may also name a database (as $KILO_DB does for Kilo), or a folder of
mirror files. With no .tape/ here or above, the import makes one here,
without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/kilo.checkpoints). A line that cannot be imported is reported as
FILE:LINE and the rest is imported (exit status 2). docs/IMPORT.md has the
mapping.

Examples:
  tape import kilo
  tape import kilo ~/.local/share/kilo/kilo.db`
}

func (c *ImportKiloCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "kilo")
}
