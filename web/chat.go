package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/views"
	"github.com/tape-dev/tape/views/calls"
)

// The chat a page of entries becomes: an item per entry, in tape order,
// with each tool call folded together with what answered it. Calls and
// results are paired by views/calls' fold, the rule of tape calls and the
// context, over the entries the page holds (a live page goes on folding
// what its stream brings).

// item is one entry as the page shows it.
type item struct {
	ID, Kind, Date string
	URL            string // the entry's stable link
	Role           string // a message's role
	Name           string // an anchor's or an event's name
	Text           string // a message's, a system entry's, thinking's or an error's text
	JSON           string // the payload, indented, when there is no text to show
	State          string // an anchor's state, indented; "" for none
	Summary        string // an event's one line, when it has one better than its JSON (a run's model and tokens)
	Calls          []*callView
	Results        []output // a tool_result's results that answer no call on the page
	Hidden         bool     // a tool_result whose every result is shown with its call
	folded         map[int]bool
	Dim            bool // thinking, events, system entries
	// Folded is how many bytes of its Text, JSON and State are not shown
	// (foldBytes), and Source the file and line that hold it whole.
	Folded int
	Source string
}

// callView is one tool call with its answer.
type callView struct {
	DOMID    string
	Name     string
	Status   string // pending, completed, failed
	Took     string // "" when unknown
	Args     output
	Output   output
	Answered bool
	ResultID string // the answering entry's id, a target of links to it
	Note     string // shown instead of the arguments and output (a live view's block too large for it)
}

// output is a text shown folded when it is long: its first lines, and
// the rest, up to foldBytes, on demand.
type output struct {
	Text  string
	Head  string // the first lines, when Long
	Long  bool
	Lines int
	// Folded is how many bytes of the text are not shown at all, and From
	// the file and line of the entry that holds them.
	Folded int
	From   string
}

// Outputs longer than this many lines or bytes show their head, folded.
const (
	longLines = 16
	longBytes = 2000
)

func newOutput(text string) output {
	o := output{}
	o.Text, o.Folded = fold(text)
	o.Lines = strings.Count(o.Text, "\n") + 1
	if o.Lines <= longLines && len(o.Text) <= longBytes {
		return o
	}
	o.Long = true
	head := o.Text
	if i := nthIndex(head, '\n', 8); i >= 0 {
		head = head[:i]
	}
	if len(head) > 600 {
		head = cutUTF8(head, 600)
	}
	o.Head = head
	return o
}

