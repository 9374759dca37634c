package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tape-dev/tape/remote"
)

// The team index on PostgreSQL, from the command line: which server a
// command talks to, and its errors in the CLI's words. What it does is
// package remote's.

// remoteFlag is --remote: read the team's server, not the local index.
// It is a flag alone (the URL then comes as the command's first
// argument, postgres://..., or from TAPE_PG_URL or config.json's pg_url),
// or --remote=URL.
type remoteFlag struct {
	on  bool
	url string
}

// Decode implements kong.MapperValue: --remote, --remote=URL, and
// --remote=true|false as a bool flag takes them.
func (r *remoteFlag) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		r.on = true
		return nil
	}
	switch v := ctx.Scan.Pop().Value.(type) {
	case bool:
		r.on = v
	case string:
		switch strings.ToLower(v) {
		case "true", "1", "yes":
			r.on = true
		case "false", "0", "no":
			r.on = false
		default:
			r.on, r.url = true, v
		}
	}
	return nil
}

// IsBool implements kong.BoolMapperValue: --remote takes no value of its
// own.
func (r *remoteFlag) IsBool() bool { return true }

// remoteFlags are the flags of a command that reads the team's server.
type remoteFlags struct {
	Remote     remoteFlag `help:"Read the team's index on PostgreSQL instead of this workspace's: --remote [postgres://USER@HOST/DB], else TAPE_PG_URL or pg_url in .tape/config.json (see 'tape sync')."`
	Workspaces []string   `name:"workspace" sep:"," placeholder:"NAME" help:"With --remote: only these workspaces, by name or id (repeat, or separate with commas)."`
}

func (f *remoteFlags) validate() error {
	if len(f.Workspaces) > 0 && !f.Remote.on {
		return usagef("--workspace is for --remote: a workspace on the team's server")
	}
	return nil
}

// validateURL checks a command's URL argument, which only --remote takes.
func (f *remoteFlags) validateURL(u string) error {
	switch {
	case u == "":
	case !remote.IsURL(u):
		return usagef("%s is not a PostgreSQL URL; an argument here is the server's, for --remote: postgres://USER@HOST[:PORT]/DB", showArg(u))
	case !f.Remote.on:
		return usagef("%s: a server's URL is for --remote", remote.Redact(u))
	}
	return f.validate()
}

// showArg is an argument that should have been a URL, as a message shows
// it: quoted when it cannot hold a password (no @, =, or :), else
// redacted.
func showArg(u string) string {
	if strings.ContainsAny(u, "@=:") {
		return remote.Redact(u)
	}
	return strconv.Quote(u)
}

// serverURL picks the server: given (a flag's value or an argument),
// else TAPE_PG_URL, else pg_url in the workspace's config.json when there
// is a workspace here.
func serverURL(env *Env, g *Globals, given string) (string, error) {
	config := ""
	if given == "" && os.Getenv(remote.EnvURL) == "" {
		if ws, err := g.workspace(env); err == nil {
			config = ws.Config().PGURL
			ws.Close()
		}
	}
	u, err := remote.ResolveURL(given, os.Getenv(remote.EnvURL), config)
	if err != nil {
		return "", usagef("%s", strings.TrimPrefix(err.Error(), "remote: "))
	}
	if !remote.IsURL(u) {
		return "", usagef("%s is not a PostgreSQL URL; want postgres://USER@HOST[:PORT]/DB", showArg(u))
	}
	return u, nil
}

// urlArg takes a PostgreSQL URL off the front of args, if there is one.
func urlArg(args []string) (string, []string) {
	if len(args) > 0 && remote.IsURL(args[0]) {
		return args[0], args[1:]
	}
	return "", args
}

// connectServer resolves the server and connects to it.
func connectServer(env *Env, g *Globals, given string) (*pgx.Conn, string, error) {
	u, err := serverURL(env, g, given)
	if err != nil {
		return nil, "", err
	}
	conn, err := remote.Connect(env.Context(), u)
	if err != nil {
		return nil, "", serverFailed(err, u, "")
	}
	return conn, u, nil
}

// closeServer closes a connection, waiting a little for the server.
func closeServer(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteCloseWait)
	defer cancel()
	conn.Close(ctx) //nolint:errcheck // what was asked is done
}

// errServer marks an error talking to the server: the exit status says
// the server, not the workspace or the command line (exitServer).
var errServer = errors.New("server")

// serverFailed is err in the CLI's words: which server, the URL without
// its password, and, for a server that went away, that running again
// resumes (resume says what).
func serverFailed(err error, u, resume string) error {
	if err == nil {
		return nil
	}
	var se *remote.ServerError
	msg := oneLineError(err.Error())
	if !errors.As(err, &se) && !strings.Contains(msg, remote.Redact(u)) {
		msg = remote.Redact(u) + ": " + msg
	}
	msg = strings.TrimPrefix(msg, "remote: ")
	if !remote.Gone(err) {
		return hintError{kind: errServer, msg: msg, hint: refusedHint(err)}
	}
	hint := "is the server up and reachable? Check the URL, the network, and TLS (sslmode= in the URL)"
	if resume != "" {
		hint = resume
	}
	return hintError{kind: errServer, msg: msg, hint: hint}
}

// refusedHint is what to check when the server was reached and refused:
// the URL and the credentials when connecting was refused, the role's
// rights when it lacked one, and nothing else, where the message says
// what happened (a statement the server refused is not the URL's fault).
func refusedHint(err error) string {
	var pgErr *pgconn.PgError
	var se *remote.ServerError
	switch {
	case errors.Is(err, remote.ErrSyncRunning), errors.Is(err, remote.ErrNewerSchema), errors.Is(err, remote.ErrNoWorkspace), errors.Is(err, remote.ErrNoSchema):
		return ""
	case errors.As(err, &pgErr) && pgErr.Code == pgInsufficientPrivilege:
		return "the role lacks a right this needs; docs/TEAM.md says which role syncs and which reads"
	case errors.As(err, &se) && se.Op == "connect":
		return "check the URL, the user and its password (PGPASSWORD, ~/.pgpass) and the server's log"
	}
	return ""
}

// pgInsufficientPrivilege is PostgreSQL's SQLSTATE for a right the role
// lacks ("permission denied").
const pgInsufficientPrivilege = "42501"

// oneLineError folds a driver's message of several lines (pgx lists each
// address it tried on a line of its own) onto one.
func oneLineError(s string) string {
	s = strings.ReplaceAll(s, ":\n\t", ": ")
	s = strings.ReplaceAll(s, "\n\t", "; ")
	return strings.ReplaceAll(s, "\n", " ")
}

// remoteCloseWait is how long closing a connection waits for the server.
const remoteCloseWait = 2 * time.Second
