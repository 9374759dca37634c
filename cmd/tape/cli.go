package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/tape-dev/tape/fresh"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// CLI is the command line: global flags, then one field per command.
type CLI struct {
	Globals

	Init       InitCmd       `cmd:"" group:"workspace" help:"Create a tape workspace (.tape/) in the current folder."`
	Info       InfoCmd       `cmd:"" group:"workspace" help:"Show a tape's size, anchors, index lag, watcher and last token usage (--all-tapes: the workspace's). Example: tape info --json"`
	Doctor     DoctorCmd     `cmd:"" group:"workspace" help:"Check the files and the index for problems; exit 3 if any. Example: tape doctor --json"`
	Append     AppendCmd     `cmd:"" group:"write" help:"Append an entry to the current anchor of a tape."`
	Handoff    HandoffCmd    `cmd:"" group:"write" help:"Start a new anchor (phase) on a tape, carrying a small state."`
	Fork       ForkCmd       `cmd:"" group:"write" help:"Start a fork of a tape and print its id (e.g. id=$(tape fork))."`
	Merge      MergeCmd      `cmd:"" group:"write" help:"Append a fork's entries to its tape and remove it (e.g. tape merge ID)."`
	Discard    DiscardCmd    `cmd:"" group:"write" help:"Throw a fork away (e.g. tape discard ID)."`
	Reset      ResetCmd      `cmd:"" group:"write" help:"Start a tape over; --archive keeps the old anchors (e.g. tape reset --archive --yes)."`
	Import     ImportCmd     `cmd:"" group:"import" help:"Import sessions and tapes written elsewhere, one tape each, into this workspace (or a new one here when there is none); importing again imports only what is new."`
	Sources    SourcesCmd    `cmd:"" group:"import" help:"List the agents tape imports: found here or not, where, how many sessions, how many imported, whether followed."`
	Log        LogCmd        `cmd:"" group:"read" help:"Print the entries of the current anchor (--all: the whole tape)."`
	Anchors    AnchorsCmd    `cmd:"" group:"read" help:"List the anchors (phases) of a tape."`
	Show       ShowCmd       `cmd:"" group:"read" help:"Print the entries of one anchor."`
	Search     SearchCmd     `cmd:"" group:"read" help:"Find entries by their text (FTS5; English, Chinese, Japanese)."`
	Context    ContextCmd    `cmd:"" group:"read" help:"Print the chat messages an agent sends its model, built as Bub builds them. Example: tape context --json"`
	Tapes      TapesCmd      `cmd:"" group:"views" help:"List the tapes (sessions), the most recently written first."`
	Calls      CallsCmd      `cmd:"" group:"views" help:"List tool calls and what became of them: pending, completed, failed."`
	Usage      UsageCmd      `cmd:"" group:"views" help:"Sum the token usage of run events and what it cost, by tape, anchor, model, day, week, month, project, source, session or 5-hour block."`
	Statusline StatuslineCmd `cmd:"" group:"views" help:"Print Claude Code's status line: the model, the session's, today's and the active 5-hour block's cost."`
	Prices     PricesCmd     `cmd:"" group:"views" help:"Show the prices costs are reckoned with (LiteLLM's list, a snapshot shipped with tape); update them."`
	Messages   MessagesCmd   `cmd:"" group:"views" help:"List the chat messages of a tape in order, a page at a time."`
	Export     ExportCmd     `cmd:"" group:"read" help:"Write a session to share it: Markdown, one HTML file, JSON or JSONL, secrets redacted. Example: tape export -t NAME -o session.html"`
	Resume     ResumeCmd     `cmd:"" group:"read" help:"Print the command that reopens a tape's session in its agent (--exec runs it). Example: tape resume claude-5d7e6b2e"`
	UI         UICmd         `cmd:"" name:"ui" group:"read" help:"Browse, search and read the sessions in a full-screen terminal UI; resume or export one. Example: tape ui"`
	Secrets    SecretsCmd    `cmd:"" group:"read" help:"List where the tapes hold secrets (keys, tokens, passwords): tape, anchor, entry id, kind, never the secret; exit 1 if any. Example: tape secrets --all-tapes"`
	Reindex    ReindexCmd    `cmd:"" group:"index" help:"Catch the index up with the files (--full: rebuild it)."`
	Watch      WatchCmd      `cmd:"" group:"index" help:"Keep the index live while agents write (fsnotify)."`
	Mcp        McpCmd        `cmd:"" name:"mcp" group:"agents" help:"Serve this workspace to AI agents over the Model Context Protocol (stdio). Register it: claude mcp add tape -- tape mcp"`
	Serve      ServeCmd      `cmd:"" group:"read" help:"Browse the sessions in a web page, live and read-only (127.0.0.1:7070). Example: tape serve --open"`
	Sync       SyncCmd       `cmd:"" group:"team" help:"Project this workspace into a team's index on PostgreSQL, incrementally. Example: tape sync postgres://tape@db/team"`
	Restore    RestoreCmd    `cmd:"" group:"team" help:"Write a workspace's tapes back from the team's server as files. Example: tape restore --remote URL --workspace NAME DIR"`
	Demo       DemoCmd       `cmd:"" group:"other" help:"Build a sample workspace in a new folder and walk through it."`
	Version    VersionCmd    `cmd:"" group:"other" help:"Print the version of tape."`
	Completion CompletionCmd `cmd:"" group:"other" help:"Print a shell completion script (bash, zsh, fish)."`
}

