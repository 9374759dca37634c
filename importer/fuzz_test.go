package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
)

// convertAll converts the complete lines of data, resuming from a saved
// state at each line where nothing is held when resume is set, and
// returns what was made, one entry a line, and the reasons of bad lines.
func convertAll(t *testing.T, f *Format, data []byte, resume bool) string {
	t.Helper()
	conv, err := f.newConverter("/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	emit := func(outs []Output) {
		for _, o := range outs {
			checkOutput(t, o)
			fmt.Fprintf(&out, "%s %v %s %s %s %s %s\n", o.Session.Tape(false), o.Anchor, o.Entry.ID, o.Entry.Kind, o.Entry.Date, o.Entry.Payload, o.Entry.Meta)
		}
	}
	lr := tapelog.NewLineReader(bytes.NewReader(data), 1<<20, 0, 0)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		l.Data = bytes.Clone(l.Data)
		outs, err := conv.line(l)
		if err != nil {
			fmt.Fprintf(&out, "bad %d\n", l.No)
		}
		emit(outs)
		if _, _, held := conv.held(); resume && !held {
			// What a checkpoint here would resume with.
			state, err := conv.state()
			if err != nil {
				t.Fatal(err)
			}
			if conv, err = f.newConverter("/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", state); err != nil {
				t.Fatalf("resume from %s: %v", state, err)
			}
		}
	}
	emit(conv.flush())
	return out.String()
}

// checkOutput checks that an entry is one a tape takes: a kind, a payload
// that is a JSON object, a meta that names its source line.
func checkOutput(t *testing.T, o Output) {
	t.Helper()
	var p map[string]any
	if o.Entry.Kind == "" || json.Unmarshal(o.Entry.Payload, &p) != nil {
		t.Fatalf("entry %+v: no kind, or a payload that is not an object", o.Entry)
	}
	var m struct {
		Source struct {
			File string `json:"file"`
		} `json:"source"`
	}
	if json.Unmarshal(o.Entry.Meta, &m) != nil || m.Source.File == "" {
		t.Fatalf("entry %s: meta %s names no source", o.Entry.ID, o.Entry.Meta)
	}
	if o.Entry.ID == "" || o.Session.ID == "" {
		t.Fatalf("entry %+v of session %+v: no id", o.Entry, o.Session)
	}
	if err := tapelog.ValidateTapeName(o.Session.Tape(false)); err != nil {
		t.Fatalf("session %+v: %v", o.Session, err)
	}
}

func fuzzConverter(f *testing.F, format *Format, seeds ...string) {
	for _, fx := range fixtures {
		if fx.format == format {
			data, err := fx.data()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Resuming from a state saved wherever nothing is held makes what
		// one pass makes: a checkpoint loses nothing and adds nothing.
		if once, resumed := convertAll(t, format, data, false), convertAll(t, format, data, true); once != resumed {
			t.Fatalf("resumed:\n%s\nin one pass:\n%s", resumed, once)
		}
	})
}

func FuzzClaudeConverter(f *testing.F) {
	fuzzConverter(f, Claude,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}}`+"\n"+`{"type":"system","subtype":"compact_boundary"}`+"\n",
		`{"type":"user","isSidechain":true,"agentId":"../..","message":{"content":null}}`+"\n",
		`{"type":"x"}`+"\n"+`[1]`+"\n"+`{"type":1}`+"\n")
}

func FuzzCodexConverter(f *testing.F) {
	fuzzConverter(f, Codex,
		`{"type":"response_item","payload":{"type":"function_call","call_id":"c","arguments":7}}`+"\n"+`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-5}}}}`+"\n",
		`{"id":1}`+"\n"+`{"record_type":"state"}`+"\n"+`{"type":"message"}`+"\n")
}
