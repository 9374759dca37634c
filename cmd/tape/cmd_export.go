package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/tape-dev/tape/export"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
)

// ExportCmd is `tape export`.
type ExportCmd struct {
	Tapes    []string `arg:"" optional:"" name:"tape" help:"The tapes to export (default: the selected tape; see 'tape --help': which tape)."`
	Format   string   `short:"f" placeholder:"FORMAT" help:"md (the default), html, json or jsonl; with -o FILE, its extension when it is one of those."`
	Output   string   `short:"o" placeholder:"FILE|DIR" help:"Write to FILE, or, for several tapes, to DIR: a file each and an index (default: stdout, for one tape)."`
	Anchor   string   `placeholder:"ANCHOR" help:"Only this anchor (folder, seq, name or slug)."`
	All      bool     `short:"a" help:"The whole tape, every anchor: the default, as a session is shared whole."`
	Since    string   `placeholder:"WHEN" help:"Only entries from this time on: RFC 3339 (2026-11-22T10:00:00Z, 2026-11-22) or a duration ago (90m, 2h, 3d)."`
	Until    string   `placeholder:"WHEN" help:"Only entries before this time, in the same forms."`
	Kind     []string `short:"k" placeholder:"KIND" help:"Only entries of these kinds (repeat, or separate with commas); anchors stay as headings."`
	NoRedact bool     `name:"no-redact" help:"Write secrets as they are, not as [REDACTED:<kind>]."`
	AllTapes bool     `name:"all-tapes" help:"Export every tape, to -o DIR."`
}

func (c *ExportCmd) Help() string {
	return `Writes a session to share it: Markdown that reads well on GitHub (anchors as
headings, each tool call folded with its result, thinking marked), one HTML
file that needs nothing else (inline style, no script, no network request,
light and dark, prints), or JSON and JSONL as 'tape log --json' prints
entries. A whole tape by default.

Secrets are replaced by [REDACTED:<kind>] (as 'tape secrets' finds them;
--no-redact keeps them). A text longer than 64 KB is cut there, with a note of
the file and line that hold it whole. Several tapes go to a folder (-o DIR),
a file each and an index. The files under .tape are never changed.

Examples:
  tape export -t claude-5d7e6b2e -o session.md
  tape export -t claude-5d7e6b2e -o session.html
  tape export --all-tapes -o exported/ --format html
  tape export claude-5d7e6b2e codex-019a2d7a -o out/
  tape export --kind message --since 1d | less`
}

func (c *ExportCmd) Validate() error {
	switch {
	case c.Format != "" && !slices.Contains(export.Formats, c.Format):
		return usagef("--format %s: want md, html, json or jsonl", c.Format)
	case c.All && c.Anchor != "":
		return usagef("--all exports every anchor and --anchor one; give one or the other")
	case c.AllTapes && len(c.Tapes) > 0:
		return usagef("--all-tapes exports every tape; name tapes or give it, not both")
	case c.AllTapes && c.Output == "":
		return usagef("--all-tapes writes a folder: give -o DIR")
	}
	return nil
}

func (c *ExportCmd) Run(env *Env, g *Globals) error {
	opt, err := c.options(time.Now())
	if err != nil {
		return err
	}
	names, ix, closeAll, err := c.open(env, g)
	if err != nil {
		return err
	}
	defer closeAll()
	if opt.Redactor, err = newRedactor(!c.NoRedact); err != nil {
		return err
	}
	var st export.Stats
	switch {
	case len(names) > 1 && c.Output == "":
		return usagef("%d tapes go to a folder: give -o DIR", len(names))
	case len(names) > 1 || c.AllTapes || isDir(c.Output):
		st, err = export.Tapes(env.Context(), c.Output, ix, names, opt)
	case c.Output != "":
		st, err = export.File(env.Context(), c.Output, ix, names[0], opt)
	default:
		st, err = c.toStdout(env, ix, names[0], opt)
	}
	if err != nil {
		return anchorHint(err)
	}
	if st.Redacted > 0 {
		fmt.Fprintf(env.Stderr, "tape: %d secrets written as [REDACTED:<kind>] ('tape secrets' lists where)\n", st.Redacted)
	}
	return nil
}

// toStdout writes one tape to stdout; to a terminal, each line made
// printable, as tape log prints text: what a transcript holds may hold a
// terminal's escapes, which a file keeps and a terminal would run.
func (c *ExportCmd) toStdout(env *Env, ix *projector.Projector, name string, opt export.Options) (export.Stats, error) {
	if !isTerminal(env.Stdout) {
		return export.Tape(env.Context(), env.Stdout, ix, name, opt)
	}
	var out bytes.Buffer
	st, err := export.Tape(env.Context(), &out, ix, name, opt)
	if err != nil {
		return st, err
	}
	for line := range strings.Lines(out.String()) {
		if _, err := io.WriteString(env.Stdout, wording.Printable(strings.TrimSuffix(line, "\n"))+"\n"); err != nil {
			return st, fmt.Errorf("write output: %w", err)
		}
	}
	return st, nil
}

// open opens the index and names the tapes to export: every tape
// (--all-tapes), those named, which must exist, or the selected one (the
// one rule of which tape, as tape log reads it).
func (c *ExportCmd) open(env *Env, g *Globals) ([]string, *projector.Projector, func(), error) {
	if !c.AllTapes && len(c.Tapes) == 0 {
		t, ix, closeAll, err := g.openIndexed(env, oneTape, false)
		if err != nil {
			return nil, nil, nil, err
		}
		return []string{t.Name()}, ix, closeAll, nil
	}
	ix, closeAll, err := g.openWorkspaceIndex(env)
	if err != nil {
		return nil, nil, nil, err
	}
	ws := ix.Workspace()
	names := c.Tapes
	if c.AllTapes {
		if names, err = ws.Tapes(); err != nil {
			closeAll()
			return nil, nil, nil, err
		}
	}
	for _, name := range c.Tapes {
		if _, err := ws.SelectTape(name, oneTape); err != nil {
			closeAll()
			return nil, nil, nil, noSuchTape(ws, name)
		}
	}
	return names, ix, closeAll, nil
}

// options are the flags read.
func (c *ExportCmd) options(now time.Time) (export.Options, error) {
	info, _ := debug.ReadBuildInfo()
	opt := export.Options{Format: c.format(), Kinds: splitKinds(c.Kind), Version: versionOf(info).Version}
	if c.Anchor != "" {
		opt.Pick = read.Pick{One: c.Anchor}
	}
	var err error
	if opt.Since, err = tapelog.ParseWhen(c.Since, now); err != nil {
		return opt, usagef("--since: %v", err)
	}
	if opt.Until, err = tapelog.ParseWhen(c.Until, now); err != nil {
		return opt, usagef("--until: %v", err)
	}
	return opt, nil
}

// format is --format, else the extension of -o FILE when it names one,
// else Markdown.
func (c *ExportCmd) format() string {
	if c.Format != "" {
		return c.Format
	}
	if ext := strings.TrimPrefix(filepath.Ext(c.Output), "."); slices.Contains(export.Formats, ext) {
		return ext
	}
	return "md"
}

func isDir(path string) bool {
	if path == "" {
		return false
	}
	if strings.HasSuffix(path, "/") {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
