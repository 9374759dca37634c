package bub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"

	tapelog "github.com/tape-dev/tape/log"
)

// Line is one entry of a Bub tape file: the single-file tapes the Bub
// agent framework keeps under ~/.bub/tapes/<tape>.jsonl, one entry a line,
// {"id": int, "kind", "payload", "meta", "date"}, anchors in line with the
// other entries.
type Line struct {
	Line   int           // 1-based
	Offset int64         // byte offset of the line's start
	Entry  tapelog.Entry // id (decimal), kind, payload, meta and date as written
}

// Lines reads a Bub tape file from r, line by line; name names it in
// errors. A line that is not a Bub entry yields a *log.LineError and reading
// goes on. Blank lines are skipped. A last line without '\n' that does not
// parse is a line Bub is still writing: it is skipped, not reported, and a
// later read finds it whole. A read error ends the sequence.
func Lines(ctx context.Context, r io.Reader, name string) iter.Seq2[Line, error] {
	return func(yield func(Line, error) bool) {
		br := bufio.NewReaderSize(r, 1<<16)
		var offset int64
		for n := 1; ; n++ {
			if err := ctx.Err(); err != nil {
				yield(Line{}, err)
				return
			}
			raw, tooLong, err := readCapped(br, tapelog.DefaultMaxLineBytes)
			if err != nil && !errors.Is(err, io.EOF) {
				yield(Line{}, &tapelog.LineError{Path: name, Line: n, Offset: offset, Reason: "read: " + err.Error(), Err: err})
				return
			}
			last := errors.Is(err, io.EOF)
			start := offset
			offset += int64(len(raw))
			offset += tooLong
			if len(raw) == 0 && tooLong == 0 {
				return
			}
			if tooLong > 0 {
				reason := fmt.Sprintf("line is %d bytes, over the read limit of %d", tooLong, tapelog.DefaultMaxLineBytes)
				if !yield(Line{}, &tapelog.LineError{Path: name, Line: n, Offset: start, Reason: reason}) || last {
					return
				}
				continue
			}
			e, reason := ParseLine(raw)
			switch {
			case errors.Is(reason, tapelog.ErrBlankLine):
			case reason != nil && last:
				return // in progress
			case reason != nil:
				if !yield(Line{}, &tapelog.LineError{Path: name, Line: n, Offset: start, Reason: reason.Error()}) {
					return
				}
			default:
				if !yield(Line{Line: n, Offset: start, Entry: e}, nil) {
					return
				}
			}
			if last {
				return
			}
		}
	}
}

// readCapped reads one line, newline included, from br. A line longer than
// max is not kept: it is read through, and its length returned as tooLong
// with no data, so one corrupt multi-gigabyte line costs no memory.
func readCapped(br *bufio.Reader, max int) (line []byte, tooLong int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if tooLong > 0 || len(line)+len(chunk) > max {
			tooLong += int64(len(line) + len(chunk))
			line = nil
		} else {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// ParseLine reads one line of a Bub tape file (a trailing newline is
// allowed). Bub writes every field, so it is stricter than a tape line:
// kind must be a non-empty string, id an integer (it is what a second
// import recognises an entry by), payload an object, meta an object or
// absent, and date, when present, a date log.ParseTime reads. It returns
// log.ErrBlankLine for a blank line.
func ParseLine(line []byte) (tapelog.Entry, error) {
	e, err := tapelog.ParseEntry(line)
	if err != nil {
		if errors.Is(err, tapelog.ErrBlankLine) {
			return tapelog.Entry{}, err
		}
		return tapelog.Entry{}, errors.New(strings.TrimPrefix(err.Error(), tapelog.ErrInvalid.Error()+": "))
	}
	// A map, not a struct: keys match exactly, as log.ParseEntry matches them.
	var f map[string]json.RawMessage
	_ = json.Unmarshal(bytes.TrimPrefix(bytes.TrimRight(line, "\r\n"), []byte("\xef\xbb\xbf")), &f) // log.ParseEntry read it as an object
	switch {
	case f["kind"] == nil:
		return tapelog.Entry{}, errors.New(`no "kind": not a Bub tape entry`)
	case !isInteger(f["id"]):
		return tapelog.Entry{}, fmt.Errorf(`"id" is %s, not an integer: not a Bub tape entry`, orMissing(f["id"]))
	case !opensObject(f["payload"]):
		return tapelog.Entry{}, fmt.Errorf(`"payload" is %s, not a JSON object`, orMissing(f["payload"]))
	case e.Meta != nil && !opensObject(e.Meta):
		return tapelog.Entry{}, errors.New(`"meta" is not a JSON object`)
	}
	if e.Date != "" {
		if _, err := tapelog.ParseTime(e.Date); err != nil {
			return tapelog.Entry{}, fmt.Errorf(`"date" %q is not a date`, e.Date)
		}
	}
	return e, nil
}

func isInteger(raw json.RawMessage) bool {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return false
	}
	_, err := strconv.ParseInt(n.String(), 10, 64)
	return err == nil
}

// opensObject reports whether a value of a line log.ParseEntry read is an
// object: the line is valid JSON already, so its first byte says.
func opensObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// orMissing shows a value in a reason, cut short, or says it is missing.
func orMissing(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}
