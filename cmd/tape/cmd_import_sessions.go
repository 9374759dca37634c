package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/importer"
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// ImportClaudeCmd is `tape import claude`.
type ImportClaudeCmd struct{ importSessions }

// ImportCodexCmd is `tape import codex`.
type ImportCodexCmd struct{ importSessions }

// ImportGeminiCmd is `tape import gemini`.
type ImportGeminiCmd struct{ importSessions }

// ImportQwenCmd is `tape import qwen`.
type ImportQwenCmd struct{ importSessions }

// ImportCopilotCmd is `tape import copilot`.
type ImportCopilotCmd struct{ importSessions }

// ImportKimiCmd is `tape import kimi`.
type ImportKimiCmd struct{ importSessions }

// ImportDroidCmd is `tape import droid`.
type ImportDroidCmd struct{ importSessions }

// ImportOpenClawCmd is `tape import openclaw`.
type ImportOpenClawCmd struct{ importSessions }

// ImportOpenCodeCmd is `tape import opencode`.
type ImportOpenCodeCmd struct{ importSessions }

// ImportAmpCmd is `tape import amp`.
type ImportAmpCmd struct{ importSessions }

// ImportAiderCmd is `tape import aider`.
type ImportAiderCmd struct{ importSessions }

// ImportGooseCmd is `tape import goose`.
type ImportGooseCmd struct{ importSessions }

// ImportCrushCmd is `tape import crush`.
type ImportCrushCmd struct{ importSessions }

// importSessions is what `tape import claude` and `tape import codex`
// share: the paths, the output, and the run.
type importSessions struct {
	Paths []string `arg:"" optional:"" name:"PATH" help:"Transcript files, or folders to search for them (default: where the agent keeps them)."`
	JSON  bool     `help:"One JSON object per transcript: file, tape, tapes, lines, imported, anchors, skipped, bad_lines, held, unchanged."`
	All   bool     `help:"Also list the transcripts that had nothing new."`
	Full  bool     `help:"Read every transcript from its start, whatever the checkpoints say, skipping what the tapes hold: repairs a tape that lost entries."`
}

func (c *ImportClaudeCmd) Help() string {
	return `A session's tape is named claude-<the first 8 digits of the session id>
(a subagent's adds -agent-<its id>). Without a PATH, reads
$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects. Claude Code deletes
transcripts after 30 days; what tape imported stays. With no .tape/ here or
above, the import makes one here, without a tape main.

Importing again reads only what is new: each transcript's checkpoint is kept
in .tape/import/claude.checkpoints, and every entry's id comes from its line, so
nothing is imported twice. A line that cannot be imported is reported as
FILE:LINE and the rest is imported (exit status 2). A record still being
written (an assistant turn whose last line has not come) is imported by the
next import, or at once by 'tape watch --follow claude'. docs/IMPORT.md has
the mapping.

Examples:
  tape import claude
  tape import claude ~/.claude/projects/-home-me-src-app
  tape import claude --json ~/.claude/projects/-home-me-src-app/5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12.jsonl`
}

func (c *ImportCodexCmd) Help() string {
	return `A session's tape is named codex-<the last 8 digits of the session id>.
Without a PATH, reads $CODEX_HOME/sessions, else ~/.codex/sessions. With no
.tape/ here or above, the import makes one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/codex.checkpoints; ids from the lines). A line that cannot be imported
is reported as FILE:LINE and the rest is imported (exit status 2).
docs/IMPORT.md has the mapping.

Examples:
  tape import codex
  tape import codex ~/.codex/sessions/2026/11/24`
}

