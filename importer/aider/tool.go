package aider

import (
	"regexp"
	"slices"
	"strings"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// editFailedRE reads the path of a block Aider could not apply, in its
// error (editblock_coder.apply_edits).
var editFailedRE = regexp.MustCompile(`(?m)^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$`)

// outputs collects the entries of a block of Aider's output, in order:
// its text between them as events, results as tool_result entries, and
// usage as run events.
type outputs struct {
	c       *chatConverter
	out     []source.Output
	text    []message // output not yet made an event
	results [][]byte  // results not yet made an entry
	first   int       // the line of the first of them
}

// output is a block of Aider's output: the result of the command typed
// just before it; "Applied edit to <path>" the result of the edits of
// that file; an edit error the result, failed, of the edits it names (of
// every edit waiting, when it names none); a "Tokens:" line a run event;
// and the rest, between them, "aider/output" events.
func (c *chatConverter) output(b *block) []source.Output {
	run := c.st.Run
	o := &outputs{c: c}
	msgs := b.messages()
	var an announcement
	for _, m := range msgs {
		an.read(m.text)
	}
	if an.model != "" {
		run.Model = an.model
	}
	if cmd := run.Command; cmd != "" {
		run.Command = ""
		var text []string
		for _, m := range msgs {
			if !o.usage(m) {
				text = append(text, m.text)
			}
		}
		if len(text) > 0 {
			o.addResult(msgs[0].no, result(cmd, strings.Join(text, "\n"), false))
		}
		return o.done()
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case o.usage(m):
		case o.applied(m):
		case len(run.Edits) > 0 && isEditError(m.text):
			var text []string
			for ; i < len(msgs); i++ {
				if !o.usage(msgs[i]) {
					text = append(text, msgs[i].text)
				}
			}
			o.editError(m.no, strings.Join(text, "\n"))
		default:
			o.flushResults()
			o.text = append(o.text, m)
		}
	}
	return o.done()
}

// usage makes a run event of a "Tokens:" message, and reports whether it
// was one.
func (o *outputs) usage(m message) bool {
	u, ok := readUsage(m.text)
	if !ok {
		return false
	}
	o.flushText()
	o.flushResults()
	o.out = append(o.out, o.c.run(m.no, u))
	return true
}

// applied makes "Applied edit to <path>" (and, with --dry-run, "Did not
// apply edit to <path> (--dry-run)") the result of the edits of that
// file that wait for one, and reports whether it was.
func (o *outputs) applied(m message) bool {
	path, ok := strings.CutPrefix(m.text, "Applied edit to ")
	if dry, isDry := strings.CutPrefix(m.text, "Did not apply edit to "); isDry {
		path, ok = strings.CutSuffix(dry, " (--dry-run)")
	}
	run := o.c.st.Run
	if !ok || !slices.ContainsFunc(run.Edits, func(e editCall) bool { return e.Path == path }) {
		return false
	}
	o.flushText()
	var left []editCall
	for _, e := range run.Edits {
		if e.Path == path {
			o.addResult(m.no, result(e.ID, m.text, false))
		} else {
			left = append(left, e)
		}
	}
	run.Edits = left
	return true
}

// isEditError reports whether a message of Aider's starts its error on
// an answer's edits.
func isEditError(text string) bool {
	return text == "The LLM did not conform to the edit format." ||
		strings.HasPrefix(text, "# ") && strings.Contains(text, " SEARCH/REPLACE block") && strings.Contains(text, " failed to match!")
}

// editError answers every edit waiting with Aider's error (text, from
// line n): failed, those of the files it names, or all of them when it
// names none.
func (o *outputs) editError(n int, text string) {
	o.flushText()
	var failed []string
	for _, m := range editFailedRE.FindAllStringSubmatch(text, -1) {
		failed = append(failed, strings.TrimSpace(m[1]))
	}
	run := o.c.st.Run
	for _, e := range run.Edits {
		o.addResult(n, result(e.ID, text, len(failed) == 0 || slices.Contains(failed, e.Path)))
	}
	run.Edits = nil
}

// result is one result of a tool_result entry.
func result(id, content string, failed bool) []byte {
	r := rawjson.NewObject().Str("tool_call_id", id).Str("content", content)
	if failed {
		r.True("is_error")
	}
	return r.Done()
}

func (o *outputs) addResult(n int, r []byte) {
	if len(o.results) == 0 {
		o.first = n
	}
	o.results = append(o.results, r)
}

// flushResults makes the results collected one tool_result entry.
func (o *outputs) flushResults() {
	if len(o.results) == 0 {
		return
	}
	payload := rawjson.NewObject().Raw("results", rawjson.Array(o.results...)).Done()
	o.out = append(o.out, o.c.entry(o.first, 0, tapelog.KindToolResult, payload))
	o.results = nil
}

// flushText makes the output collected one "aider/output" event.
func (o *outputs) flushText() {
	if len(o.text) == 0 {
		return
	}
	texts := make([]string, len(o.text))
	for i, m := range o.text {
		texts[i] = m.text
	}
	data := rawjson.NewObject().Str("text", strings.Join(texts, "\n")).Done()
	o.out = append(o.out, o.c.event(o.text[0].no, "aider/output", data))
	o.text = nil
}

func (o *outputs) done() []source.Output {
	o.flushText()
	o.flushResults()
	return o.out
}
