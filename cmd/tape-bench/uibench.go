package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"github.com/tape-dev/tape/testkit/pty"
)

// uiBench times tape ui from its start to its first screen of sessions,
// as a person starts it: the real binary on a pseudo-terminal of 200×50,
// its output read until the list says how many sessions it shows; then q.
// Beside it, in the same rounds, taking turns: tape version (the cost of
// a process) and tape tapes -n 50 (a page of the list, printed).
func uiBench(args []string) error {
	fs := flags("ui")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 20, "starts of each")
	fs.Parse(args)
	if err := prepare(dir, bin); err != nil {
		return err
	}
	var ui, version, tapes []time.Duration
	for run := range *runs {
		steps := []func() error{
			func() error { d, err := firstScreen(*dir, *bin); ui = append(ui, d); return err },
			func() error { d, err := timeCmd(*dir, *bin, "version"); version = append(version, d); return err },
			func() error { d, err := timeCmd(*dir, *bin, "tapes", "-n", "50"); tapes = append(tapes, d); return err },
		}
		for i := range steps {
			if err := steps[(i+run)%len(steps)](); err != nil {
				return err
			}
		}
	}
	fmt.Printf("tape ui, start to the first screen of sessions (200x50): p50 %.1f ms, p95 %.1f ms; tape version p50 %.1f ms; tape tapes -n 50 p50 %.1f ms (%d runs)\n",
		ms(pct(ui, 50)), ms(pct(ui, 95)), ms(pct(version, 50)), ms(pct(tapes, 50)), *runs)
	return nil
}

// sessionsShown is the list's header once it has read the sessions.
var sessionsShown = regexp.MustCompile(`[1-9][0-9]* of [0-9]+ sessions`)

// firstScreen starts tape ui on a new pseudo-terminal and returns the time
// until its screen shows the sessions, then quits it.
func firstScreen(dir, bin string) (time.Duration, error) {
	master, slave, err := pty.Open(200, 50)
	if err != nil {
		return 0, err
	}
	defer master.Close()
	cmd := exec.Command(bin, "ui")
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, slave, slave, slave
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true, Setctty: true}
	var mu sync.Mutex
	var out bytes.Buffer
	seen := make(chan struct{})
	start := time.Now()
	if err := cmd.Start(); err != nil {
		slave.Close()
		return 0, err
	}
	slave.Close()
	go func() {
		buf := make([]byte, 64<<10)
		once := sync.Once{}
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if sessionsShown.MatchString(ansi.Strip(out.String())) {
				once.Do(func() { close(seen) })
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		mu.Lock()
		defer mu.Unlock()
		return 0, fmt.Errorf("tape ui showed no sessions in 30 s:\n%q", ansi.Strip(out.String()))
	}
	d := time.Since(start)
	master.Write([]byte("q"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return d, err
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		return d, fmt.Errorf("tape ui did not quit on q")
	}
}