func (c *ImportGeminiCmd) Help() string {
	return `A session's tape is named gemini-<the first 8 digits of the session id> (a
subagent's adds -agent-<its id>). Without a PATH, reads the chats folders
under $GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp: session-*.jsonl
(Gemini CLI 0.39 and later) and session-*.json (before), which Gemini CLI
rewrote whole at every turn. With no .tape/ here or above, the import makes
one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/gemini.checkpoints; ids from the messages' own ids, so a file read
again after a rewrite makes nothing twice). A /rewind shows as an anchor
"rewind", and a history Gemini CLI replaced (on resume, cancel, or
compression) as an anchor "history": tape keeps every turn. A line that
cannot be imported is reported as FILE:LINE and the rest is imported (exit
status 2). docs/IMPORT.md has the mapping.

Examples:
  tape import gemini
  tape import gemini ~/.gemini/tmp/my-project/chats`
}

func (c *ImportGeminiCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "gemini")
}

func (c *ImportQwenCmd) Help() string {
	return `A session's tape is named qwen-<the first 8 digits of the session id> (a
subagent's adds -agent-<the last 8 of its id>). Without a PATH, reads
$QWEN_RUNTIME_DIR/projects, else $QWEN_HOME/projects, else ~/.qwen/projects:
each project's chats/ and chats/archive/, and its subagents/; and the JSON
documents of Qwen Code before December 2025 (~/.qwen/tmp). With no .tape/
here or above, the import makes one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/qwen.checkpoints; ids from the records' uuids). A line that cannot be
imported is reported as FILE:LINE and the rest is imported (exit status 2).
docs/IMPORT.md has the mapping.

Examples:
  tape import qwen
  tape import qwen ~/.qwen/projects/-home-me-src-app`
}

func (c *ImportQwenCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "qwen")
}

func (c *ImportCopilotCmd) Help() string {
	return `A session's tape is named copilot-<the first 8 digits of the session id>
(a subagent's adds -agent-<its id>). Without a PATH, reads
$COPILOT_HOME/session-state and $COPILOT_HOME/history-session-state, else
those of ~/.copilot: session-state/<id>/events.jsonl (Copilot CLI 0.0.4xx and
1.x), session-state/<id>.jsonl (from 0.0.342) and
history-session-state/session_<id>_<time>.json (up to 0.0.341). Token usage
comes from each session's shutdown events, counted as ccusage counts them.
With no .tape/ here or above, the import makes one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/copilot.checkpoints; ids from the events). A line that cannot be
imported is reported as FILE:LINE and the rest is imported (exit status 2).
docs/IMPORT.md has the mapping.

Examples:
  tape import copilot
  tape import copilot ~/.copilot/session-state/0f3c9a12-5b7d-4e21-9c3a-7d5e1f2a4b6c`
}

func (c *ImportCopilotCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "copilot")
}

func (c *ImportKimiCmd) Help() string {
	return `A session's tape is named kimi-<the first 8 digits of the session id> (a
subagent's adds -agent-<its id>). Without a PATH, reads $KIMI_SHARE_DIR/sessions,
else ~/.kimi/sessions (Kimi CLI), and $KIMI_CODE_HOME/sessions, else
~/.kimi-code/sessions (Kimi Code); with $KIMI_DATA_DIR set (ccusage's: a
comma-separated list), the sessions folder of each folder it names. Each
session's wire.jsonl is read, and each subagent's: not context.jsonl nor
state.json. With no .tape/ here or above, the import makes one here, without
a tape main.

Importing again reads only what is new (checkpoints in .tape/import/kimi.checkpoints;
ids from the lines). A line that cannot be imported is reported as FILE:LINE
and the rest is imported (exit status 2). docs/IMPORT.md has the mapping.

Examples:
  tape import kimi
  tape import kimi ~/.kimi-code/sessions/wd_app_0a1b2c3d4e5f`
}

func (c *ImportKimiCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "kimi")
}

