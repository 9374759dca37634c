package main

// ImportClineCmd is `tape import cline`.
type ImportClineCmd struct{ importSessions }

func (c *ImportClineCmd) Help() string {
	return `A task's tape is named cline-<8 digits of the task id> (the last 8 of
Cline's, which are the task's time in milliseconds; the first 8 of Roo
Code's and Kilo Code's UUIDs); its first anchor says which agent ("agent":
cline, roo or kilo) and, for a Roo Code subtask, its parent. Without a PATH,
reads the tasks folders of the extensions saoudrizwan.claude-dev,
rooveterinaryinc.roo-cline and kilocode.kilo-code in the globalStorage of VS
Code, VS Code Insiders, Cursor, Windsurf and VSCodium (~/.config/<editor>/User
and the editors' remote servers' ~/.<editor>-server/data/User on Linux,
~/Library/Application Support/<editor>/User on macOS), and the Cline CLI's
$CLINE_DATA_DIR/tasks, else ~/.cline/data/tasks. A task's folder holds
api_conversation_history.json (the model's messages), ui_messages.json (what
the person saw, and each request's tokens), task_metadata.json and, for Roo
Code, history_item.json: all go to the task's tape. With no .tape/ here or
above, the import makes one here, without a tape main.

Each file is one JSON document the agent writes over at every change: an
import reads a file that changed whole again, and writes only the entries
its tape does not hold (ids from the messages' times and contents). A
document that is not JSON is reported as FILE:1 and the items before the
fault are imported (exit status 2); one the agent is still writing is
imported by the next import. docs/IMPORT.md has the mapping.

Examples:
  tape import cline
  tape import cline ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks
  tape import cline ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1735000123456`
}

func (c *ImportClineCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "cline")
}
