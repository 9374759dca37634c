package bub

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// Import copies a Bub file's entries, reports the lines it cannot import,
// imports nothing twice, and refuses a tape that holds other entries.
func TestImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	ws, _, err := tapelog.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	file := filepath.Join(dir, "s.jsonl")
	data := `{"id": 1, "kind": "anchor", "payload": {"name": "session/start", "state": {}}, "meta": {}, "date": "2025-06-01T08:00:00+00:00"}` + "\n" +
		`{"id": 2, "kind": "message", "payload": {"role": "user", "content": "你好"}, "meta": {}, "date": "2025-06-01T08:00:01+00:00"}` + "\n" +
		"not json\n" +
		`{"id": 3, "kind": "anchor", "payload": {"name": "", "state": {}}, "meta": {}, "date": "2025-06-01T08:00:02+00:00"}` + "\n" +
		`{"id": 4, "kind": "event", "payload": {"name": "e", "data": {}}, "meta": {}, "date": "2025-06-01T08:00:03+00:00"}` + "\n"
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []int
	var read, size int64
	opts := Options{
		Name: "s.jsonl",
		Warn: func(err error) {
			var le *tapelog.LineError
			if !errors.As(err, &le) || le.Path != "s.jsonl" {
				t.Errorf("warning %v is not a LineError of s.jsonl", err)
				return
			}
			warned = append(warned, le.Line)
		},
		Progress: func(r, s int64) { read, size = r, s },
	}
	st, err := Import(ctx, ws, file, "s", opts)
	if want := (Stats{Imported: 3, Anchors: 1, BadLines: 2}); err != nil || st != want {
		t.Fatalf("first import = %+v, %v; want %+v", st, err, want)
	}
	if len(warned) != 2 || warned[0] != 3 || warned[1] != 4 {
		t.Errorf("warned of lines %v, want 3 (not JSON) and 4 (an anchor without a name)", warned)
	}
	if size != int64(len(data)) || read != size {
		t.Errorf("progress ended at %d of %d bytes, want %d of %d", read, size, len(data), len(data))
	}

	st, err = Import(ctx, ws, file, "s", Options{})
	if want := (Stats{Skipped: 3, BadLines: 2}); err != nil || st != want {
		t.Errorf("second import = %+v, %v; want %+v", st, err, want)
	}

	main, err := ws.Tape("main")
	if err != nil {
		t.Fatal(err)
	}
	defer main.Close()
	if _, err := main.Append(ctx, tapelog.Entry{Kind: tapelog.KindMessage, Payload: json.RawMessage(`{"role":"user"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(ctx, ws, file, "main", Options{}); !errors.Is(err, ErrOtherTape) {
		t.Errorf("import into a tape of other entries: %v, want ErrOtherTape", err)
	}
}
