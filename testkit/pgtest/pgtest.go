// Package pgtest starts throwaway PostgreSQL servers for tests and
// benchmarks: the binaries of the machine's postgresql package (Debian's,
// which .ci/run installs when missing), initdb into a temporary folder,
// and pg_ctl on a free loopback port. Run as root, the server runs as the
// unprivileged user nobody, as PostgreSQL requires. Nothing is mocked:
// the tests of package remote talk to a real server.
//
// A server accepts password logins only (scram-sha-256) on 127.0.0.1; its
// superuser, tape, has a random password that URL carries.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Server is a PostgreSQL server of a test's own.
type Server struct {
	Dir      string // holds data/, the cluster, and server.log
	Port     int
	Password string // the superuser's
	bin      string // the folder of initdb, pg_ctl and postgres
	cred     *syscall.Credential
	durable  bool
}

// Options change how Start makes a server.
type Options struct {
	// Durable keeps PostgreSQL's fsyncs, for benchmarks that measure what
	// a real server costs. Tests run without them, as a crash of the
	// machine is not what they test.
	Durable bool
}

// Bin finds the folder of the PostgreSQL server binaries: the one of
// pg_ctl on PATH, else the newest /usr/lib/postgresql/<version>/bin.
func Bin() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("pgtest: no PostgreSQL server found (pg_ctl on PATH or /usr/lib/postgresql/*/bin); install it: apt-get install postgresql, or run .ci/run")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start makes a new cluster in a new temporary folder and starts a server
// on it. Stop it with Stop, which also removes the folder.
func Start(ctx context.Context, opts Options) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tape-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{Dir: dir, bin: bin, durable: opts.Durable, Password: randomHex(12)}
	if err := s.init(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var lastErr error
	for range 5 { // a free port can be taken between finding and binding it
		if s.Port, err = freePort(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if lastErr = s.Restart(ctx); lastErr == nil {
			return s, nil
		}
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

// init runs initdb, as nobody when the process is root.
func (s *Server) init(ctx context.Context) error {
	data := filepath.Join(s.Dir, "data")
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if os.Geteuid() == 0 {
		cred, err := nobody()
		if err != nil {
			return err
		}
		s.cred = cred
		for _, p := range []string{s.Dir, pwfile} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return fmt.Errorf("pgtest: %w", err)
			}
		}
	}
	out, err := s.command(ctx, "initdb", "-D", data, "-U", "tape", "--pwfile", pwfile, "-E", "UTF8", "--no-locale",
		"--auth-local", "scram-sha-256", "--auth-host", "scram-sha-256", "--no-sync").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	return nil
}

// Restart starts the server, again after Stop(false) or Kill.
func (s *Server) Restart(ctx context.Context) error {
	settings := []string{
		"listen_addresses=127.0.0.1",
		"port=" + strconv.Itoa(s.Port),
		"unix_socket_directories=",
		"max_connections=60",
	}
	if !s.durable {
		settings = append(settings, "fsync=off", "synchronous_commit=off", "full_page_writes=off")
	}
	var opts strings.Builder
	for _, kv := range settings {
		fmt.Fprintf(&opts, " -c %s", kv)
	}
	out, err := s.command(ctx, "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-l", filepath.Join(s.Dir, "server.log"),
		"-o", opts.String(), "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
		return fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, tail(log, 2000))
	}
	return nil
}

// Kill stops the server at once, as a crash would (pg_ctl stop -m
// immediate): its clients' connections break mid-statement. Restart
// brings it back.
func (s *Server) Kill(ctx context.Context) error { return s.stop(ctx, "immediate") }

// Stop stops the server and removes its folder.
func (s *Server) Stop() error {
	err := s.stop(context.Background(), "fast")
	if rmErr := os.RemoveAll(s.Dir); err == nil {
		err = rmErr
	}
	return err
}

func (s *Server) stop(ctx context.Context, mode string) error {
	out, err := s.command(ctx, "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", mode, "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// URL is the URL of the database db on the server, as its superuser.
func (s *Server) URL(db string) string {
	return s.URLAs("tape", s.Password, db)
}

// URLAs is the URL of the database db as the role user with password.
func (s *Server) URLAs(user, password, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// Psql runs SQL in the database db as the superuser, with psql, and
// returns what it printed (unaligned, tuples only).
func (s *Server) Psql(ctx context.Context, db, sql string) (string, error) {
	psql := filepath.Join(s.bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		psql = "psql"
	}
	cmd := exec.CommandContext(ctx, psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "tape", "-d", db, "-c", sql)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+s.Password, "PGSSLMODE=disable")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("pgtest: psql: %w\n%s", err, out)
	}
	return string(out), nil
}

// CreateDB creates a new empty database and returns its name.
func (s *Server) CreateDB(ctx context.Context, prefix string) (string, error) {
	name := prefix + "_" + randomHex(6)
	if _, err := s.Psql(ctx, "postgres", "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return name, nil
}

func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

// nobody is the credential of the user nobody, which initdb and postgres
// run as when the tests run as root.
func nobody() (*syscall.Credential, error) {
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, and no user nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// WaitGone polls until nothing accepts connections on the server's port,
// or the deadline passes.
func (s *Server) WaitGone(ctx context.Context, deadline time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)), 100*time.Millisecond)
		if err != nil {
			return nil
		}
		c.Close()
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgtest: the server on port %d still answers", s.Port)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
