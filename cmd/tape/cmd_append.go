package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/read/records"
)

// AppendCmd is `tape append`.
type AppendCmd struct {
	Kind    string `short:"k" placeholder:"KIND" help:"The entry's kind: message, system, tool_call, tool_result, event, error, or your own."`
	Meta    string `placeholder:"JSON" help:"The entry's meta, a JSON object."`
	JSONL   bool   `name:"jsonl" help:"Read whole entries from stdin, one JSON object per line ({\"kind\",\"payload\",\"meta\"}, or a bare chat message)."`
	Sync    *bool  `negatable:"" help:"fsync before returning (default: sync in config.json, else no)."`
	JSON    bool   `help:"Print each new entry as a JSON object instead of its id."`
	Fork    string `placeholder:"ID" help:"Append into the fork ID (see 'tape fork') instead of the tape."`
	Payload string `arg:"" optional:"" placeholder:"PAYLOAD" help:"The payload, a JSON object; - reads it from stdin."`
}

func (c *AppendCmd) Help() string {
	return `Appends to the current (last) anchor of the tape and prints the new entry's id.
A tape that does not exist yet is created. Each entry is one line written with
one write under an flock of the file, so concurrent writers never tear lines.

Examples:
  tape append --kind message '{"role":"user","content":"hi"}'
  echo '{"name":"run","data":{"status":"ok"}}' | tape append --kind event -
  producer | tape append --jsonl        # entries as they arrive, one id per line
  tape append --fork "$id" --kind message '{"role":"user","content":"在分支里"}'`
}

func (c *AppendCmd) Validate() error {
	if c.JSONL {
		if c.Payload != "" || c.Kind != "" || c.Meta != "" {
			return usagef("--jsonl reads whole entries from stdin; give no PAYLOAD, --kind or --meta with it")
		}
		return nil
	}
	if c.Kind == "" {
		return usagef("--kind is required (or --jsonl to read whole entries from stdin)")
	}
	if c.Payload == "" {
		return usagef("a PAYLOAD is required: a JSON object, or - to read it from stdin")
	}
	return nil
}

func (c *AppendCmd) Run(env *Env, g *Globals) error {
	ws, t, err := g.openTape(env, newTape, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer t.Close()
	if t, err = forkOf(t, c.Fork); err != nil {
		return g.forkElsewhere(env, c.Fork, err)
	}
	defer t.Close()
	if c.Sync != nil {
		t.Sync = tapelog.SyncNone
		if *c.Sync {
			t.Sync = tapelog.SyncAlways
		}
	}
	if c.JSONL {
		return c.appendJSONL(env, t)
	}
	payload := []byte(c.Payload)
	if c.Payload == "-" {
		if payload, err = io.ReadAll(io.LimitReader(env.Stdin, ws.Config().MaxEntryBytes+1)); err != nil {
			return fmt.Errorf("read payload from stdin: %w", err)
		}
	}
	e := tapelog.Entry{Kind: c.Kind, Payload: payload}
	if c.Meta != "" {
		e.Meta = json.RawMessage(c.Meta)
	}
	written, err := t.Append(env.Context(), e)
	if err != nil {
		return err
	}
	return c.print(env, written)
}

func (c *AppendCmd) print(env *Env, written []tapelog.Entry) error {
	out := newJSONLines(env.Stdout)
	for _, e := range written {
		if c.JSON {
			if err := out.write(records.NewAppend(e)); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintln(env.Stdout, e.ID); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

// jsonlBatch is how many stdin entries one Append call writes at most; a
// batch is also cut whenever stdin has nothing more buffered, so an agent
// that writes one entry at a time gets its id back at once.
const jsonlBatch = 256

// appendJSONL appends the entries read from stdin, in order, as they arrive.
// The first line that is refused stops it: the lines before it are written
// (their ids printed), none after.
func (c *AppendCmd) appendJSONL(env *Env, t *tapelog.Tape) error {
	r := bufio.NewReaderSize(env.Stdin, 1<<20)
	var (
		batch   []tapelog.Entry
		lineNos []int // the stdin line of each entry of batch
		lineNo  int
		total   int // entries written so far
	)
	flush := func() error {
		written, err := t.Append(env.Context(), batch...)
		var ee *tapelog.EntryError
		if errors.As(err, &ee) {
			// Write the good entries before the refused one, then stop.
			if written, err = t.Append(env.Context(), batch[:ee.Index]...); err != nil {
				return err
			}
			if err := c.print(env, written); err != nil {
				return err
			}
			return fmt.Errorf("stdin line %d: %w; %s written", lineNos[ee.Index], ee.Err, entriesWere(total+ee.Index))
		}
		if err != nil {
			return err
		}
		total += len(written)
		batch, lineNos = batch[:0], lineNos[:0]
		return c.print(env, written)
	}
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			if e, perr := tapelog.ParseEntry(line); perr == nil {
				batch, lineNos = append(batch, e), append(lineNos, lineNo)
			} else if !errors.Is(perr, tapelog.ErrBlankLine) {
				if ferr := flush(); ferr != nil {
					return ferr
				}
				return usagef("stdin line %d: %v; %s written", lineNo, perr, entriesWere(total))
			}
		}
		if errors.Is(err, io.EOF) {
			return flush()
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		if len(batch) >= jsonlBatch || (r.Buffered() == 0 && len(batch) > 0) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// forkOf returns the fork id of t, or t itself when id is "".
func forkOf(t *tapelog.Tape, id string) (*tapelog.Tape, error) {
	if id == "" {
		return t, nil
	}
	return t.OpenFork(id)
}

// entriesWere is how many entries a stream wrote before a line it
// refused: "the 2 entries before it were", "the 1 entry before it was".
func entriesWere(n int) string {
	if n == 1 {
		return "the 1 entry before it was"
	}
	return fmt.Sprintf("the %d entries before it were", n)
}
