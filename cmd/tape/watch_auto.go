package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// Starting a watcher on demand (config.json's "watch": "auto").
//
// A read command that finds no watcher running catches up itself, which
// stats every file of the workspace: 227 ms at 5,000 tapes, and it grows
// with every session kept. So it also starts `tape watch --background`, as
// git starts its fsmonitor daemon, and the reads after it sync with that
// watcher through a barrier (fresh/sync.go) in about a millisecond.
// The watcher is an ordinary `tape watch`: one per workspace (watch.lock),
// it takes no lock a writer waits on, it exits once no read has asked it
// anything for watchIdle, when the workspace is removed, and when its
// binary is replaced. Decision 0056.

// watchIdle is how long a watcher started on demand waits for a read
// before it exits.
const watchIdle = 30 * time.Minute

// watchLog is where a background watcher writes its errors, and where the
// CLI notes each start.
const watchLog = "watch.log"

// startEvery is how long after a start no other is tried: commands run at
// once do not start one watcher each (all but one would exit at once),
// and a watcher that cannot start is not retried by every command.
const startEvery = 5 * time.Second

// maxWatchLog is the size past which the log is started anew.
const maxWatchLog = 1 << 20

// watchMode is whether read commands start a watcher: TAPE_WATCH, else
// config.json's "watch".
func watchMode(ws *tapelog.Workspace) (tapelog.Watch, error) {
	if v, ok := os.LookupEnv("TAPE_WATCH"); ok {
		w, err := tapelog.ParseWatch(v)
		if err != nil {
			return tapelog.WatchOff, fmt.Errorf("TAPE_WATCH: %w", err)
		}
		return w, nil
	}
	return ws.Config().Watch, nil
}

// watchStarter returns what starts a background watcher on ws, or nil if
// none is to be started. It runs on every read: what costs a system call
// (the file system's kind) is asked only when no watcher runs.
func watchStarter(env *Env, ws *tapelog.Workspace) func() {
	if env.noWatcher {
		return nil
	}
	mode, err := watchMode(ws)
	if err != nil {
		fmt.Fprintf(env.Stderr, "tape: warning: %v; not starting a watcher\n", err)
		return nil
	}
	if mode != tapelog.WatchAuto {
		return nil
	}
	return func() {
		if remoteFileSystem(ws.Dir()) != "" {
			return // inotify would not see other machines' writes (decision 0056)
		}
		if err := startWatcher(ws); err != nil {
			fmt.Fprintf(env.Stderr, "tape: warning: start a watcher: %v\n", err)
		}
	}
}

// startWatcher starts `tape watch --background` on ws, detached from this
// process and its terminal, unless one was started less than startEvery
// ago. It does not wait for the watcher.
func startWatcher(ws *tapelog.Workspace) error {
	if fi, err := os.Stat(ws.Abs(watchLog)); err == nil && time.Since(fi.ModTime()) < startEvery {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := openWatchLog(ws)
	if err != nil {
		return err
	}
	defer log.Close()
	// The note also marks the time of this start (the log's mtime).
	fmt.Fprintf(log, "%s started by pid %d\n", time.Now().UTC().Format(time.RFC3339), os.Getpid())
	cmd := exec.Command(exe, "--tape-dir", ws.Dir(), "watch", "--background")
	cmd.Dir = ws.Dir()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal: Ctrl-C and hangups are not its
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s watch: %w", exe, err)
	}
	return cmd.Process.Release()
}

// openWatchLog opens the watcher's log for appending, started anew once it
// is large.
func openWatchLog(ws *tapelog.Workspace) (*os.File, error) {
	f, err := ws.OpenPrivate(watchLog)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > maxWatchLog {
		f.Truncate(0) //nolint:errcheck // a log too long is no harm
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", watchLog, err)
	}
	return f, nil
}

// binaryStamp identifies the running binary's file, so that a watcher can
// tell when it was replaced (an upgrade, a rebuild).
type binaryStamp struct {
	path string
	fi   os.FileInfo
}

func stampBinary() binaryStamp {
	path, err := os.Executable()
	if err != nil {
		return binaryStamp{}
	}
	fi, _ := os.Stat(path)
	return binaryStamp{path: path, fi: fi}
}

// replaced reports whether the binary's file is no longer the one that
// was stamped.
func (b binaryStamp) replaced() bool {
	if b.fi == nil {
		return false
	}
	fi, err := os.Stat(b.path)
	return err != nil || !os.SameFile(fi, b.fi) || !fi.ModTime().Equal(b.fi.ModTime()) || fi.Size() != b.fi.Size()
}
