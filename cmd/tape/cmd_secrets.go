package main

import (
	"errors"
	"fmt"

	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/redact"
)

// SecretsCmd is `tape secrets`.
type SecretsCmd struct {
	AllTapes bool `name:"all-tapes" help:"Look in every tape, not only the selected one (see 'tape --help': which tape)."`
	JSON     bool `help:"One JSON object per secret and line: tape, anchor, id, entry_kind, date, file, line, kind. Never the secret."`
}

func (c *SecretsCmd) Help() string {
	return `Lists where the tapes hold secrets: API keys and tokens (gitleaks' rules:
AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google and some 200
more), private keys, passwords in URLs, and values of high entropy given to
key-like names (.env lines, JSON, YAML). Each is named by its tape, anchor,
entry id and kind; the secret itself is never printed. The files are read,
not the index, and never changed.

Exit status 1 when it finds a secret, 0 when it finds none.

Examples:
  tape secrets --all-tapes
  tape secrets -t claude-5d7e6b2e --json | jq -r .id`
}

// errSecretsFound makes the exit status 1: the command found secrets,
// and said so.
var errSecretsFound = errors.New("secrets found")

func (c *SecretsCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, anyTapes, c.AllTapes)
	if err != nil {
		return err
	}
	defer ws.Close()
	names := tapesOf(t)
	if t == nil {
		if names, err = ws.Tapes(); err != nil {
			return err
		}
	}
	out := newJSONLines(env.Stdout)
	rows := table{header: true, columns: []column{{title: "TAPE"}, {title: "ANCHOR", give: 1, min: 8}, {title: "ID"}, {title: "ENTRY"}, {title: "KIND"}}}
	found, tapes, err := scanSecrets(env, ws, names, func(p redact.Place) error {
		if !c.JSON {
			rows.add(text(p.Tape), text(p.Anchor), text(p.ID), text(p.EntryKind), text(p.Kind))
			return nil
		}
		return out.write(secretRecord{Tape: p.Tape, Anchor: p.Anchor, ID: p.ID, EntryKind: p.EntryKind, Date: p.Date, File: p.File, Line: p.Line, Kind: p.Kind})
	})
	if err != nil {
		return err
	}
	if err := rows.write(env.Stdout, terminalColumns(env.Stdout), env.color); err != nil {
		return err
	}
	if found == 0 {
		fmt.Fprintf(env.Stderr, "tape: no secret found in %s\n", wording.Plural(len(names), "tape", "tapes"))
		return nil
	}
	fmt.Fprintf(env.Stderr, "tape: %s in %d of %s (where, not what: the secrets are not printed)\n",
		wording.Plural(found, "secret", "secrets"), tapes, wording.Plural(len(names), "tape", "tapes"))
	return errSecretsFound
}

// secretRecord is a line of tape secrets --json. Its names are a contract.
type secretRecord struct {
	Tape      string `json:"tape"`
	Anchor    string `json:"anchor"`
	ID        string `json:"id"`
	EntryKind string `json:"entry_kind"`
	Date      string `json:"date,omitempty"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Kind      string `json:"kind"`
}

// noteSecrets says on stderr how many secrets the workspace's tapes hold,
// if any: tape doctor's mention of them. Secrets are not a problem of the
// files (doctor's exit status does not change), but a person checking a
// workspace should know they are there.
func noteSecrets(env *Env, ws *tapelog.Workspace) error {
	names, err := ws.Tapes()
	if err != nil || len(names) == 0 {
		return err
	}
	found, tapes, err := scanSecrets(env, ws, names, func(redact.Place) error { return nil })
	if err != nil || found == 0 {
		return err
	}
	fmt.Fprintf(env.Stderr, "tape: note: %s in %d of %s; 'tape secrets --all-tapes' lists where\n",
		wording.Plural(found, "secret", "secrets"), tapes, wording.Plural(len(names), "tape", "tapes"))
	return nil
}

// scanSecrets finds the secrets of the named tapes, gives each place to
// each, and counts them and the tapes that hold one.
func scanSecrets(env *Env, ws *tapelog.Workspace, names []string, each func(redact.Place) error) (found, tapes int, err error) {
	r, err := redact.New()
	if err != nil {
		return 0, 0, err
	}
	err = r.ScanTapes(env.Context(), ws, names, func(places []redact.Place) error {
		if len(places) > 0 {
			tapes++
		}
		for _, p := range places {
			found++
			if err := each(p); err != nil {
				return err
			}
		}
		return nil
	})
	return found, tapes, err
}

// newRedactor is a Redactor when on, nil (nothing redacted) when not:
// what a command that sends data out holds, by its flag or its config.
func newRedactor(on bool) (*redact.Redactor, error) {
	if !on {
		return nil, nil
	}
	return redact.New()
}
