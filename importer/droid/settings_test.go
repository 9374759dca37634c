package droid

import (
	"errors"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	tapelog "github.com/tape-dev/tape/log"
)

// raw is line n of a transcript, data its text.
func raw(n int, data string) tapelog.RawLine {
	return tapelog.RawLine{No: n, Offset: int64(n * 100), Data: []byte(data)}
}

// doc is a settings document as Droid writes it (JSON.stringify with two
// spaces), its lines without the closing "}", which gets no newline.
func doc(tokens string) []string {
	return []string{"{", `  "assistantActiveTimeMs": 1000,`, `  "model": "custom:Claude-Opus-4.5-Thinking-[Anthropic]-0",`,
		`  "providerLockTimestamp": "2026-01-05T10:00:00.000Z",`, `  "tokenUsage": {`, "    " + tokens, "  }"}
}

// The lines of a document are held until its last member's, which closes
// it: the session's anchor, the settings, the run. The "}" after it, if it
// comes, makes nothing; a document after that is read as the first was.
func TestSettingsDocument(t *testing.T) {
	t.Parallel()
	c, err := newConverter(settingsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := doc(`"inputTokens": 100, "outputTokens": 50, "cacheCreationTokens": 20, "cacheReadTokens": 10, "thinkingTokens": 5`)
	var out []source.Output
	for i, l := range lines {
		o, err := c.Line(raw(i+1, l))
		if err != nil {
			t.Fatal(err)
		}
		if i < len(lines)-1 {
			if line, offset, held := c.Held(); len(o) > 0 || !held || line != 0 || offset != 100 {
				t.Fatalf("line %d: made %d entries, held %v from line %d offset %d", i+1, len(o), held, line+1, offset)
			}
		}
		out = append(out, o...)
	}
	if _, _, held := c.Held(); held {
		t.Fatal("the last member's line did not close the document")
	}
	var got []string
	for _, o := range out {
		got = append(got, o.Entry.ID+" "+o.Entry.Date+" "+string(o.Entry.Payload))
	}
	id := "7c1e2a90-3d4b-4f6a-9b8c-1d2e3f4a5b6c"
	want := []string{
		id + ` 2026-01-05T10:00:00.000Z {"name":"session/start","state":{"source":"droid","session_id":"` + id + `","file":"` + settingsPath + `"}}`,
		id + `/settings/8021ad24 2026-01-05T10:00:00.000Z {"data":{"assistantActiveTimeMs":1000,"model":"custom:Claude-Opus-4.5-Thinking-[Anthropic]-0","providerLockTimestamp":"2026-01-05T10:00:00.000Z","tokenUsage":{"inputTokens":100,"outputTokens":50,"cacheCreationTokens":20,"cacheReadTokens":10,"thinkingTokens":5}},"name":"droid/settings"}`,
		id + `/usage/74930ad4 2026-01-05T10:00:00.000Z {"name":"run","data":{"status":"ok","model":"claude-opus-4-5-thinking-0","usage":{"input_tokens":100,"output_tokens":50,"cache_creation_input_tokens":20,"cache_read_input_tokens":10,"reasoning_output_tokens":5,"total_tokens":185},"usage_id":"droid:` + id + `"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("made\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if o, _ := c.Line(raw(8, "}")); len(o) != 0 {
		t.Errorf("the closing brace made %v", o)
	}
	if o, _ := c.Line(raw(9, `{"tokenUsage":{"inputTokens":7}}`)); len(o) != 2 || !strings.Contains(string(o[1].Entry.Payload), `"input_tokens":7`) {
		t.Errorf("a document on one line after it made %v", o)
	}
}

// A document the file never closes in the layout the converter knows is
// read once the file is quiet (Flush), with the "}" it lacks; one that is
// not JSON then is kept as text.
func TestSettingsFlushed(t *testing.T) {
	t.Parallel()
	four := []string{"{", `    "model": "gpt-5",`, `    "tokenUsage": {`, `        "inputTokens": 3`, `    }`}
	out := convert(t, settingsPath, four...)
	if len(out) != 3 || !strings.Contains(string(out[2].Entry.Payload), `"input_tokens":3`) {
		t.Errorf("a document indented by four spaces, flushed: %v", out)
	}
	out = convert(t, settingsPath, "{", `  "model": "gpt-5",`, `  "tokenUsage": {`)
	if len(out) != 2 || string(out[1].Entry.Payload) != `{"data":{"text":"{\n  \"model\": \"gpt-5\",\n  \"tokenUsage\": {\n"},"name":"droid/settings_text"}` {
		t.Errorf("a document cut short, flushed: %v", out)
	}
}

// A document read again makes the entries it made; written over, what
// changed: the settings event whenever anything did, the run only when
// the counts, the model or the date did. Each run has the session's
// usage_id: tape usage counts the largest, the last.
func TestSettingsIDs(t *testing.T) {
	t.Parallel()
	ids := func(lines []string) []string {
		var out []string
		for _, o := range convert(t, settingsPath, lines...) {
			out = append(out, o.Entry.ID)
		}
		return out
	}
	first := ids(doc(`"inputTokens": 100`))
	if again := ids(doc(`"inputTokens": 100`)); strings.Join(again, " ") != strings.Join(first, " ") {
		t.Errorf("read again: %v, then %v", first, again)
	}
	more := ids(doc(`"inputTokens": 180`))
	if more[0] != first[0] || more[1] == first[1] || more[2] == first[2] {
		t.Errorf("more tokens: %v, then %v", first, more)
	}
	later := doc(`"inputTokens": 100`)
	later[1] = `  "assistantActiveTimeMs": 2000,`
	if l := ids(later); l[1] == first[1] || l[2] != first[2] {
		t.Errorf("only the active time changed: %v, then %v", first, l)
	}
}

// Counts as ccusage 20.0.24 reads a tokenUsage: a whole number written as
// one, anything else 0 (a string, a fraction, an exponent, a negative);
// a document that counts no token makes no run; the run is dated by
// providerLockTimestamp, and one that is not a date is warned of.
func TestSettingsUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, usage string }{
		{"counts of every shape", `{"tokenUsage":{"inputTokens":"10","outputTokens":1.0,"cacheReadTokens":5e3,"cacheCreationTokens":-4,"thinkingTokens":7}}`,
			`"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"reasoning_output_tokens":7,"total_tokens":7}`},
		{"nothing counted", `{"tokenUsage":{"inputTokens":0,"outputTokens":1.5}}`, ""},
		{"usage a list", `{"tokenUsage":[1]}`, ""},
		{"no usage", `{"model":"gpt-5"}`, ""},
		{"a count no int64 holds", `{"tokenUsage":{"inputTokens":99999999999999999999,"outputTokens":2}}`,
			`"usage":{"input_tokens":0,"output_tokens":2,`},
	} {
		out := convert(t, settingsPath, tc.doc)
		switch {
		case tc.usage == "" && len(out) != 2:
			t.Errorf("%s: made %d entries, want no run", tc.name, len(out))
		case tc.usage != "" && (len(out) != 3 || !strings.Contains(string(out[2].Entry.Payload), tc.usage)):
			t.Errorf("%s: made %v, want a run with %s", tc.name, out, tc.usage)
		}
	}
	c, _ := newConverter(settingsPath, nil)
	out, err := c.Line(raw(1, `{"providerLockTimestamp":"yesterday","tokenUsage":{"inputTokens":1}}`))
	var w source.LineWarning
	if !errors.As(err, &w) || out[2].Entry.Date != "" || !strings.Contains(string(out[2].Entry.Meta), `"timestamp":"yesterday"`) {
		t.Errorf("a date that is not one: %v, %v", out, err)
	}
}

// The model a run names, as ccusage names a Droid model (each case as
// ccusage 20.0.24 named it, probed).
func TestModelName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, provider, want string }{
		{"custom:Claude-Opus-4.5-Thinking-[Anthropic]-0", "", "claude-opus-4-5-thinking-0"},
		{"Claude-Sonnet-4-[Anthropic]", "", "claude-sonnet-4"},
		{"gemini-2.5-pro", "", "gemini-2-5-pro"},
		{"custom:built-in model-[Z.AI]-0", "", "built-in-model-0"},
		{"custom:GPT 5.4  Fast-[OpenAI]-1", "", "gpt-5-4-fast-1"},
		{"Custom:ABC.D_e", "", "custom:abc-d_e"},
		{"a\tb\u00a0c", "", "a-b-c"},
		{"---", "openai", "gpt-unknown"},
		{"[x]", "openai", "gpt-unknown"},
		{"  ", "anthropic", "claude-unknown"},
		{"", "Claude", "claude-unknown"},
		{"", "GOOGLE_AI", "gemini-unknown"},
		{"", "Vertex-AI", "gemini-unknown"},
		{"", "x-ai", "grok-unknown"},
		{"", " openai ", "gpt-unknown"},
		{"", "generic-chat-completion-api", "unknown"},
		{"", "fireworks", "unknown"},
		{"", "", "unknown"},
	} {
		if got := modelName(tc.model, tc.provider); got != tc.want {
			t.Errorf("modelName(%q, %q) = %q, want %q", tc.model, tc.provider, got, tc.want)
		}
	}
}