func (c *ImportDroidCmd) Help() string {
	return `A session's tape is named droid-<the first 8 digits of the session id>; a
session a Droid session started (a subagent's, a mission worker's) has its
own, whose parent is that session. Without a PATH, reads the folders of
$DROID_SESSIONS_DIR (comma-separated), else ~/.factory/sessions:
<workspace>/<id>.jsonl, and the flat <id>.jsonl of 2025, each with the
<id>.settings.json beside it, whose model and token counts (the session's
so far, counted as ccusage counts them) go to the session's tape too.
With no .tape/ here or above, the import makes one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/droid.checkpoints; ids from the records, and from what a settings file
says, which Droid writes over). A line that cannot be imported is reported
as FILE:LINE and the rest is imported (exit status 2). docs/IMPORT.md has
the mapping.

Examples:
  tape import droid
  tape import droid ~/.factory/sessions/-home-u-app`
}

func (c *ImportDroidCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "droid")
}

func (c *ImportOpenClawCmd) Help() string {
	return `A session's tape is named openclaw-<the first 8 digits of the session id>.
Without a PATH, reads the agents/ and sessions/ folders of $OPENCLAW_STATE_DIR
(else $CLAWDBOT_STATE_DIR), else of ~/.openclaw, ~/.clawdbot, ~/.moldbot and
~/.moltbot (~ is $OPENCLAW_HOME when set): agents/<agent>/sessions/*.jsonl
(sessions/*.jsonl in Clawdbot's first releases), and the transcripts OpenClaw
archived on a reset or a deletion (<session>.jsonl.reset.<time>,
.deleted.<time>). OpenClaw 2026.7.2 and later keep their sessions in a SQLite
database, which is not read. With no .tape/ here or above, the import makes
one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/openclaw.checkpoints; ids from the entries' ids). A line that cannot be
imported is reported as FILE:LINE and the rest is imported (exit status 2).
docs/IMPORT.md has the mapping.

Examples:
  tape import openclaw
  tape import openclaw ~/.openclaw/agents/main/sessions`
}

func (c *ImportOpenClawCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "openclaw")
}

func (c *ImportOpenCodeCmd) Help() string {
	return `A session's tape is named opencode-<the last 8 characters of the session id>;
a subagent's session is its own tape, whose parent is the session that started it.
Without a PATH, reads opencode.db (and opencode-<channel>.db) in
$OPENCODE_DATA_DIR, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode,
and its storage/ folder, where OpenCode before 1.0 kept a JSON file a row.
The database is opened read-only and never locked against OpenCode: each
session's finished messages are exported, one row a line, to a mirror in
.tape/import/opencode/, which is imported as any agent's transcripts are (a reply
still streaming waits until OpenCode completes it, or until its session has been
quiet for 5 minutes). A PATH may also name a database, or a folder of mirror
files. With no .tape/ here or above, the import makes one here, without a tape
main.

Importing again reads only what is new (checkpoints in
.tape/import/opencode.checkpoints). A line that cannot be imported is reported as
FILE:LINE and the rest is imported (exit status 2). docs/IMPORT.md has the
mapping.

Examples:
  tape import opencode
  tape import opencode ~/.local/share/opencode/opencode.db`
}

func (c *ImportOpenCodeCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "opencode")
}

func (c *ImportAmpCmd) Help() string {
	return `A thread's tape is named amp-<the last 8 digits of the thread id>; a
subagent's thread, and one handed off or forked from another, has its own,
whose parent is that thread. Without a PATH, reads the T-*.json files of
$XDG_DATA_HOME/amp/threads and ~/.local/share/amp/threads, where the Amp CLI
kept its threads until the spring of 2026 (later versions keep them on
Amp's servers only). With no .tape/ here or above, the import makes one
here, without a tape main.

Amp writes a thread's file whole again at each change: importing again reads
a changed file from its start and adds what is new (checkpoints in
.tape/import/amp.checkpoints; ids from the messages' ids). A document that cannot be
read whole is reported as FILE:LINE and what it holds up to there is
imported (exit status 2). docs/IMPORT.md has the mapping.

Examples:
  tape import amp
  tape import amp ~/.local/share/amp/threads/T-019c2b8e-5d1a-7f3e-9a4b-1c2d3e4f5a6b.json`
}