// Globals are the flags every command takes.
type Globals struct {
	TapeDir   string `name:"tape-dir" env:"TAPE_DIR" placeholder:"PATH" help:"The .tape folder to use (default: the nearest .tape above the current folder)."`
	Tape      string `short:"t" env:"TAPE_NAME" placeholder:"NAME" help:"The tape to use (default: default_tape in config.json, else main)."`
	Session   string `placeholder:"ID" help:"Use the tape that the Bub agent framework names for this session id."`
	NoCatchup bool   `name:"no-catchup" env:"TAPE_NO_CATCHUP" help:"Read the index as it stands, without catching up with the files first (a missing index is still built)."`
	Color     string `enum:"auto,always,never" default:"auto" env:"TAPE_COLOR" placeholder:"WHEN" help:"Color human output: auto (on a terminal, unless NO_COLOR is set), always, never."`
	// tapeFlag is set when the command line gave --tape, not TAPE_NAME
	// alone (tapeFlagGiven): --all-tapes overrides the one, and is a
	// usage error with the other.
	tapeFlag bool
}

var groups = []kong.Group{
	{Key: "workspace", Title: "Workspace"},
	{Key: "write", Title: "Write"},
	{Key: "import", Title: "Import"},
	{Key: "read", Title: "Read"},
	{Key: "views", Title: "Views (projections of the tapes)"},
	{Key: "index", Title: "Index"},
	{Key: "agents", Title: "Agents"},
	{Key: "team", Title: "Team (an index on PostgreSQL that many workspaces share)"},
	{Key: "other", Title: "Other"},
}

const cliDescription = `Store for AI-agent sessions: an append-only log of JSONL files under anchor folders.

A tape is .tape/tapes/<tape>/anchors/NNN_<slug>/*.jsonl: read it with ls and
cat, append to it with >> from any language. tape adds safe appends, handoffs,
ordered reads, and full-text search over .tape/index.db, an index it derives
from the files and rebuilds whenever it is missing.

Which tape: a command uses the tape named by --tape NAME, TAPE_NAME or
--session ID, else the workspace's default tape (default_tape in config.json:
main). --all-tapes makes info, search, calls and usage read every tape, as
git log --all reads every branch; it overrides TAPE_NAME, as --session
does. When no tape is
named and the default tape does not exist (a workspace of imported sessions),
those four read every tape, and the commands that need one tape say how to
pick one; an empty default tape beside other tapes (tape init, then an
import) counts as not there for those four.

` + exitCodesHelp

