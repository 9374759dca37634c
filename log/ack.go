package log

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// Acknowledged bad lines.
//
// Tape never edits a source file, so a bad line stays in its file for
// good. A person who has read it, and appended a fixed copy if its content
// mattered, acknowledges it in AckFile: doctor then passes, and reads stop
// warning of it. An acknowledgement names the line's place and the hash
// of its bytes, so it never covers another line that comes to sit at the
// same place (a tape reset makes its folders anew). It lives in the
// files, not in the index, so a rebuild of the index changes nothing.
// docs/FORMAT.md section 8 has the format; docs/decisions/0060 the why.

// AckFile is the workspace file that lists the acknowledged bad lines,
// one "PATH:LINE sha256:HEX" a line. Tape only reads it.
const AckFile = "acknowledged"

// maxAckFile bounds what is read of AckFile: 64 MiB is over half a
// million acknowledgements.
const maxAckFile = 64 << 20

// ackHashPrefix starts the hash of an acknowledgement.
const ackHashPrefix = "sha256:"

// Acks are a workspace's acknowledgements of bad lines, as AckFile held
// them when read.
type Acks struct {
	ws    *Workspace
	lines map[ackPlace]string // the hash acknowledged at each place
	// Unreadable are the numbers of AckFile's lines that are not
	// acknowledgements (doctor reports them).
	Unreadable []int
}

// ackPlace is where a bad line is: its file, relative to the workspace,
// and its 1-based line.
type ackPlace struct {
	path string
	line int
}

// ReadAcks reads AckFile; a missing one acknowledges nothing. On an error
// it returns the error with Acks that acknowledge nothing: a caller may go
// on without them.
func (w *Workspace) ReadAcks() (*Acks, error) {
	a := &Acks{ws: w, lines: map[ackPlace]string{}}
	data, err := w.readAckFile()
	if errors.Is(err, fs.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return a, err // it names the file
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		place, hash, ok := parseAck(line)
		if !ok {
			a.Unreadable = append(a.Unreadable, i+1)
			continue
		}
		a.lines[place] = hash
	}
	return a, nil
}

// readAckFile reads AckFile, refusing what is not a regular file (a FIFO
// there must not hang every read).
func (w *Workspace) readAckFile() ([]byte, error) {
	f, err := w.openRegular(AckFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxAckFile))
}

// parseAck reads one line of AckFile: "PATH:LINE sha256:HEX". The path
// may hold spaces and colons; the line number and the hash cannot.
func parseAck(s string) (ackPlace, string, bool) {
	sp := strings.LastIndexByte(s, ' ')
	if sp < 0 {
		return ackPlace{}, "", false
	}
	place, hash := strings.TrimSpace(s[:sp]), s[sp+1:]
	hexPart, ok := strings.CutPrefix(hash, ackHashPrefix)
	if !ok || len(hexPart) != 2*sha256.Size || strings.ToLower(hexPart) != hexPart {
		return ackPlace{}, "", false
	}
	if _, err := hex.DecodeString(hexPart); err != nil {
		return ackPlace{}, "", false
	}
	colon := strings.LastIndexByte(place, ':')
	if colon <= 0 {
		return ackPlace{}, "", false
	}
	n, err := strconv.Atoi(place[colon+1:])
	if err != nil || n <= 0 {
		return ackPlace{}, "", false
	}
	return ackPlace{path: place[:colon], line: n}, hash, true
}

// Len is the number of acknowledgements.
func (a *Acks) Len() int { return len(a.lines) }

// Covers reports whether the bad line le is acknowledged: AckFile names
// its place with the hash of the bytes there now. f, if not nil, is its
// file, open (a reader that holds it saves an open).
func (a *Acks) Covers(le *LineError, f io.ReaderAt) bool {
	want, ok := a.lines[ackPlace{le.Path, le.Line}]
	if !ok || le.Line == 0 || le.Err != nil {
		return false
	}
	got, err := a.ws.lineHash(le.Path, le.Offset, f)
	return err == nil && got == want
}

// AckLine is the line of AckFile that acknowledges the bad line le as its
// file holds it now. f, if not nil, is that file, open.
func (w *Workspace) AckLine(le *LineError, f io.ReaderAt) (string, error) {
	hash, err := w.lineHash(le.Path, le.Offset, f)
	if err != nil {
		return "", err
	}
	return le.Path + ":" + strconv.Itoa(le.Line) + " " + hash, nil
}

// Unacknowledged returns the bad lines of bad that AckFile does not
// acknowledge, in their order: what a read warns of. It reads AckFile only
// when there is a bad line to look up; an AckFile it cannot read
// acknowledges nothing (tape doctor says why), so a read warns of them all
// rather than fail.
func (w *Workspace) Unacknowledged(bad []*LineError) []*LineError {
	if len(bad) == 0 {
		return bad
	}
	acks, _ := w.ReadAcks()
	if acks.Len() == 0 {
		return bad
	}
	var out []*LineError
	for _, le := range bad {
		if !acks.Covers(le, nil) {
			out = append(out, le)
		}
	}
	return out
}

// lineHash is "sha256:" and the hex SHA-256 of the line that starts at
// offset in the workspace file rel (or in f, when it is not nil), without
// its '\n'. A line of any length is hashed as it streams by.
func (w *Workspace) lineHash(rel string, offset int64, f io.ReaderAt) (string, error) {
	if f == nil {
		file, err := w.openRegular(rel)
		if err != nil {
			return "", err
		}
		defer file.Close()
		f = file
	}
	r := bufio.NewReader(io.NewSectionReader(f, offset, math.MaxInt64-offset))
	h := sha256.New()
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			h.Write(chunk)
			continue
		case err == nil:
			h.Write(bytes.TrimSuffix(chunk, []byte("\n")))
		case errors.Is(err, io.EOF):
			h.Write(chunk)
		default:
			return "", fmt.Errorf("read %s: %w", rel, err)
		}
		return ackHashPrefix + hex.EncodeToString(h.Sum(nil)), nil
	}
}
