package tapetest

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// NewWorkspace makes a workspace with its tape main in a new temporary
// folder, closed when the test ends.
func NewWorkspace(t testing.TB) *tapelog.Workspace {
	t.Helper()
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// AppendRaw appends text to the file at path, as a writer without tape
// does: no lock, no check, the file made if it is not there.
func AppendRaw(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// AppendMessages appends one user message of each content to a tape, in
// one batch.
func AppendMessages(t testing.TB, ws *tapelog.Workspace, tape string, contents ...string) []tapelog.Entry {
	t.Helper()
	tp, err := ws.Tape(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	batch := make([]tapelog.Entry, 0, len(contents))
	for _, c := range contents {
		p, _ := json.Marshal(map[string]string{"role": "user", "content": c})
		batch = append(batch, tapelog.Entry{Kind: tapelog.KindMessage, Payload: p})
	}
	out, err := tp.Append(context.Background(), batch...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