// nthIndex is the index of the nth c in s, -1 when s has fewer.
func nthIndex(s string, c byte, n int) int {
	at := -1
	for range n {
		i := strings.IndexByte(s[at+1:], c)
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	return at
}

// foldedOutput is the output of text of which folded bytes were left out
// already, from the entry at source.
func foldedOutput(text string, folded int, source string) output {
	o := newOutput(text)
	o.Folded += folded
	if o.Folded > 0 {
		o.From = source
	}
	return o
}

// cutUTF8 is s cut to at most n bytes, on a rune's boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// chat builds the items of a run of entries of one tape.
type chat struct {
	tape  string
	fold  calls.CallFold
	refs  int64
	items map[int64]*item // tool entries by their ref in the fold
	raws  map[int64]json.RawMessage
	// results are a tool entry's results by its ref, split once for the
	// calls that take them and the item that shows the rest.
	results map[int64][]json.RawMessage
	// changed are the calls answered by the last add, in items added
	// before it: a live page replaces them.
	changed []*callView
	seen    map[*callView]bool // calls of items added before the last add
	// targets are the calls that carry the id of the result they show,
	// by that id: the target of a link to the result, unless the result
	// shows itself.
	targets map[string]*callView
}

func newChat(tape string) *chat {
	return &chat{tape: tape, items: map[int64]*item{}, raws: map[int64]json.RawMessage{}, results: map[int64][]json.RawMessage{}, seen: map[*callView]bool{}, targets: map[string]*callView{}}
}

// add reads the next entries and returns their items; the calls of
// earlier items they answered are in c.changed.
func (c *chat) add(entries []tapelog.Entry) []*item {
	c.changed = nil
	for _, it := range c.items {
		for _, cv := range it.Calls {
			c.seen[cv] = true
		}
	}
	out := make([]*item, 0, len(entries))
	for _, e := range entries {
		out = append(out, c.item(e))
	}
	return out
}

// prune forgets the tool entries the fold holds no pending call of: a
// live stream's chat keeps what it may still pair, not all it sent.
func (c *chat) prune() {
	for ref, it := range c.items {
		if it.Kind != "tool_call" || !c.fold.IsPending(ref) {
			delete(c.items, ref)
			delete(c.raws, ref)
			delete(c.results, ref)
		}
	}
	clear(c.seen)
	clear(c.targets)
}

// pending reports whether a call of the entries added waits for its
// result.
func (c *chat) pending() bool {
	for ref, it := range c.items {
		if it.Kind == "tool_call" && c.fold.IsPending(ref) {
			return true
		}
	}
	return false
}

// finish settles the calls still pending after the last entry added.
func (c *chat) finish() { c.settle(c.fold.Flush()) }

func (c *chat) item(e tapelog.Entry) *item {
	it := &item{ID: e.ID, Kind: clip(e.Kind), Date: clip(e.Date), URL: entryURL(c.tape, e.ID), Source: source(e.Pos)}
	p := fill(it, e)
	var folded int
	it.Text, folded = fold(it.Text)
	it.Folded += folded
	it.Name, it.Role, it.Summary = clip(it.Name), clip(it.Role), clip(it.Summary)
	if views.IsToolKind(e.Kind) {
		c.tool(e, p, it)
	}
	return it
}

// source is where an entry is: its file in the workspace, and its line.
func source(p tapelog.Position) string {
	if p.Line == 0 {
		return p.Path()
	}
	return p.Path() + ":" + strconv.Itoa(p.Line)
}

// json is raw indented as the item shows it, what it folds counted.
func (it *item) json(raw json.RawMessage) string {
	s, folded := indent(raw, foldBytes)
	it.Folded += folded
	return s
}

// fill reads an entry's payload into its item, and returns it decoded.
func fill(it *item, e tapelog.Entry) map[string]any {
	p, _ := rawjson.DecodeObject(e.Payload) // encoding/json's map, in half its time

	// State and data are shown as written: decoded and encoded again,
	// numbers past 2^53 would round and keys reorder.
	var raw struct{ State, Data json.RawMessage }
	if e.Kind == tapelog.KindAnchor || e.Kind == tapelog.KindEvent {
		_ = json.Unmarshal(e.Payload, &raw)
	}
	switch e.Kind {
	case tapelog.KindAnchor:
		it.Name, _ = p["name"].(string)
		if st, ok := p["state"].(map[string]any); ok && len(st) > 0 {
			it.State = it.json(raw.State)
		}
	case tapelog.KindMessage:
		it.Role, _ = p["role"].(string)
		it.Text = views.MessageText(e.Payload)
		if it.Text == "" {
			it.JSON = it.json(e.Payload)
		}
	case tapelog.KindSystem:
		it.Dim, it.Text = true, views.MessageText(e.Payload)
		if it.Text == "" {
			it.JSON = it.json(e.Payload)
		}
	case tapelog.KindEvent:
		it.Dim = true
		it.Name, _ = p["name"].(string)
		it.Text = views.EventText(it.Name, p["data"])
		if it.Text == "" {
			it.JSON = it.json(raw.Data)
		}
		if run := views.ParseRun(e.Payload); run != nil {
			it.Summary = runSummary(run)
		}
	case tapelog.KindError:
		it.Text, _ = p["message"].(string)
		if it.Text == "" {
			it.JSON = it.json(e.Payload)
		}
	case "tool_call", "tool_result":
	default:
		it.JSON = it.json(e.Payload)
	}
	return p
}

// runSummary is a run event in a line: its model and the tokens it
// reported.
func runSummary(r *views.Run) string {
	parts := []string{cmp.Or(r.Model, "no model")}
	if r.Usage {
		parts = append(parts, fmt.Sprintf("%s tokens: %s in, %s out", wording.Thousands(r.Total), wording.Thousands(r.In), wording.Thousands(r.Out)))
		if r.CacheRead+r.CacheCreation > 0 {
			parts = append(parts, fmt.Sprintf("cache %s read, %s written", wording.Thousands(r.CacheRead), wording.Thousands(r.CacheCreation)))
		}
	}
	if r.Status != "" {
		parts = append(parts, r.Status)
	}
	return strings.Join(parts, " · ")
}

// tool folds a tool_call, tool_result or error entry.
func (c *chat) tool(e tapelog.Entry, p map[string]any, it *item) {
	c.refs++
	ref := c.refs
	c.items[ref], c.raws[ref] = it, e.Payload
	c.results[ref], _ = views.Results(e.Payload)
	var t *int64
	if !e.Pos.Time.IsZero() && e.Date != "" {
		ns := e.Pos.Time.UnixNano()
		t = &ns
	}
	if e.Kind == "tool_call" {
		for i, call := range views.Calls(e.Payload) {
			parts := views.ParseCall(call)
			args, folded := arguments(parts.Arguments)
			it.Calls = append(it.Calls, &callView{DOMID: fmt.Sprintf("c-%s-%d", url.PathEscape(e.ID), i), Name: clip(parts.Name),
				Status: calls.StatusPending, Args: foldedOutput(args, folded, it.Source)})
		}
	}
	c.settle(c.fold.Add(calls.ToolEntry{Ref: ref, Kind: e.Kind, Time: t, Facts: views.Extract(e.Kind, p, e.Meta)}))
	if e.Kind == "tool_result" {
		c.showUnanswered(ref, it)
	}
}

// settle writes what the fold settled into the calls' views.
func (c *chat) settle(done []calls.Call) {
	for _, call := range done {
		it := c.items[call.Entry]
		if it == nil || call.Index >= len(it.Calls) {
			continue
		}
		cv := it.Calls[call.Index]
		cv.Status = call.Status
		if call.ResultEntry == 0 {
			continue
		}
		cv.Answered = true
		if ms, ok := call.DurationMS(); ok {
			cv.Took = took(ms)
		}
		res := c.items[call.ResultEntry]
		if call.ResultIndex >= 0 && len(res.folded) == 0 { // one target per result entry (an error shows itself)
			cv.ResultID = res.ID
			c.targets[res.ID] = cv
		}
		if call.ResultIndex < 0 { // an error entry
			cv.Output = foldedOutput(cmp.Or(res.Text, res.JSON), res.Folded, res.Source)
		} else if rs := c.results[call.ResultEntry]; call.ResultIndex < len(rs) {
			text, folded := resultText(rs[call.ResultIndex])
			cv.Output = foldedOutput(text, folded, res.Source)
			markFolded(res, call.ResultIndex)
		}
		if c.seen[cv] {
			c.changed = append(c.changed, cv)
		}
	}
}

// markFolded notes that result i of a tool_result's item is shown with its
// call; the item hides once every result is.
func markFolded(res *item, i int) {
	if res.folded == nil {
		res.folded = map[int]bool{}
	}
	res.folded[i] = true
}

// showUnanswered fills a tool_result's item with the results no call on
// the page took, and hides it when there are none.
func (c *chat) showUnanswered(ref int64, it *item) {
	rs := c.results[ref]
	for i, r := range rs {
		if !it.folded[i] {
			text, folded := resultText(r)
			it.Results = append(it.Results, foldedOutput(text, folded, it.Source))
		}
	}
	it.Hidden = len(rs) > 0 && len(it.Results) == 0
	if cv := c.targets[it.ID]; cv != nil && !it.Hidden {
		cv.ResultID = "" // the entry shows itself, with its id
	}
	if len(rs) == 0 {
		it.JSON = it.json(c.raws[ref])
	}
}

// argumentsJSON is a call's arguments as JSON: OpenAI's, a JSON document
// in a string, as the document.
func argumentsJSON(raw json.RawMessage) json.RawMessage {
	if s, ok := rawjson.String(raw); ok && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return raw
}

// arguments are a call's arguments as text: their JSON indented, or a
// string that holds none as it is; and how many bytes the indented JSON
// left out.
func arguments(raw json.RawMessage) (string, int) {
	if len(raw) == 0 {
		return "", 0
	}
	a := argumentsJSON(raw)
	if s, ok := rawjson.String(a); ok {
		return s, 0
	}
	return indent(a, foldBytes)
}

// resultText is a result as text (views.ResultText), else its JSON
// indented; and how many bytes the indented JSON left out.
func resultText(raw json.RawMessage) (string, int) {
	if s, ok := views.ResultText(raw); ok {
		return s, 0
	}
	return indent(raw, foldBytes)
}

// took is a duration in milliseconds as a person reads it.
func took(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// The pages' URLs: a tape, an anchor, an entry.
func tapeURL(tape string) string { return "/t/" + url.PathEscape(tape) }

func anchorURL(tape, folder string) string { return tapeURL(tape) + "/a/" + url.PathEscape(folder) }

func entryURL(tape, id string) string { return tapeURL(tape) + "/e/" + url.PathEscape(id) }
