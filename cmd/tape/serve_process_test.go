package main

import (
	"bufio"
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `tape serve` as a real process: it prints its URL, serves the pages,
// streams what another process appends, asks for a token beyond
// loopback, and stops cleanly on SIGTERM.

// startServe starts `tape serve args...` in dir and returns the URL it
// printed; the process is stopped (SIGTERM) when the test ends, and must
// exit 0.
func startServe(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := tapeProcess(dir, append([]string{"serve"}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
		io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("tape serve exited with %v after SIGTERM; stderr: %s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("tape serve did not stop within 10 s of SIGTERM")
		}
	})
	select {
	case u := <-lines:
		if !strings.HasPrefix(u, "http://") {
			t.Fatalf("tape serve printed %q, want its URL; stderr: %s", u, stderr.String())
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("tape serve printed no URL in 30 s; stderr: %s", stderr.String())
	}
	return ""
}

func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestServeProcessStreamsAppends(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := runTape(t, dir, "init"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := runTape(t, dir, "append", "--kind", "message", `{"role":"user","content":"第一条 the first"}`); code != 0 {
		t.Fatal(stderr)
	}
	base := startServe(t, dir, "--addr", "127.0.0.1:0")
	code, page := httpGet(t, base+"t/main")
	if code != http.StatusOK || !strings.Contains(page, "第一条 the first") {
		t.Fatalf("GET /t/main: %d\n%s", code, page)
	}
	m := regexp.MustCompile(`data-live="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the tape's page is not live:\n%s", page)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+html.UnescapeString(m[1]), nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// Another process appends, as an agent does.
	writer := tapeProcess(dir, "append", "--kind", "message", `{"role":"assistant","content":"written by another process"}`)
	if out, err := writer.CombinedOutput(); err != nil {
		t.Fatalf("tape append: %v: %s", err, out)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "written by another process") {
			return
		}
	}
	t.Fatalf("the live stream ended without the appended entry: %v", sc.Err())
}

func TestServeProcessBeyondLoopbackNeedsItsToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := runTape(t, dir, "init"); code != 0 {
		t.Fatal(stderr)
	}
	printed := startServe(t, dir, "--addr", "0.0.0.0:0")
	u, err := url.Parse(printed)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Query().Get("token")
	if len(token) < 32 {
		t.Fatalf("tape serve on 0.0.0.0 printed %s, want a URL with a token", printed)
	}
	local := "http://127.0.0.1:" + u.Port() + "/"
	if code, _ := httpGet(t, local); code != http.StatusUnauthorized {
		t.Errorf("GET / without the token: %d, want 401", code)
	}
	// A browser: the URL with the token sets a cookie, and the page
	// without it in its URL follows.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	res, err := browser.Get(local + "?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.RawQuery != "" {
		t.Errorf("GET / with the token: %d at %s, want 200 at the page without it", res.StatusCode, res.Request.URL)
	}
	// A script: the token as a bearer.
	req, _ := http.NewRequest(http.MethodGet, local+"calls", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("GET /calls with a bearer token: %v, %v", res, err)
	} else {
		res.Body.Close()
	}
}

func TestServeBadAddress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := runTape(t, dir, "init"); code != 0 {
		t.Fatal(stderr)
	}
	cmd := tapeProcess(dir, "serve", "--addr", "nonsense")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || !strings.Contains(string(out), "listen on nonsense") {
		t.Fatalf("tape serve --addr nonsense: %v\n%s", err, out)
	}
}
