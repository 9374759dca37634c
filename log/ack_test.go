package log

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestParseAck holds the lines of AckFile to their one form.
func TestParseAck(t *testing.T) {
	h := sha("x")
	for _, tc := range []struct {
		line string
		path string
		n    int
		ok   bool
	}{
		{"tapes/main/anchors/001_a/messages.jsonl:2 " + h, "tapes/main/anchors/001_a/messages.jsonl", 2, true},
		{"tapes/a b/anchors/001_计划:x/e.jsonl:10 " + h, "tapes/a b/anchors/001_计划:x/e.jsonl", 10, true},
		{"tapes/main/anchors/001_a/messages.jsonl:2", "", 0, false},
		{"tapes/main/anchors/001_a/messages.jsonl " + h, "", 0, false},
		{"tapes/main/anchors/001_a/messages.jsonl:0 " + h, "", 0, false},
		{"tapes/main/anchors/001_a/messages.jsonl:2 " + strings.ToUpper(h), "", 0, false},
		{"tapes/main/anchors/001_a/messages.jsonl:2 " + h[:20], "", 0, false},
		{":2 " + h, "", 0, false},
	} {
		place, hash, ok := parseAck(tc.line)
		if ok != tc.ok || place.path != tc.path || place.line != tc.n || (ok && hash != h) {
			t.Errorf("parseAck(%q) = %+v %q %v, want %q %d %v", tc.line, place, hash, ok, tc.path, tc.n, tc.ok)
		}
	}
}

// TestAcknowledgedBadLines checks that an acknowledgement covers the bad
// line it names, as its bytes are, and no other: not the same place with
// other bytes, not a line of another file; that CheckFiles counts it
// instead of reporting it; and that a line of AckFile it cannot read is a
// problem of its own.
func TestAcknowledgedBadLines(t *testing.T) {
	const file = "tapes/main/anchors/001_a/messages.jsonl"
	bad1, bad2 := "坏 one", "{bad two"
	ws := openHandMade(t, map[string]string{
		file: `{"kind":"message","payload":{}}` + "\n" + bad1 + "\n" + bad2 + "\r\n",
		AckFile: "# acknowledged by hand\n\n" +
			file + ":2 " + sha(bad1) + "\n" +
			file + ":3 " + sha("{bad two, as it was") + "\n" + // other bytes
			"tapes/other/anchors/001_a/messages.jsonl:2 " + sha(bad1) + "\n" +
			"not an acknowledgement\n",
	})
	res, err := ws.CheckFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Check+" "+p.Path+":"+itoa(p.Line))
	}
	want := []string{"ack_file acknowledged:6", "bad_line " + file + ":3"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") || res.Acknowledged != 1 {
		t.Errorf("problems %q, acknowledged %d; want %q, 1", got, res.Acknowledged, want)
	}
	fix := res.Problems[1].Fix
	if !strings.Contains(fix, "echo '"+file+":3 "+sha(bad2+"\r")+"' >> '"+ws.Abs(AckFile)+"'") {
		t.Errorf("fix %q does not hold the acknowledgement of line 3, \\r and all", fix)
	}

	tp := mustTape(t, ws, "main")
	_, bad := readAll(t, tp)
	left := ws.Unacknowledged(bad)
	if len(bad) != 2 || len(left) != 1 || left[0].Line != 3 {
		t.Errorf("Unacknowledged(%v) = %v, want line 3 alone", bad, left)
	}
}

// TestUnreadableAckFile checks that an AckFile that cannot be read (here
// a FIFO, which must not hang anyone) is a problem doctor reports, and
// that reads then warn of every bad line instead of failing.
func TestUnreadableAckFile(t *testing.T) {
	const file = "tapes/main/anchors/001_a/messages.jsonl"
	ws := openHandMade(t, map[string]string{file: "坏\n"})
	if err := syscall.Mkfifo(ws.Abs(AckFile), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ws.CheckFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Check+" "+p.Path)
	}
	if strings.Join(got, ", ") != "ack_file acknowledged, bad_line "+file {
		t.Errorf("problems %q", got)
	}
	_, bad := readAll(t, mustTape(t, ws, "main"))
	if left := ws.Unacknowledged(bad); len(left) != 1 {
		t.Errorf("Unacknowledged = %v, want the bad line", left)
	}
}

// FuzzParseAck: a line of the acknowledgements file that parses has a
// place of a positive line and a sha256 hash, and written back in the
// form AckLine writes ("PATH:LINE sha256:HEX") it parses to the same.
func FuzzParseAck(f *testing.F) {
	hash := ackHashPrefix + strings.Repeat("ab", 32)
	for _, s := range []string{
		"tapes/main/anchors/001_session-start/messages.jsonl:3 " + hash,
		"tapes/a b/anchors/001_x:y/events.jsonl:12 " + hash,
		"x:0 " + hash, "x:3 sha256:AB", ":3 " + hash, "no hash", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		place, hash, ok := parseAck(s)
		if !ok {
			return
		}
		if place.line <= 0 || place.path == "" || !strings.HasPrefix(hash, ackHashPrefix) || len(hash) != len(ackHashPrefix)+64 {
			t.Fatalf("parseAck(%q) = %+v, %q", s, place, hash)
		}
		again, hash2, ok := parseAck(fmt.Sprintf("%s:%d %s", place.path, place.line, hash))
		if !ok || again != place || hash2 != hash {
			t.Fatalf("parseAck(%q) = %+v %q, written back %+v %q %v", s, place, hash, again, hash2, ok)
		}
	})
}