func (c *ImportAmpCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "amp")
}

func (c *ImportAiderCmd) Help() string {
	return `Each run of Aider (from a "# aider chat started at" line of a project's
.aider.chat.history.md to the next) gets a tape, named aider-<project
folder>-<YYMMDD-HHMMSS of the run's start>; a project's .aider.input.history
(each input with the time it was typed) gets one too, aider-<project>-input.
Aider writes them in each project, not in a folder of its own: without a
PATH, the folders config.json's "aider_roots" names are walked, else the home
folder, three folders deep and without its hidden folders, once Aider has run
here (~/.aider is there). A walk never goes into .git or node_modules.
With no .tape/ here or above, the import makes one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/aider.checkpoints; ids from the file's path and the line numbers). A
line before a file's first run is reported as FILE:LINE and the rest is
imported (exit status 2). docs/IMPORT.md has the mapping.

Examples:
  tape import aider
  tape import aider ~/code/myrepo
  tape import aider ~/code/myrepo/.aider.chat.history.md`
}

func (c *ImportAiderCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "aider")
}

func (c *ImportGooseCmd) Help() string {
	return `A session's tape is named goose-<the session id> (goose-20251128_3); a
subagent's session is its own tape, whose parent is the session that started it.
Without a PATH, reads sessions.db in $GOOSE_PATH_ROOT/data/sessions, else
$XDG_DATA_HOME/goose/sessions, else ~/.local/share/goose/sessions (on macOS
too). The database is opened read-only and never locked against Goose: each
session's rows are exported, one row a line, to a mirror in .tape/import/goose/,
which is imported as any agent's transcripts are. A folder of no sessions.db is
read for the <session>.jsonl files of Goose before its database. A PATH may also
name a database, a session file, or a folder of mirror files. With no .tape/ here
or above, the import makes one here, without a tape main.

Importing again reads only what is new (checkpoints in
.tape/import/goose.checkpoints). A line that cannot be imported is reported as
FILE:LINE and the rest is imported (exit status 2). docs/IMPORT.md has the
mapping.

Examples:
  tape import goose
  tape import goose ~/.local/share/goose/sessions/sessions.db`
}

func (c *ImportGooseCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "goose")
}

func (c *ImportCrushCmd) Help() string {
	return `A session's tape is named crush-<the first 8 characters of the session id>;
a subagent's task is its own tape, whose parent is the session that started it.
Crush keeps a database per project, <project>/.crush/crush.db. Without a PATH,
reads those that projects.json names in Crush's global data folder
($CRUSH_GLOBAL_DATA, else $XDG_DATA_HOME/crush, else ~/.local/share/crush: Crush
0.25 and later lists every project there), and every .crush/crush.db under that
folder and under the folders config.json's "crush_roots" names (for the projects
of older versions). A PATH may name a database, a folder to walk for
.crush/crush.db (skipping .git and node_modules), or a folder of mirror files.
A database is opened read-only and never locked against Crush: each session's
finished messages are exported, one row a line, to a mirror in
.tape/import/crush/, which is imported as any agent's transcripts are (a reply
still streaming waits until Crush finishes it, or until its session has been
quiet for 5 minutes). Crush counts tokens per session, not per reply: a
session's counts are a run each time they change, of which tape usage counts
the largest. With no .tape/ here or above, the import makes one here, without
a tape main.

Importing again reads only what is new (checkpoints in .tape/import/crush.checkpoints).
A line that cannot be imported is reported as FILE:LINE and the rest is
imported (exit status 2). docs/IMPORT.md has the mapping.

Examples:
  tape import crush
  tape import crush ~/src
  tape import crush ~/src/app/.crush/crush.db`
}

func (c *ImportCrushCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "crush")
}

func (c *ImportClaudeCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "claude")
}

func (c *ImportCodexCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "codex")
}

