package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRuneWidth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    rune
		want int
	}{
		{'a', 1}, {'…', 1}, {'é', 1},
		{'中', 2}, {'，', 2}, {'あ', 2}, {'한', 2}, {'Ａ', 2}, {'😀', 2},
		{'\u0301', 0}, {'\u200d', 0}, {'\ufe0f', 0},
	} {
		if got := runeWidth(tc.r); got != tc.want {
			t.Errorf("runeWidth(%q) = %d, want %d", tc.r, got, tc.want)
		}
	}
}

// A table fits its limit by cutting the columns that give way, most
// giving first, and by leaving out those that may go when that is not
// enough; a wide character is never cut in half.
func TestTableFit(t *testing.T) {
	t.Parallel()
	newTable := func() *table {
		tab := &table{header: true, columns: []column{{title: "NAME"}, {title: "WHEN", drop: 1}, {title: "CWD", give: 1, min: 8, head: true},
			{title: "TITLE", give: 2, min: 10}}}
		tab.add(text("claude-0123abcd"), text("2026-11-20 09:00"), text("/home/li/webapp/services"), text("修复登录页的错误，然后跑测试"))
		tab.add(text("a"), text("-"), text("/"), text("short"))
		return tab
	}
	for _, tc := range []struct {
		limit int
		want  string
	}{
		{0, "" +
			"NAME             WHEN              CWD                       TITLE\n" +
			"claude-0123abcd  2026-11-20 09:00  /home/li/webapp/services  修复登录页的错误，然后跑测试\n" +
			"a                -                 /                         short\n"},
		{80, "" +
			"NAME             WHEN              CWD                       TITLE\n" +
			"claude-0123abcd  2026-11-20 09:00  /home/li/webapp/services  修复登录页的错误，…\n" + // 19 columns
			"a                -                 /                         short\n"},
		{60, "" + // the title down to its least, then the folder
			"NAME             WHEN              CWD            TITLE\n" +
			"claude-0123abcd  2026-11-20 09:00  …app/services  修复登录…\n" + // 9 columns: a 5th character would make 11
			"a                -                 /              short\n"},
		{40, "" + // cut to their least, they would not fit with WHEN
			"NAME             CWD          TITLE\n" +
			"claude-0123abcd  …p/services  修复登录…\n" +
			"a                /            short\n"},
		{10, "" + // too narrow for any table: below their least, to 8, and the names stay whole
			"NAME             CWD       TITLE\n" +
			"claude-0123abcd  …ervices  修复登…\n" +
			"a                /         short\n"},
	} {
		var out bytes.Buffer
		if err := newTable().write(&out, tc.limit, palette{}); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("limit %d:\n%s\nwant\n%s", tc.limit, out.String(), tc.want)
		}
		for line := range strings.Lines(out.String()) {
			if w := displayWidth(strings.TrimSuffix(line, "\n")); tc.limit >= 40 && w > tc.limit {
				t.Errorf("limit %d: %q is %d columns wide", tc.limit, line, w)
			}
		}
	}
}

// On a terminal, the tables fit its width, in the columns a terminal
// gives each character, colors and all; the names stay whole.
func TestTablesFitTheTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "")
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	dir := newCLIWorkspace(t)
	tape := "claude-0123abcd"
	mustRun(t, dir, "--tape", tape, "append", "-k", "message", "--meta", `{"cwd":"/home/someone/projects/a-rather-long-project-name/services/api"}`,
		`{"role":"user","content":"请把登录页的错误修好，然后把所有的测试都跑一遍，最后告诉我哪些测试失败了以及为什么失败，还有修复的计划是什么"}`)
	mustRun(t, dir, "--tape", tape, "append", "-k", "tool_call", `{"calls":[{"id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","function":{"name":"bash","arguments":"{\"cmd\":\"go test ./... 2>&1 | tee /tmp/test-output-of-the-whole-repository.txt\"}"}}]}`)
	mustRun(t, dir, "--tape", tape, "handoff", "review the failing tests of the login page, then fix the flaky ones", "--state", `{"plan":"修复登录页的错误，然后跑测试，然后再修复那些不稳定的测试"}`)
	const columns = 100
	sgr := regexp.MustCompile("\x1b\\[[0-9;]*m")
	for _, tc := range []struct {
		args         []string
		names, color bool // the table shows tape names, and colors
	}{
		{[]string{"tapes"}, true, false}, {[]string{"calls", "--all-tapes"}, true, true}, {[]string{"--tape", tape, "calls"}, false, true},
		{[]string{"search", "--all-tapes", "测试"}, true, true}, {[]string{"--tape", tape, "anchors"}, false, false},
	} {
		args := tc.args
		master, slave := openPTY(t)
		if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: columns}); err != nil {
			t.Fatal(err)
		}
		read := make(chan string)
		go func() {
			b, _ := io.ReadAll(master) // until the slave is closed: EIO
			read <- string(b)
		}()
		var stderr bytes.Buffer
		code := run(context.Background(), append([]string{"--color=auto"}, args...), &Env{Stdin: strings.NewReader(""), Stdout: slave, Stderr: &stderr, Dir: dir})
		slave.Close()
		out := <-read
		if code != 0 {
			t.Fatalf("tape %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		if tc.color && !strings.Contains(out, "\x1b[") {
			t.Errorf("tape %s on a terminal: no color", strings.Join(args, " "))
		}
		plain := strings.ReplaceAll(sgr.ReplaceAllString(out, ""), "\r\n", "\n")
		if (tc.names && !strings.Contains(plain, tape+" ")) || !strings.Contains(plain, "…") {
			t.Errorf("tape %s: want %s whole and something cut:\n%s", strings.Join(args, " "), tape, plain)
		}
		for line := range strings.Lines(plain) {
			if w := displayWidth(strings.TrimSuffix(line, "\n")); w > columns {
				t.Errorf("tape %s: a line %d columns wide on a terminal of %d:\n%s", strings.Join(args, " "), w, columns, line)
			}
		}
	}
}