// workspace opens the workspace the flags and the working folder point at.
func (g *Globals) workspace(env *Env) (*tapelog.Workspace, error) {
	if g.TapeDir != "" {
		ws, err := tapelog.Open(g.TapeDir)
		if err != nil {
			return nil, fmt.Errorf("TAPE_DIR/--tape-dir: %w", err)
		}
		return ws, nil
	}
	dir, err := workingDir(env)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	return tapelog.Find(dir)
}

// workingDir is the folder the command runs in.
func workingDir(env *Env) (string, error) {
	if env.Dir != "" {
		return env.Dir, nil
	}
	return os.Getwd()
}

// configHere is the configuration of the workspace the flags and the
// working folder point at, for what a command reads before it opens the
// workspace (or makes one: tape import); the defaults when there is none,
// or it cannot be read, which the command says when it opens it.
func (g *Globals) configHere(env *Env) tapelog.Config {
	ws, err := g.workspace(env)
	if err != nil {
		return tapelog.DefaultConfig()
	}
	defer ws.Close()
	return ws.Config()
}

// importWorkspace opens the workspace as workspace does or, when there is
// none here or above and TAPE_DIR names none, creates one here without a
// tape and says so on stderr, as git clone says where it clones: an
// import is how a person with sessions to read starts (docs/decisions/0062).
// A TAPE_DIR that does not exist is an error, as it may be a typo.
func (g *Globals) importWorkspace(env *Env) (*tapelog.Workspace, error) {
	ws, err := g.workspace(env)
	if g.TapeDir != "" || !errors.Is(err, tapelog.ErrNoWorkspace) {
		return ws, err
	}
	dir, err := workingDir(env)
	if err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	ws, created, err := tapelog.Create(dir)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(env.Stderr, "tape: created a workspace in %s (none here or above)\n", wording.Printable(ws.Dir()))
	}
	return ws, nil
}

// openTape opens the workspace and the tape a command of reach r reads
// (selectTape, the one rule; allTapes is --all-tapes): nil for every tape.
func (g *Globals) openTape(env *Env, r reach, allTapes bool) (*tapelog.Workspace, *tapelog.Tape, error) {
	ws, err := g.workspace(env)
	if err != nil {
		return nil, nil, err
	}
	t, err := g.selectTape(ws, r, allTapes)
	if err != nil {
		ws.Close()
		return nil, nil, err
	}
	return ws, t, nil
}

// openIndexed opens the workspace, the tape openTape selects (nil for
// every tape) and the index, caught up unless --no-catchup: what every
// read command starts with. close releases them.
func (g *Globals) openIndexed(env *Env, r reach, allTapes bool) (t *tapelog.Tape, ix *projector.Projector, close func(), err error) {
	ws, t, err := g.openTape(env, r, allTapes)
	if err != nil {
		return nil, nil, nil, err
	}
	if ix, err = g.index(env, ws); err != nil {
		closeTape(t)
		ws.Close()
		return nil, nil, nil, err
	}
	return t, ix, func() { ix.Close(); closeTape(t); ws.Close() }, nil
}

// openWorkspaceIndex opens the workspace and its index, caught up unless
// --no-catchup: what a command of the whole workspace starts with (tape
// tapes, tape sync). close releases both.
func (g *Globals) openWorkspaceIndex(env *Env) (ix *projector.Projector, close func(), err error) {
	ws, err := g.workspace(env)
	if err != nil {
		return nil, nil, err
	}
	if ix, err = g.index(env, ws); err != nil {
		ws.Close()
		return nil, nil, err
	}
	return ix, func() { ix.Close(); ws.Close() }, nil
}

// closeTape closes t, which is nil for every tape.
func closeTape(t *tapelog.Tape) {
	if t != nil {
		t.Close()
	}
}

