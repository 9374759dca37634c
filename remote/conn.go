package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvURL is the environment variable that names the server when the
// command line does not.
const EnvURL = "TAPE_PG_URL"

// ErrNoURL is returned by ResolveURL when nothing names a server.
var ErrNoURL = errors.New("remote: no PostgreSQL server named")

// ResolveURL picks the server's URL: the one given (the command line),
// else $TAPE_PG_URL, else config.json's pg_url. Credentials come only
// from the URL, the PG* environment variables pgx reads (PGPASSWORD
// among them) or a .pgpass file; TLS settings pass through the URL
// (sslmode, sslrootcert, ...), as libpq reads them.
func ResolveURL(given, env, config string) (string, error) {
	for _, u := range []string{given, env, config} {
		if u != "" {
			return u, nil
		}
	}
	return "", fmt.Errorf("%w: give postgres://USER@HOST/DB, or set %s, or pg_url in .tape/config.json", ErrNoURL, EnvURL)
}

// IsURL reports whether s is a PostgreSQL URL (postgres:// or
// postgresql://), as a command line tells one from a query.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact is a URL with its passwords replaced by "xxxxx" (the user's,
// and password= or sslpassword= in its query), for messages: a URL is
// never printed with a password. A string that does not parse as a URL
// with a host is shown as its scheme alone, or as "…".
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if scheme, _, found := strings.Cut(raw, "://"); found && len(scheme) <= 20 && !strings.ContainsAny(scheme, " =@:/") {
			return scheme + "://…"
		}
		return "…"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	changed := false
	for _, key := range []string{"password", "sslpassword"} {
		if q.Has(key) {
			q.Set(key, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// connectTimeout bounds a connection attempt unless the URL sets
// connect_timeout: a server that does not answer is an error in seconds,
// not a hang.
const connectTimeout = 10 * time.Second

// Connect opens a connection to the server at rawURL. Its errors name
// the server by its redacted URL and say what to check.
func Connect(ctx context.Context, rawURL string) (*pgx.Conn, error) {
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("connect: %s is not a PostgreSQL URL; want postgres://USER@HOST[:PORT]/DB", Redact(rawURL))
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %v", Redact(rawURL), scrub(err, rawURL))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "tape"
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, &ServerError{URL: Redact(rawURL), Op: "connect", Err: scrub(err, rawURL)}
	}
	return conn, nil
}

// ServerError is an error talking to the server: what was being done,
// at which server (its URL redacted), and why.
type ServerError struct {
	URL string
	Op  string
	Err error
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Op, e.URL, e.Err)
}

func (e *ServerError) Unwrap() error { return e.Err }

// Gone reports whether err says the server went away or could not be
// reached, rather than refused what was asked: a sync stopped by it
// resumes where it was when run again.
func Gone(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err) || isNetError(err)
}

// FromServer reports whether err came from the server, or from talking
// to it: a statement it refused, or a connection lost.
func FromServer(err error) bool {
	var pgErr *pgconn.PgError
	var se *ServerError
	return errors.As(err, &pgErr) || errors.As(err, &se) || Gone(err)
}

func isNetError(err error) bool {
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "broken pipe") ||
		strings.Contains(s, "connection reset") || strings.Contains(s, "unexpected EOF") || strings.Contains(s, "conn closed")
}

// scrub removes the URL's password from an error's text, should a
// driver's message quote it.
func scrub(err error, rawURL string) error {
	if err == nil {
		return nil
	}
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return err
	}
	pw, has := u.User.Password()
	if !has || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return scrubbed{err: err, text: strings.ReplaceAll(err.Error(), pw, "xxxxx")}
}

type scrubbed struct {
	err  error
	text string
}

func (s scrubbed) Error() string { return s.text }
func (s scrubbed) Unwrap() error { return s.err }
