package log

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for a writer process
// (TAPE_TEST_LOG_WRITER), so the tests kill real processes mid-write
// without a separate build (decision 0015).
func TestMain(m *testing.M) {
	if spec := os.Getenv("TAPE_TEST_LOG_WRITER"); spec != "" {
		os.Exit(writerProcess(spec))
	}
	os.Exit(m.Run())
}

// bigPayload is a message of about 4 MiB: its write(2) spans a thousand
// pages, and a SIGKILL between two of them leaves the line torn.
func bigPayload(i int) json.RawMessage {
	p, _ := json.Marshal(map[string]any{"role": "user", "content": strings.Repeat(string(rune('a'+i%26)), 4<<20)})
	return p
}

// writerProcess appends to tape main of the workspace, as spec says:
// "loop,<dir>" appends big entries until it is killed; "limit,<dir>"
// appends one under a file size limit 1 MiB past the file's end, as a
// disk that fills mid-write, and exits 0 if the append failed.
func writerProcess(spec string) int {
	mode, dir, _ := strings.Cut(spec, ",")
	ws, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ws.Close()
	tp, err := ws.Tape("main")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if mode == "limit" {
		signal.Ignore(syscall.SIGXFSZ) // a write past the limit then fails with EFBIG
		fi, err := os.Stat(filepath.Join(dir, "tapes/main/anchors/001_session-start", MessagesFile))
		if err == nil {
			lim := syscall.Rlimit{Cur: uint64(fi.Size()) + 1<<20, Max: uint64(fi.Size()) + 1<<20}
			err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, err = tp.Append(context.Background(), Entry{Kind: KindMessage, Payload: bigPayload(0)})
		fmt.Fprintln(os.Stderr, err)
		if err == nil {
			return 1
		}
		return 0
	}
	for i := 0; ; i++ {
		if _, err := tp.Append(context.Background(), Entry{Kind: KindMessage, Payload: bigPayload(i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

// writerCmd is the test binary run as writerProcess.
func writerCmd(spec string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TAPE_TEST_LOG_WRITER="+spec)
	return cmd
}

// lastByte is the last byte of file, 0 when it is empty.
func lastByte(t *testing.T, f *os.File) byte {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() == 0 {
		return 0
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	return b[0]
}

// A writer process killed (SIGKILL) in the middle of writing a line of
// 4 MiB leaves it torn; the next append ends it with TornMark, and the
// tape reads with no bad line: every whole line, and the new one. Rounds
// go on until three kills have torn a line.
func TestKilledBigAppend(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	if _, err := tp.Append(ctx, msg("first")); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start", MessagesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	deadline := time.Now().Add(time.Minute)
	torn, appended, round := 0, 1, 0
	for ; torn < 3; round++ {
		if time.Now().After(deadline) {
			t.Fatalf("after %d rounds no more than %d kills tore a line", round, torn)
		}
		var stderr bytes.Buffer
		cmd := writerCmd("loop," + ws.Dir())
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// Kill it as soon as its line is partly written.
		for lastByte(t, file) == '\n' {
			select {
			case err := <-exited:
				t.Fatalf("the writer exited before it was killed: %v\n%s", err, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				break
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
		if lastByte(t, file) != '\n' {
			torn++
		}
		if _, err := tp.Append(ctx, msg(fmt.Sprintf("after kill %d", round))); err != nil {
			t.Fatal(err)
		}
		appended++
		got, bad := readAll(t, tp)
		if len(bad) != 0 {
			t.Fatalf("round %d: bad lines %v; a torn line must be skipped", round, bad)
		}
		var mine int
		for _, e := range got {
			if c := contentsOf([]Entry{e})[0]; c == "first" || strings.HasPrefix(c, "after kill") {
				mine++
			}
		}
		if mine != appended {
			t.Fatalf("round %d: %d of the %d entries appended after the kills read", round, mine, appended)
		}
	}
	t.Logf("%d kills, %d of them mid-line", round, torn)
}

// A write that falls short on a real file (a file size limit, as a full
// disk) is taken back by the writer: the file ends where it ended, and
// the next append reads whole.
func TestShortWriteTakenBack(t *testing.T) {
	ws := newTestWorkspace(t)
	tp := mustTape(t, ws, "main")
	ctx := context.Background()
	if _, err := tp.Append(ctx, msg("first")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws.Dir(), "tapes/main/anchors/001_session-start", MessagesFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := writerCmd("limit," + ws.Dir())
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("writer: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "file too large") || !strings.Contains(stderr.String(), "taken back") {
		t.Errorf("the writer's error: %s; want EFBIG, its line taken back", stderr.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("after a short write the file is %d bytes, was %d: want it as it was", len(after), len(before))
	}
}