// index opens the workspace's index and, unless --no-catchup, brings it up
// to date with the files, so what a read command prints is what is on disk.
func (g *Globals) index(env *Env, ws *tapelog.Workspace) (*projector.Projector, error) {
	ix, err := projector.Open(env.Context(), ws)
	if err != nil {
		return nil, err
	}
	if g.NoCatchup && !ix.Fresh { // a new index must be filled, whatever the flag says
		return ix, nil
	}
	if err := catchUp(env, ix); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// openSearchable is openIndexed with the index open but not yet made
// fresh: the command reads it through readFresh, which can run its query
// beside the catch-up.
func (g *Globals) openSearchable(env *Env, r reach, allTapes bool) (t *tapelog.Tape, ix *projector.Projector, close func(), err error) {
	ws, t, err := g.openTape(env, r, allTapes)
	if err != nil {
		return nil, nil, nil, err
	}
	if ix, err = projector.Open(env.Context(), ws); err != nil {
		closeTape(t)
		ws.Close()
		return nil, nil, nil, err
	}
	return t, ix, func() { ix.Close(); closeTape(t); ws.Close() }, nil
}

// readFresh runs read on the index as fresh.Read makes it fresh
// (beside the catch-up, when that is faster), or as it stands with
// --no-catchup on an index that is not new.
func readFresh[T any](env *Env, g *Globals, ix *projector.Projector, read func() (T, error)) (T, error) {
	if g.NoCatchup && !ix.Fresh {
		return read()
	}
	ix.Holder = "tape catch-up"
	return fresh.Read(env.Context(), ix, reading(env, ix.Workspace()), read)
}

// catchUp makes an open index fresh (fresh.Freshen): what a read
// command does before it reads.
func catchUp(env *Env, ix *projector.Projector) error {
	ix.Holder = "tape catch-up"
	r := reading(env, ix.Workspace())
	var done func()
	r.Progress, done = indexProgress(env, "indexing")
	defer done()
	return fresh.Freshen(env.Context(), ix, r)
}

// reading is how the CLI's reads make the index fresh: another process
// that holds the index too long is a warning, and the index is read as it
// stands; with no watcher running, one is started for the reads to come
// (watch_auto.go).
// The MCP server reads by it too (cmd_mcp.go).
func reading(env *Env, ws *tapelog.Workspace) fresh.Reading {
	return fresh.Reading{
		Stale: func(err error) {
			fmt.Fprintf(env.Stderr, "tape: warning: %s; reading the index as it stands\n", wording.Printable(withoutPackages(err)))
		},
		StartWatcher: watchStarter(env, ws),
	}
}

// run parses args, runs the command and returns the exit status.
func run(ctx context.Context, args []string, env *Env) (code int) {
	env.ctx = ctx
	var cli CLI
	exited := false
	kctx, err := parse(&cli, env, args, kong.Exit(func(c int) { exited, code = true, c }))
	if exited { // --help
		return code
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "tape: %s\n", parseErrorMessage(err))
		return exitUsage
	}
	env.color = newPalette(cli.Color, env.Stdout)
	if err := kctx.Run(); err != nil {
		report(env.Stderr, err)
		return exitCode(err)
	}
	return exitOK
}

