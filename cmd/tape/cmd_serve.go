package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/tape-dev/tape/web"
)

// ServeCmd is `tape serve`.
type ServeCmd struct {
	Addr   string `default:"127.0.0.1:7070" placeholder:"HOST:PORT" help:"Where to listen. Loopback needs no token; any other address does (one is made up when --token is not given). Port 0 picks a free one."`
	Open   bool   `help:"Open the page in the browser."`
	Token  string `env:"TAPE_SERVE_TOKEN" placeholder:"TOKEN" help:"Ask every request for this token (?token=, then a cookie). Needed to listen beyond loopback."`
	Redact bool   `help:"Show secrets as [REDACTED:<kind>] on loopback too (beyond loopback they always are)."`
}

func (c *ServeCmd) Help() string {
	return `Serves this workspace (or --tape-dir's) as a web page, read-only: the sessions,
each tape's anchors and entries as a chat with tool calls folded with their
results, search, tool calls and token usage. A tape's page shows new entries
as agents write them. Every URL names what it shows (/t/<tape>,
/t/<tape>/a/<folder>, /t/<tape>/e/<entry id>), so links can be shared.

It listens on 127.0.0.1:7070 unless told otherwise, and prints the page's URL
on stdout. Beyond loopback every request needs a token: give one with --token,
or tape makes one up and prints the URL that carries it. Beyond loopback,
secrets (as tape secrets finds them) are shown as [REDACTED:<kind>] on every
page; on loopback too with --redact.

Examples:
  tape serve --open
  tape serve --addr 127.0.0.1:0                # a free port
  tape serve --addr 0.0.0.0:7070               # the network; prints a URL with its token`
}

func (c *ServeCmd) Run(env *Env, g *Globals) error {
	ws, err := g.workspace(env)
	if err != nil {
		return err
	}
	defer ws.Close()
	token := c.Token
	if token == "" && !web.IsLoopback(c.Addr) {
		if token, err = newToken(); err != nil {
			return err
		}
	}
	info, _ := debug.ReadBuildInfo()
	opts := web.Options{Token: token, Reading: reading(env, ws), Version: versionOf(info).Version, Prices: loadPrices(env),
		Log: slog.New(slog.NewTextHandler(env.Stderr, nil))}
	if opts.Redactor, err = newRedactor(c.Redact || !web.IsLoopback(c.Addr)); err != nil {
		return err
	}
	srv, err := web.New(ws, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return usagef("listen on %s: %v; --addr 127.0.0.1:0 picks a free port", c.Addr, err)
	}
	url := pageURL(ln.Addr(), token)
	fmt.Fprintln(env.Stdout, url)
	fmt.Fprintf(env.Stderr, "tape: serving %s, read-only; Ctrl-C stops\n", ws.Dir())
	if c.Open {
		openBrowser(env, url)
	}
	return serveUntilDone(env.Context(), ln, srv.HTTPServer(env.Context()))
}

// serveUntilDone serves hs on ln until ctx is done, then lets the
// requests under way end (a live page's stream ends with ctx, which is
// hs's base context).
func serveUntilDone(ctx context.Context, ln net.Listener, hs *http.Server) error {
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		return fmt.Errorf("stop serving: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newToken is a token no one guesses: 128 random bits.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// pageURL is the URL a person opens: on a wildcard address, by this
// machine's name; with the token when there is one.
func pageURL(addr net.Addr, token string) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			host = name
		}
	}
	url := "http://" + net.JoinHostPort(host, port) + "/"
	if token != "" {
		url += "?token=" + token
	}
	return url
}

// openBrowser opens url in the desktop's browser, and says so if it cannot.
func openBrowser(env *Env, url string) {
	name, args := "xdg-open", []string{url}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	if err := exec.Command(name, args...).Start(); err != nil {
		fmt.Fprintf(env.Stderr, "tape: warning: could not open a browser (%v); open %s\n", err, url)
	}
}
