package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tape-dev/tape/bub"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
)

// ImportCmd is `tape import`: one subcommand per foreign format.
//
// Its sources are listed once, under their own heading (the group
// "import"), in tape --help and tape import --help alike; each source's
// help tag is its line there, and its Help what that line does not say.
type ImportCmd struct {
	All      ImportAllCmd      `cmd:"" default:"withargs" group:"import" help:"Import the sessions of every agent found on this machine (the default: tape import)."`
	Claude   ImportClaudeCmd   `cmd:"" group:"import" help:"Import Claude Code's sessions (~/.claude/projects), one tape each."`
	Codex    ImportCodexCmd    `cmd:"" group:"import" help:"Import the Codex CLI's sessions (~/.codex/sessions), one tape each."`
	Gemini   ImportGeminiCmd   `cmd:"" group:"import" help:"Import the Gemini CLI's sessions (~/.gemini/tmp), one tape each."`
	Qwen     ImportQwenCmd     `cmd:"" group:"import" help:"Import Qwen Code's sessions (~/.qwen/projects), one tape each."`
	Copilot  ImportCopilotCmd  `cmd:"" group:"import" help:"Import the GitHub Copilot CLI's sessions (~/.copilot/session-state), one tape each."`
	Pi       ImportPiCmd       `cmd:"" group:"import" help:"Import Pi's and oh-my-pi's sessions (~/.pi/agent/sessions, ~/.omp/agent/sessions), one tape each."`
	Kimi     ImportKimiCmd     `cmd:"" group:"import" help:"Import Kimi CLI's and Kimi Code's sessions (~/.kimi/sessions, ~/.kimi-code/sessions), one tape each."`
	Droid    ImportDroidCmd    `cmd:"" group:"import" help:"Import Factory Droid's sessions (~/.factory/sessions), one tape each."`
	OpenClaw ImportOpenClawCmd `cmd:"" name:"openclaw" group:"import" help:"Import OpenClaw's sessions (~/.openclaw/agents/*/sessions), one tape each."`
	OpenCode ImportOpenCodeCmd `cmd:"" name:"opencode" group:"import" help:"Import OpenCode's sessions (~/.local/share/opencode/opencode.db), one tape each."`
	Amp      ImportAmpCmd      `cmd:"" group:"import" help:"Import Amp's threads (~/.local/share/amp/threads), one tape each."`
	Aider    ImportAiderCmd    `cmd:"" group:"import" help:"Import Aider's chat and input histories (.aider.chat.history.md in your projects), a tape per run."`
	Goose    ImportGooseCmd    `cmd:"" group:"import" help:"Import Goose's sessions (~/.local/share/goose/sessions/sessions.db), one tape each."`
	Crush    ImportCrushCmd    `cmd:"" group:"import" help:"Import Crush's sessions (<project>/.crush/crush.db, the projects ~/.local/share/crush lists), one tape each."`
	Cline    ImportClineCmd    `cmd:"" group:"import" help:"Import the tasks of Cline, Roo Code and Kilo Code (the editors' globalStorage, ~/.cline/data), one tape each."`
	Cursor   ImportCursorCmd   `cmd:"" group:"import" help:"Import Cursor's chats (the editor's state.vscdb, the CLI's ~/.cursor/projects and ~/.cursor/chats), one tape each."`
	Kilo     ImportKiloCmd     `cmd:"" group:"import" help:"Import the Kilo CLI's sessions (~/.local/share/kilo/kilo.db), one tape each."`
	Bub      ImportBubCmd      `cmd:"" group:"import" help:"Import the Bub framework's single-file tapes (~/.bub/tapes/*.jsonl), one tape each."`
}

// subcommandKind is what tape import's subcommands are, for the error
// that lists them (parseErrorMessage).
func (c *ImportCmd) subcommandKind() string { return "source" }

// ImportBubCmd is `tape import bub`.
type ImportBubCmd struct {
	Files []string `arg:"" name:"FILE" help:"Bub tape files, one entry per line."`
	JSON  bool     `help:"One JSON object per file and line: file, tape, imported, anchors, skipped, bad_lines."`
}

func (c *ImportBubCmd) Help() string {
	return `Copies the entries of Bub tape files into tapes of this workspace, keeping
their kinds, payloads, meta, dates and integer ids (as strings). Each anchor
entry starts a new anchor folder; the entries after it go into that folder.
A file goes to the tape named after it (abc__def.jsonl to tape abc__def), or
to --tape (or TAPE_NAME) when there is one file.

Importing again imports only what is new: a line whose id is already on the
tape, with the same kind and date, is skipped, so a Bub file that grew since
brings only its new lines. A tape that exists and does not hold the file's
first entry is refused (it is another tape). A line that cannot be imported
is reported as FILE:LINE and skipped; the rest is imported, and the exit
status is 2.

Examples:
  tape import bub ~/.bub/tapes/*.jsonl
  tape import bub --tape review ~/.bub/tapes/abc__def.jsonl`
}