// parseErrorMessage is what tape says of a command line kong could not
// parse: kong's words and where help is, except where a command takes a
// subcommand (tape import claude|codex|bub) and was given none of them:
// kong's "unexpected argument" there reads as if the command took no
// argument, so this names the word and lists the subcommands there are.
func parseErrorMessage(err error) string {
	msg := flagValueWords(err.Error())
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil || pe.Context.Selected() == nil {
		return msg + "; see 'tape --help'"
	}
	node := pe.Context.Selected()
	if p := node.Parent; p != nil && p.DefaultCmd == node && strings.HasPrefix(msg, "unexpected argument ") && !strings.Contains(msg, ", did you mean") {
		// tape import claud: a word its default command (import all)
		// does not take, where a subcommand was meant.
		node = p
		msg += closestWord(strings.TrimPrefix(msg, "unexpected argument "), p)
	}
	var subs []string
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && !c.Hidden && c != node.DefaultCmd {
			subs = append(subs, c.Name)
		}
	}
	help := fmt.Sprintf("see '%s --help'", node.FullPath())
	if len(subs) == 0 {
		return msg + "; " + help
	}
	kind := "subcommand"
	if k, ok := node.Target.Addr().Interface().(interface{ subcommandKind() string }); ok {
		kind = k.subcommandKind()
	}
	list := strings.Join(subs, ", ")
	word, ok := strings.CutPrefix(msg, "unexpected argument ")
	if !ok {
		if strings.HasPrefix(msg, "expected ") { // nothing where a subcommand goes
			return fmt.Sprintf("%s needs a %s: %s (%s)", node.FullPath(), kind, list, help)
		}
		return msg + "; " + help
	}
	word, suggestion, _ := strings.Cut(word, ", did you mean ")
	if suggestion != "" {
		suggestion = " (did you mean " + suggestion + ")"
	}
	return fmt.Sprintf("unknown %s %s %q%s; the %ss are %s (%s)", node.Name, kind, word, suggestion, kind, list, help)
}

// closestWord is kong's suggestion for a mistyped subcommand of node, as
// it words it (", did you mean \"claude\"?"), or "": a name word starts,
// or one at most two edits from it.
func closestWord(word string, node *kong.Node) string {
	var close []string
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && !c.Hidden && c != node.DefaultCmd && (strings.HasPrefix(c.Name, word) || editDistance(c.Name, word) <= 2) {
			close = append(close, strconv.Quote(c.Name))
		}
	}
	switch len(close) {
	case 0:
		return ""
	case 1:
		return ", did you mean " + close[0] + "?"
	}
	return ", did you mean one of " + strings.Join(close, ", ") + "?"
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cur := row[j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(row[j]+1, row[j-1]+1, prev+cost)
			prev = cur
		}
	}
	return row[len(b)]
}

// flagValueWords says in words that a flag needs its value, where kong
// says it got "EOL": at the end of the line ("--limit: expected int value
// but got \"EOL\" (<EOL>)"), before another flag ("... got \"--json\"
// (long flag); perhaps try --limit=\"--json\"?"), and for a list
// ("--kind: missing value, expecting \"<arg>,...\""). Any other message is
// returned as it is. It runs on the error path alone, so it reads kong's
// words with strings rather than compiling patterns every process would pay
// for.
func flagValueWords(msg string) string {
	flag, rest, ok := strings.Cut(msg, ": ")
	if !ok || !strings.HasPrefix(flag, "-") || strings.ContainsRune(flag, ' ') {
		return msg
	}
	if strings.HasPrefix(rest, "missing value, expecting ") {
		return flag + " needs a value"
	}
	rest, ok = strings.CutPrefix(rest, "expected ")
	typ, rest, ok2 := strings.Cut(rest, ` value but got "`)
	got, rest, ok3 := strings.Cut(rest, `" (`)
	if !ok || !ok2 || !ok3 || strings.ContainsRune(typ, ' ') {
		return msg
	}
	number := strings.Contains(typ, "int") || strings.HasPrefix(typ, "float")
	what := "a value"
	if number {
		what = "a number"
	}
	_, numeric := strconv.ParseFloat(got, 64)
	switch {
	case strings.HasPrefix(rest, "<EOL>)"):
		return flag + " needs " + what
	case !strings.HasPrefix(rest, "long flag)") && !strings.HasPrefix(rest, "short flag)"):
		return msg
	case number && numeric != nil:
		return fmt.Sprintf("%s needs a number, not the flag %s", flag, got)
	}
	return fmt.Sprintf("%s needs %s (%s reads as a flag; if it is the value, write %s=%s)", flag, what, got, flag, got)
}