// run imports the sessions of the source called name (importer.Sources).
func (c *importSessions) run(env *Env, g *Globals, name string) error {
	src, ok := importer.SourceByName(name)
	if !ok {
		return fmt.Errorf("no source %q in importer.Sources", name) // a command without its source: a bug
	}
	if g.Session != "" || g.tapeFlag { // TAPE_NAME alone is the environment's default: not for sessions
		return usagef("--tape and --session do not apply to 'tape import %s': each session gets a tape of its own", src.Name())
	}
	paths, err := c.paths(env, src, g.configHere(env))
	if err != nil {
		return err
	}
	ws, err := g.importWorkspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	stats, err := c.importFrom(env, ws, src, paths, "")
	if err != nil {
		return err
	}
	return badLinesError(badLines(stats))
}

// importFrom imports src's transcripts at paths into ws, with a progress
// bar, and prints what it did; label, when not "", starts its summary
// and names the source in each JSON object (tape import of every source).
func (c *importSessions) importFrom(env *Env, ws *tapelog.Workspace, src source.Source, paths []string, label string) ([]importer.FileStats, error) {
	bar := newProgress(env.Stderr, "importing "+src.Name()+" sessions", 0, "transcripts")
	defer bar.done()
	stderr := bar.Writer(env.Stderr)
	im := importer.New(ws, src)
	im.DeferSyncs, im.Full = true, c.Full
	im.Warn = func(err error) {
		msg := withoutPackages(err)
		if errors.As(err, new(*importer.BadLine)) {
			msg += "; skipped" // the importer's other warnings say what it did
		}
		fmt.Fprintf(stderr, "tape: warning: %s\n", wording.Printable(msg))
	}
	im.Progress = func(done, _ int) { bar.set(int64(done)) }
	stats, err := im.Import(env.Context(), paths)
	bar.done()
	if werr := c.print(env, src, paths, stats, label); werr != nil && err == nil {
		err = werr
	}
	return stats, err
}

func badLines(stats []importer.FileStats) int {
	bad := 0
	for _, st := range stats {
		bad += st.BadLines
	}
	return bad
}

// badLinesError is the exit of an import that could not import bad
// lines: status 2, after the rest was imported.
func badLinesError(bad int) error {
	if bad > 0 {
		return usagef("%s could not be imported (see the warnings above); the rest was, and importing again skips what is there", wording.Plural(bad, "line", "lines"))
	}
	return nil
}

// paths are the paths given, made absolute against the working folder,
// each of which must exist, or the source's folders that exist (DirsIn:
// those config.json names for it, cfg, or its default folders and roots).
func (c *importSessions) paths(env *Env, src source.Source, cfg tapelog.Config) ([]string, error) {
	if len(c.Paths) > 0 {
		out := make([]string, len(c.Paths))
		for i, p := range c.Paths {
			if !filepath.IsAbs(p) && env.Dir != "" {
				p = filepath.Join(env.Dir, p)
			}
			if _, err := os.Stat(p); err != nil {
				// Before anything is made: an import may create the workspace.
				if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
					err = pe.Err // the path is in the message already
				}
				return nil, fmt.Errorf("open %s: %w; check the path", c.Paths[i], err)
			}
			out[i] = p
		}
		return out, nil
	}
	var found []string
	dirs := importer.DirsIn(src, cfg)
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			found = append(found, d)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s: %w", d, err)
		}
	}
	if _, rooted := src.(source.Rooted); rooted && len(found) == 0 {
		return nil, fmt.Errorf("no %s sessions found%s; name the folders to look in (config.json's %s_roots), or give the files or folders to import",
			src.Name(), lookedIn(dirs), src.Name())
	}
	if len(found) == 0 && src.DirsEnv() == "" { // an agent with no variable for its folder (Cursor)
		return nil, fmt.Errorf("no %s sessions at %s; give the files or folders to import", src.Name(), strings.Join(dirs, ", "))
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no %s sessions at %s; set %s, or give the files or folders to import",
			src.Name(), strings.Join(dirs, ", "), src.DirsEnv())
	}
	return found, nil
}

