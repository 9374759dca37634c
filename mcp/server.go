package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tape-dev/tape/fresh"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/pricing"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/redact"
)

// Options configure a server.
type Options struct {
	// AllowWrite enables the append and handoff tools. Without it the
	// server only reads, and those tools answer a tool error that says
	// how to enable them.
	AllowWrite bool
	// Reading is how a call makes the index fresh before it reads
	// (fresh.Read): the CLI passes the one its reads use, which
	// warns of an index held too long and starts a watcher on demand.
	Reading fresh.Reading
	// Version is the server's version, as the client is told it.
	Version string
	// Prices price the usage tool's runs (cost_usd); nil for tokens alone.
	Prices *pricing.Table
	// Redactor replaces the secrets of everything the server writes with
	// [REDACTED:<kind>]: what a transcript holds goes to a model
	// provider. nil writes them as they are.
	Redactor *redact.Redactor
}

// Serve serves the workspace over MCP on r and w (a client's pipes:
// stdin and stdout) until r ends or ctx is done, which both end it
// cleanly. When r ends, the requests read from it are answered first. A
// line that is not a message, or is too long, is answered with a
// JSON-RPC error, and the session goes on.
func Serve(ctx context.Context, ws *tapelog.Workspace, r io.Reader, w io.Writer, opts Options) error {
	s, srv, err := newServer(ws, opts)
	if err != nil {
		return err
	}
	defer s.close()
	// The input answers the lines the SDK would end the session at, and
	// bounds each line (input.go): the SDK's own bound is off.
	out := &output{w: w, flight: newInFlight(), batches: newBatchRules(), redactor: opts.Redactor}
	transport := &sdk.IOTransport{
		Reader:        io.NopCloser(newInput(ctx, r, out, maxMessage(ws))),
		Writer:        nopCloser{out},
		MaxLineLength: -1,
	}
	err = srv.Run(ctx, transport)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// maxMessage is the longest line the server reads, in bytes: room for an
// append of the largest entry the workspace takes, its payload escaped
// in a string at worst, so that log refuses a larger one with a tool
// error, and at least the SDK's default (33 MiB with the default
// max_entry_bytes of 16 MiB). A longer line is answered with an error.
func maxMessage(ws *tapelog.Workspace) int {
	return int(max(sdk.DefaultMaxLineLength, 2*ws.Config().MaxEntryBytes+1<<20))
}

// instructions is what a client may tell its model of the server.
const instructions = `tape is the memory of the AI-agent sessions of this workspace: each session is a tape of entries (messages, tool calls and their results, events), in phases called anchors; a handoff starts a new anchor and carries a small state (a summary, what comes next). Use search to find what was said or done before, context to get the chat messages of the current phase (max_tokens keeps the newest that fit), log and show to read entries, anchors and tapes to see what is there, calls and usage for the tool calls and the tokens spent. With writes enabled, append records an entry and handoff ends a phase with its state. A tool that takes "tape" reads the workspace's default tape when it is left out; search, calls and usage read every tape when the default tape does not exist, or with all_tapes.`

// server is one workspace served: the tools' and resources' shared state.
type server struct {
	ws   *tapelog.Workspace
	opts Options
	// ix is the index, shared by the calls, which the SDK may run at once.
	ix *fresh.Served
	// resourcePage is how many anchors a page of resources/list holds
	// (resources.go); tests make it small.
	resourcePage int
}

// newServer builds the server of ws and the SDK's server that runs it.
func newServer(ws *tapelog.Workspace, opts Options) (*server, *sdk.Server, error) {
	s := &server{ws: ws, opts: opts, ix: fresh.NewServed(ws, "tape mcp", opts.Reading), resourcePage: resourcePage}
	srv := sdk.NewServer(&sdk.Implementation{Name: "tape", Title: "tape: the sessions of AI agents", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		// The lists never change while a session runs, and the tapes are
		// listed as they are when asked (resources.go): no list_changed.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}},
	})
	for _, add := range []func(*sdk.Server) error{
		s.addSearch, s.addContext, s.addLog, s.addShow, s.addAnchors,
		s.addTapes, s.addCalls, s.addUsage,
		s.addAppend, s.addHandoff,
	} {
		if err := add(srv); err != nil {
			return nil, nil, err
		}
	}
	s.addResources(srv)
	return s, srv, nil
}

func (s *server) close() { s.ix.Close() }

// served runs fn on the index, made fresh first as the CLI's reads make it
// (fresh.ServedRead: opened by the first read, and kept for the
// session).
func served[T any](ctx context.Context, s *server, fn func(ix *projector.Projector) (T, error)) (T, error) {
	return fresh.ServedRead(ctx, s.ix, fn)
}

// openTape opens the tape a call of reach r works on, by the CLI's rule
// (log.Workspace.SelectTape): the tape argument, else the workspace's
// default; nil for every tape, with all_tapes (all), or for a call that
// can read every tape when no tape is named and the default tape is not
// there. The caller closes it.
func (s *server) openTape(name string, r tapelog.Reach, all bool) (*tapelog.Tape, error) {
	if all {
		if name != "" {
			return nil, errors.New(`all_tapes reads every tape and "tape" names one; give one or the other`)
		}
		return nil, nil
	}
	t, err := s.ws.SelectTape(name, r)
	var missing *tapelog.NoTapeError
	if errors.As(err, &missing) {
		return nil, s.noTape(missing)
	}
	return t, err
}

// scope is the name of the tape openTape selects, "" for every tape.
func (s *server) scope(name string, r tapelog.Reach, all bool) (string, error) {
	t, err := s.openTape(name, r, all)
	if t == nil {
		return "", err
	}
	defer t.Close()
	return t.Name(), nil
}

// defaultOnly is how many tapes the workspace has when a call that can
// read every tape read only the default one, tape, because none was named
// (named is the tape argument), and there are others; else 0. A call that
// found nothing there says all_tapes reads them all.
func (s *server) defaultOnly(named, tape string) int {
	if named != "" || tape == "" {
		return 0
	}
	names, _ := s.ws.Tapes()
	if len(names) < 2 {
		return 0
	}
	return len(names)
}

// shownTapes is how many tape names an error lists.
const shownTapes = 5

// noTape says that a tape is not there, and how to pick one, in the
// words of the tools' arguments.
func (s *server) noTape(e *tapelog.NoTapeError) error {
	names, _ := s.ws.Tapes()
	some := strings.Join(names[:min(len(names), shownTapes)], ", ")
	if len(names) > shownTapes {
		some += fmt.Sprintf(" and %d more", len(names)-shownTapes)
	}
	switch {
	case len(names) == 0:
		return fmt.Errorf("no tapes in %s yet, not even %q; the append tool (with --allow-write) creates one, as do tape append and tape import", s.ws.Dir(), e.Name)
	case e.Named:
		return fmt.Errorf("no tape %q in %s (tapes: %s); the tapes tool lists them, newest first", e.Name, s.ws.Dir(), some)
	}
	return fmt.Errorf(`no "tape" given, and the default tape %q does not exist in %s, which has %d tapes: %s; pass "tape" (the tapes tool lists them, newest first)`,
		e.Name, s.ws.Dir(), len(names), some)
}

// message is an error as a tool error says it: without the package
// prefixes of the library's sentinels, as the CLI prints them.
func message(err error) string {
	msg := err.Error()
	for _, pkg := range []string{"log: ", "projector: "} {
		msg = strings.TrimPrefix(strings.ReplaceAll(msg, ": "+pkg, ": "), pkg)
	}
	return msg
}
