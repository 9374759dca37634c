package projector

import (
	"context"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// The walker sends a file's entries in ops of at most entriesPerOp
// entries and, but for the entry that crosses it, opBytes of lines: what
// waits for the goroutine that writes them is bounded in bytes, however
// long the entries.
func TestScanOpsBoundedInBytes(t *testing.T) {
	ws := newWorkspace(t)
	long := strings.Repeat("x", opBytes/3)
	var contents []string
	for i := range 7 {
		contents = append(contents, long+itoa(i))
	}
	for i := range entriesPerOp + 10 {
		contents = append(contents, "short "+itoa(i))
	}
	appendMsgs(t, ws, "t", contents)
	tp, err := ws.Tape("t")
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := tp.Anchors()
	if err != nil {
		t.Fatal(err)
	}
	s, err := tp.ScanFile(anchors[len(anchors)-1], tapelog.MessagesFile, tapelog.FilePos{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ops := make(chan op, 1000)
	w := &walker{ws: ws, out: ops}
	if err := w.scan(context.Background(), fileKey{tape: "t"}, s); err != nil {
		t.Fatal(err)
	}
	close(ops)
	total := 0
	for o := range ops {
		bytes := 0
		for _, r := range o.entries {
			bytes += r.length
		}
		last := o.entries[len(o.entries)-1].length
		if len(o.entries) > entriesPerOp || bytes-last >= opBytes {
			t.Errorf("an op of %d entries, %d bytes of lines; want at most %d entries and %d bytes before its last", len(o.entries), bytes, entriesPerOp, opBytes)
		}
		total += len(o.entries)
	}
	if total != len(contents) {
		t.Errorf("ops carried %d entries; want %d", total, len(contents))
	}
}
