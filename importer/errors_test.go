package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/claude"
)

// An import that fails twice (cancelled, and its checkpoints cannot be
// saved) says both on one line: tape prints an error's newline as \x0a.
func TestImportErrorsOnOneLine(t *testing.T) {
	t.Parallel()
	b := newBench(t)
	for i := range 3 {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		b.write("p/"+id+".jsonl", fmt.Appendf(nil, `{"type":"user","uuid":"u%d","sessionId":"%s","timestamp":"2025-11-03T14:05:00Z","message":{"role":"user","content":"hi"}}`+"\n", i, id))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	im := New(b.ws, claude.Source{})
	im.Progress = func(done, _ int) {
		if done == 1 {
			cancel()
			// A folder where the checkpoints go: saving them fails.
			if err := os.MkdirAll(b.ws.Abs("import/claude.checkpoints/x"), 0o700); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := im.Import(ctx, []string{b.src})
	if err == nil {
		t.Fatal("the import did not fail")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") || !strings.Contains(msg, "context canceled; ") || !strings.Contains(msg, "save the import checkpoints") {
		t.Fatalf("error %q; want both failures on one line", msg)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %q is not context.Canceled", msg)
	}
}
