package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tape-dev/tape/importer/claude"
	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/poll"
)

// runFollower runs f on Claude Code's transcripts in a new folder, until
// the test ends, into a new workspace; it returns the workspace and the
// folder of a project to write transcripts into.
func runFollower(tb testing.TB, f *Follower) (*tapelog.Workspace, string) {
	tb.Helper()
	root := tb.TempDir()
	f.WS = newWorkspace(tb, root)
	f.Dirs = map[source.Source][]string{claude.Source{}: {filepath.Join(root, "projects")}}
	projects := filepath.Join(root, "projects", "p")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	return f.WS, projects
}

// A turn held at the end of a transcript is imported once the file has
// been quiet for the settle time, though other transcripts keep being
// written meanwhile (their events must not put its import off).
func TestFollowerSettlesWhileOthersWrite(t *testing.T) {
	t.Parallel()
	ws, projects := runFollower(t, &Follower{Settle: 300 * time.Millisecond, Warn: func(err error) { t.Errorf("follower: %v", err) }})
	const held = "11112222-3333-4444-5555-666677778888"
	turn := `{"type":"assistant","uuid":"t1","sessionId":"` + held + `","timestamp":"2025-11-03T14:05:00.000Z","requestId":"r","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}],"usage":{"input_tokens":1,"output_tokens":2}}}` + "\n"
	if err := os.WriteFile(filepath.Join(projects, held+".jsonl"), []byte(turn), 0o600); err != nil {
		t.Fatal(err)
	}
	// Another session writes every 100 ms, as a subagent does while its
	// parent's Task call waits.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		other := filepath.Join(projects, "99990000-0000-4000-8000-000000000001.jsonl")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			line := fmt.Sprintf(`{"type":"user","uuid":"o%d","sessionId":"99990000-0000-4000-8000-000000000001","message":{"role":"user","content":"tick"}}`+"\n", i)
			fh, err := os.OpenFile(other, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err == nil {
				fh.WriteString(line)
				fh.Close()
			}
		}
	}()
	calls := ws.Abs("tapes/claude-11112222/anchors/001_session-start/tool_calls.jsonl")
	poll.Until(t, 10*time.Second, "the held turn's import while another transcript was written", func() bool {
		data, _ := os.ReadFile(calls)
		return len(data) > 0
	})
}

// A followed folder that is a symbolic link (~/.claude/projects linked
// elsewhere) is watched through the link: a transcript written after the
// first import is mirrored at once, as it is in a folder, not at the next
// reconcile.
func TestFollowerFollowsALinkedFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	real := filepath.Join(root, "elsewhere")
	if err := os.MkdirAll(filepath.Join(real, "p"), 0o700); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(root, "projects")
	if err := os.Symlink(real, linked); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, root)
	write := func(id, text string) string {
		line := `{"type":"user","uuid":"u-` + id + `","sessionId":"` + id + `","timestamp":"2025-11-03T14:05:00.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
		if err := os.WriteFile(filepath.Join(real, "p", id+".jsonl"), []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		return ws.Abs("tapes/claude-" + id[:8] + "/anchors/001_session-start/messages.jsonl")
	}
	first := write("12340000-0000-4000-8000-000000000001", "before")
	f := &Follower{WS: ws, Dirs: map[source.Source][]string{claude.Source{}: {linked}}, Reconcile: time.Hour,
		Warn: func(err error) { t.Errorf("follower: %v", err) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	mirrored := func(path string) func() bool {
		return func() bool { data, _ := os.ReadFile(path); return len(data) > 0 }
	}
	poll.Until(t, 10*time.Second, "the first import through the link", mirrored(first))
	poll.Until(t, 10*time.Second, "a transcript written after it, seen by the watch", mirrored(write("56780000-0000-4000-8000-000000000002", "after")))
}
