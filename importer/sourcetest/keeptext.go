package sourcetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/testkit/short"
)

// Kept says where the property wants a string of a record kept.
type Kept int

const (
	// Nowhere: the mapping reads the string as structure, not text (a
	// type, a role, an id the envelope holds): docs/IMPORT.md says so.
	Nowhere Kept = iota
	// InPayload: in some entry's payload.
	InPayload
	// InEntry: in some entry's payload, meta or date, when the line
	// made an entry (a timestamp: the date of its entries, or kept as
	// written in their meta when it is not a date).
	InEntry
)

// Rule says where the string at path in the record rec (a line decoded
// into any) must be kept; path is the keys that lead to it, "[]" for an
// array's item. It is asked only about members, never about rec itself.
type Rule func(rec any, path []string) Kept

// KeepsText checks CheckKeepsText's property on 400 seeds (40 under
// -short): a source's TestKeepsText, which takes a few hundred
// transcripts of up to a few dozen lines in under a second.
func KeepsText(t *testing.T, src source.Source, transcript func(*Gen) []string, rule Rule) {
	t.Helper()
	for seed := range short.Seeds(400) {
		CheckKeepsText(t, src, seed, transcript, rule)
	}
}

// FuzzKeepsText explores CheckKeepsText's seeds: a source's FuzzKeepsText.
func FuzzKeepsText(f *testing.F, src source.Source, transcript func(*Gen) []string, rule Rule) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { CheckKeepsText(t, src, seed, transcript, rule) })
}

// CheckKeepsText checks the property "an importer never drops text" on
// one transcript, made by transcript from a Gen of seed: the entries'
// payloads hold every string of every record (every word of a line that
// is not JSON), but those rule says are structure; no line that is a JSON object is a bad line; every entry
// is one a tape takes, with a date a tape takes; and a checkpoint
// anywhere changes nothing. A source's test runs it on a few hundred
// seeds (KeepsText), and a fuzz target on more (FuzzKeepsText).
func CheckKeepsText(t *testing.T, src source.Source, seed uint64, transcript func(*Gen) []string, rule Rule) {
	t.Helper()
	lines := transcript(NewGen(seed))
	data := []byte(strings.Join(lines, "\n") + "\n")
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s, seed %d: %s\ntranscript:\n%s", src.Name(), seed, fmt.Sprintf(format, args...), data)
	}
	conv, err := src.NewConverter(Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	for i, line := range lines {
		o, err := conv.Line(tapelog.RawLine{No: i + 1, Data: []byte(line)})
		var w source.LineWarning
		if err != nil && !errors.As(err, &w) {
			fail("line %d is a bad line: %v", i+1, err)
		}
		outs = append(outs, o...)
	}
	outs = append(outs, conv.Flush()...)
	var payloads, metas strings.Builder // every string of the entries' payloads, and of their metas and dates
	made := map[int]bool{}              // the lines that made an entry
	for _, o := range outs {
		CheckOutput(t, src, o)
		made[source.LineOf(o.Entry)] = true
		appendStrings(&metas, o.Entry.Date)
		if o.Entry.Date != "" {
			if _, err := tapelog.ParseTime(o.Entry.Date); err != nil {
				fail("entry %s has a date a tape refuses: %v", o.Entry.ID, err)
			}
		}
		for _, part := range []struct {
			raw json.RawMessage
			b   *strings.Builder
		}{{o.Entry.Payload, &payloads}, {o.Entry.Meta, &metas}} {
			var v any
			if err := json.Unmarshal(part.raw, &v); err != nil {
				fail("entry %s: %v", o.Entry.ID, err)
			}
			walkStrings(v, nil, func(_ []string, s string) { appendStrings(part.b, s) })
		}
	}
	inPayloads, inMetas := payloads.String(), metas.String()
	for i, line := range lines {
		var rec any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			// A line that is not JSON is text (Aider's Markdown): each of
			// its words is asked of rule, with rec the line and path the
			// word's index among strings.Fields(line).
			for k, word := range strings.Fields(line) {
				if rule(line, []string{strconv.Itoa(k)}) == InPayload && !strings.Contains(inPayloads, word) {
					fail("the word %q of line %d is in no entry's payload:\n%s", word, i+1, entriesText(outs))
				}
			}
			continue
		}
		walkStrings(rec, nil, func(path []string, s string) {
			kept := InPayload
			if len(path) > 0 {
				kept = rule(rec, path)
			}
			switch kept {
			case InPayload:
				if !strings.Contains(inPayloads, s) {
					fail("the text %q at %v of line %d is in no entry's payload:\n%s", s, path, i+1, entriesText(outs))
				}
			case InEntry:
				// A line that makes no entry (a repeated usage, a message
				// Codex wrote twice, a compaction's summary) keeps no date.
				if made[i+1] && !strings.Contains(inPayloads, s) && !strings.Contains(inMetas, s) {
					fail("the value %q at %v of line %d is in no entry:\n%s", s, path, i+1, entriesText(outs))
				}
			}
		})
	}
	// A checkpoint anywhere loses nothing and adds nothing.
	if once, resumed := ConvertAll(t, src, data, false), ConvertAll(t, src, data, true); once != resumed {
		fail("resumed:\n%s\nin one pass:\n%s", resumed, once)
	}
}

// appendStrings adds s to b, and the strings of the JSON text s holds
// (a call's arguments are its input as JSON text).
func appendStrings(b *strings.Builder, s string) {
	b.WriteString(s)
	b.WriteByte(0)
	var v any
	if text := strings.TrimSpace(s); text != "" && strings.ContainsAny(text[:1], `{["`) && json.Unmarshal([]byte(text), &v) == nil {
		walkStrings(v, nil, func(_ []string, s string) { appendStrings(b, s) })
	}
}

// walkStrings calls fn with every string of v, and the keys that lead
// to it ("[]" for an array's item).
func walkStrings(v any, path []string, fn func(path []string, s string)) {
	switch v := v.(type) {
	case string:
		fn(path, v)
	case []any:
		for _, item := range v {
			walkStrings(item, append(slices.Clip(path), "[]"), fn)
		}
	case map[string]any:
		for k, item := range v {
			walkStrings(item, append(slices.Clip(path), k), fn)
		}
	}
}

func entriesText(outs []source.Output) string {
	var b strings.Builder
	for _, o := range outs {
		fmt.Fprintf(&b, "%s %s %s\n", o.Entry.ID, o.Entry.Kind, o.Entry.Payload)
	}
	return b.String()
}
