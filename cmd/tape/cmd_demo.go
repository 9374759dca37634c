package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	tapelog "github.com/tape-dev/tape/log"
)

// DemoCmd is `tape demo`.
type DemoCmd struct {
	Dir string `arg:"" optional:"" type:"path" help:"An empty or new folder for the sample workspace (default: a new temporary folder)."`
}

func (c *DemoCmd) Help() string {
	return `Builds a sample workspace the way an agent session would (messages in English
and Chinese, a tool call and its result, a run event, a handoff, and a line
appended with a plain shell-style >>), then prints its anchors and its log,
and searches it in English and in Chinese, then shows its tool calls and token usage.
Nothing outside the new folder is touched.

Example:
  tape demo && tape demo ./sample`
}

// demoSession is the sample session, in the order the demo writes it.
var demoSession = []struct {
	kind, payload string
}{
	{"system", `{"content":"You are a careful coding agent."}`},
	{"message", `{"role":"user","content":"The tests in ./store fail with a timeout. Can you look?"}`},
	{"tool_call", `{"calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"go test ./store\"}"}}]}`},
	{"tool_result", `{"results":["--- FAIL: TestFlush (10.00s)\n    store_test.go:42: timeout waiting for flush"]}`},
	{"message", `{"role":"assistant","content":"TestFlush waits on a channel nobody closes. I will fix Close()."}`},
	{"event", `{"name":"run","data":{"status":"ok","model":"gpt-4.1","usage":{"input_tokens":1830,"output_tokens":212,"total_tokens":2042}}}`},
}

func (c *DemoCmd) Run(env *Env) error {
	env.noWatcher = true // a read after the demo starts one, from the binary that runs it
	dir, err := c.folder()
	if err != nil {
		return err
	}
	ws, _, err := tapelog.Init(dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	t, err := ws.Tape(ws.Config().DefaultTape)
	if err != nil {
		return err
	}
	ctx := env.Context()
	for _, e := range demoSession {
		if _, err := t.Append(ctx, tapelog.Entry{Kind: e.kind, Payload: json.RawMessage(e.payload)}); err != nil {
			return err
		}
	}
	if _, err := t.Handoff(ctx, "review", json.RawMessage(`{"summary":"Close() now closes done; TestFlush passes","next":"review the diff"}`)); err != nil {
		return err
	}
	if _, err := t.Append(ctx, tapelog.Entry{Kind: "message", Payload: json.RawMessage(`{"role":"user","content":"请检查一下这个修改有没有问题。"}`)}); err != nil {
		return err
	}
	// An agent without tape appends a bare chat message with a plain >>.
	anchors, err := t.Anchors()
	if err != nil {
		return err
	}
	last := anchors[len(anchors)-1]
	file := filepath.Join(ws.Dir(), "tapes", t.Name(), "anchors", last.Folder, tapelog.MessagesFile)
	if err := appendRaw(file, `{"role":"assistant","content":"修改没有问题：Close() 现在会关闭 done 通道。"}`+"\n"); err != nil {
		return err
	}

	w := env.Stdout
	fmt.Fprintf(w, "Sample workspace: %s\n\n$ tape anchors\n", ws.Dir())
	g := &Globals{TapeDir: ws.Dir()}
	if err := (&AnchorsCmd{}).Run(env, g); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n$ tape log --all\n")
	if err := (&LogCmd{All: true}).Run(env, g); err != nil {
		return err
	}
	for _, q := range []string{"timeout", "修改"} {
		fmt.Fprintf(w, "\n$ tape search %s\n", q)
		if err := (&SearchCmd{Query: []string{q}, Limit: 20}).Run(env, g); err != nil {
			return err
		}
	}
	// The views: projections of the same entries.
	fmt.Fprintf(w, "\n$ tape calls\n")
	if err := (&CallsCmd{pageFlags: pageFlags{Limit: 20}}).Run(env, g); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n$ tape usage --by model\n")
	if err := (&UsageCmd{By: "model", pageFlags: pageFlags{Limit: 20}}).Run(env, g); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe files are the tape, and .tape/index.db an index of them; try:\n  ls -R %s\n  cat %s\n  TAPE_DIR=%s tape log --all --json\n",
		filepath.Join(ws.Dir(), "tapes"), file, ws.Dir())
	return nil
}

// folder is the demo's folder: the one given, which must be empty or new,
// or a new temporary one.
func (c *DemoCmd) folder() (string, error) {
	if c.Dir == "" {
		dir, err := os.MkdirTemp("", "tape-demo-")
		if err != nil {
			return "", fmt.Errorf("demo: %w", err)
		}
		return dir, nil
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	if entries, err := os.ReadDir(c.Dir); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	} else if len(entries) > 0 {
		return "", usagef("demo: %s is not empty; give an empty or new folder", c.Dir)
	}
	return c.Dir, nil
}

// appendRaw appends text to a file as a shell's >> does: no lock, no checks.
func appendRaw(file, text string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("demo: %w", err)
	}
	return f.Close()
}