// importStats is what an import of one file did; its JSON field names are
// a contract.
type importStats struct {
	File     string `json:"file"`
	Tape     string `json:"tape"`
	Imported int    `json:"imported"`
	Anchors  int    `json:"anchors"`
	Skipped  int    `json:"skipped"`
	BadLines int    `json:"bad_lines"`
}

func (c *ImportBubCmd) Run(env *Env, g *Globals) error {
	switch {
	case g.Session != "":
		return usagef("--session does not apply to import; name the tape with --tape")
	case g.tapeFlag && len(c.Files) > 1:
		return usagef("--tape names the tape of one file; import several files without it, each into the tape named after it")
	case g.Tape != "" && len(c.Files) > 1:
		return usagef("TAPE_NAME (%s) names the tape of one file; unset it to import several files, each into the tape named after it", wording.Printable(g.Tape))
	}
	jobs, err := c.jobs(env, g) // before an import may create the workspace
	if err != nil {
		return err
	}
	ws, err := g.importWorkspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	bad := 0
	out := newJSONLines(env.Stdout)
	for _, j := range jobs {
		st, err := importBub(env, ws, j.path, j.shown, j.tape)
		if err != nil {
			return err
		}
		bad += st.BadLines
		if c.JSON {
			err = out.write(st)
		} else {
			_, err = fmt.Fprintf(env.Stdout, "%s: imported %s (%s) into tape %s; %d already there, %s\n",
				wording.Printable(st.File), wording.Plural(st.Imported, "entry", "entries"), wording.Plural(st.Anchors, "anchor", "anchors"), wording.Printable(st.Tape),
				st.Skipped, wording.Plural(st.BadLines, "bad line", "bad lines"))
		}
		if err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if bad > 0 {
		them := "them"
		if bad == 1 {
			them = "it"
		}
		return usagef("%s could not be imported (see the warnings above); fix %s and import again: what is already imported is skipped", wording.Plural(bad, "line", "lines"), them)
	}
	return nil
}

type importJob struct{ path, shown, tape string }

// jobs checks every file and tape name before anything is imported, so a
// typo in the last name does not leave the first files imported.
func (c *ImportBubCmd) jobs(env *Env, g *Globals) ([]importJob, error) {
	jobs := make([]importJob, len(c.Files))
	for i, shown := range c.Files {
		path := shown
		if !filepath.IsAbs(path) && env.Dir != "" {
			path = filepath.Join(env.Dir, path)
		}
		fi, err := os.Stat(path)
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		if err != nil {
			return nil, fmt.Errorf("open %s: %w; check the path (Bub keeps its tapes in ~/.bub/tapes)", shown, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, usagef("%s is not a file; give Bub tape files (~/.bub/tapes/<tape>.jsonl)", shown)
		}
		name := g.Tape
		if name == "" {
			name = bub.FileTape(path)
		}
		if err := tapelog.ValidateTapeName(name); err != nil {
			return nil, fmt.Errorf("%s: %w; name the tape with --tape", shown, err)
		}
		jobs[i] = importJob{path: path, shown: shown, tape: name}
	}
	return jobs, nil
}

// importBub imports one Bub file into a tape, with a progress bar on a
// terminal and a warning for each line it does not import.
func importBub(env *Env, ws *tapelog.Workspace, path, shown, name string) (importStats, error) {
	st := importStats{File: shown, Tape: name}
	var bar *progressBar
	warnings := env.Stderr
	opts := bub.Options{
		Name: shown,
		Warn: func(err error) { _ = warnLine(warnings, err) }, // an unreadable line ends the import in bub.Import
		Progress: func(read, size int64) {
			if bar == nil {
				bar = newProgress(env.Stderr, "importing "+filepath.Base(shown), size, "bytes")
				warnings = bar.Writer(env.Stderr) // warnings on lines of their own
			}
			bar.set(read)
		},
	}
	defer func() {
		if bar != nil {
			bar.done()
		}
	}()
	n, err := bub.Import(env.Context(), ws, path, name, opts)
	st.Imported, st.Anchors, st.Skipped, st.BadLines = n.Imported, n.Anchors, n.Skipped, n.BadLines
	if errors.Is(err, bub.ErrOtherTape) {
		// Refused input, not a broken workspace: another --tape fixes it.
		return st, usagef("tape %s holds entries and none of %s; import into a new tape with --tape NAME", name, shown)
	}
	return st, err
}