// lookedIn says where an import looked: " at DIRS", or "" for nowhere.
func lookedIn(dirs []string) string {
	if len(dirs) == 0 {
		return ""
	}
	return " at " + strings.Join(dirs, ", ")
}

// print writes one line (or JSON object) per transcript that had
// something new, then a summary.
func (c *importSessions) print(env *Env, src source.Source, paths []string, stats []importer.FileStats, label string) error {
	out := newJSONLines(env.Stdout)
	var total importer.FileStats
	tapes := map[string]bool{}
	for _, st := range stats {
		total.Imported += st.Imported
		total.Skipped += st.Skipped
		total.BadLines += st.BadLines
		total.Held += st.Held
		for _, t := range st.Tapes {
			tapes[t] = true
		}
		if st.Unchanged && !c.All {
			continue
		}
		var err error
		switch {
		case c.JSON && label != "":
			err = out.write(struct {
				Source string `json:"source"`
				importer.FileStats
			}{src.Name(), st})
		case c.JSON:
			err = out.write(st)
		case st.Unchanged:
			_, err = fmt.Fprintf(env.Stdout, "%s: nothing new (tape %s)\n", wording.Printable(st.File), wording.Printable(st.Tape))
		default:
			_, err = fmt.Fprintf(env.Stdout, "%s: %s into tape %s; %d already there, %s%s\n",
				wording.Printable(st.File), wording.Plural(st.Imported, "entry", "entries"), wording.Printable(st.Tape), st.Skipped, wording.Plural(st.BadLines, "bad line", "bad lines"), heldNote(st.Held))
		}
		if err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if c.JSON {
		return nil
	}
	if len(stats) == 0 {
		_, err := fmt.Fprintf(env.Stderr, "tape: no %s transcripts in %s\n", src.Name(), wording.Printable(strings.Join(paths, ", ")))
		return err
	}
	if label != "" {
		label += ": "
	}
	_, err := fmt.Fprintf(env.Stderr, "tape: %s%s, %s: %s imported, %d already there, %s%s\n", label,
		wording.Plural(len(stats), "transcript", "transcripts"), wording.Plural(len(tapes), "tape", "tapes"), wording.Plural(total.Imported, "entry", "entries"),
		total.Skipped, wording.Plural(total.BadLines, "bad line", "bad lines"), heldNote(total.Held))
	return err
}

func heldNote(held int) string {
	if held == 0 {
		return ""
	}
	if held == 1 {
		return ", 1 line still being written (the next import takes it)"
	}
	return fmt.Sprintf(", %d lines still being written (the next import takes them)", held)
}

// ImportPiCmd is `tape import pi`.
type ImportPiCmd struct{ importSessions }

func (c *ImportPiCmd) Help() string {
	return `A session's tape is named pi-<the last 8 digits of the session id> (an
oh-my-pi subagent's adds -agent-<its name>). Without a PATH, reads
$PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions, and
$OMP_CODING_AGENT_DIR/sessions, else ~/.omp/agent/sessions (oh-my-pi). With
no .tape/ here or above, the import makes one here, without a tape main.

A session is a tree: when the user goes back and tries again, Pi appends the
new branch to the same file. The tape keeps every branch, in the order Pi
wrote them; each starts with an anchor "branch" that names the entry it
continues from (docs/decisions/0088).

Importing again reads only what is new (checkpoints in .tape/import/pi.checkpoints;
ids from the lines). A line that cannot be imported is reported as FILE:LINE
and the rest is imported (exit status 2). docs/IMPORT.md has the mapping.

Examples:
  tape import pi
  tape import pi ~/.pi/agent/sessions/--home-me-src-app--`
}

func (c *ImportPiCmd) Run(env *Env, g *Globals) error {
	return c.run(env, g, "pi")
}
