package amp

import (
	"encoding/json"
	"strconv"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// Amp recorded a thread's token usage two ways, and ccusage 20.0.24
// (`ccusage amp daily`) reads whichever a thread has:
//
//   - up to early 2026, a usage ledger, {"usageLedger": {"events": [{"id",
//     "timestamp", "model", "credits", "tokens": {"input", "output"},
//     "operationType" (inference, title-generation, course-correction,
//     subagent, oracle, codebase-search), "fromMessageId", "toMessageId",
//     "subagentThreadID", "toolUseID"}]}}: each event counts, its cache
//     reads and writes those of the assistant message toMessageId names;
//     the messages' own usage does not count;
//   - without a ledger (Amp of 2026 writes none), each assistant message's
//     usage, {"model", "inputTokens", "outputTokens",
//     "cacheCreationInputTokens", "cacheReadInputTokens",
//     "totalInputTokens", "timestamp", ...}, counts, when it has a
//     timestamp and a model.
//
// tape makes a run event of each usage ccusage counts, dated and counted
// as ccusage dates and counts it, so that `tape usage --by day` equals
// `ccusage amp daily`, and keeps each usage it does not count as an
// event amp/usage or amp/ledger.

// tokens are the counts of one usage.
type tokens struct{ in, out, cacheWrite, cacheRead, total uint64 }

// zero reports whether the usage counts nothing.
func (t tokens) zero() bool {
	return t.in == 0 && t.out == 0 && t.cacheWrite == 0 && t.cacheRead == 0 && t.total == 0
}

// withTotal is t as ccusage counts it: a total above the other counts,
// when the output count is 0, is output (a ledger event that gives only
// a total).
func (t tokens) withTotal() tokens {
	if t.out == 0 {
		if parts := t.in + t.cacheWrite + t.cacheRead; t.total > parts {
			t.out = t.total - parts
		}
	}
	return t
}

func (t tokens) object() json.RawMessage {
	return rawjson.NewObject().Int("input_tokens", int64(t.in)).Int("output_tokens", int64(t.out)).
		Int("cache_creation_input_tokens", int64(t.cacheWrite)).Int("cache_read_input_tokens", int64(t.cacheRead)).Done()
}

// ledger is a thread's usage ledger.
type ledger struct {
	events []ledgerEvent
	// What the thread's messages say of the events: the index of the
	// last message with each messageId (where its events' runs go), and
	// the cache counts of the last assistant message with it.
	lastAt map[int64]int
	cache  map[int64][2]uint64
	// answer says the last message with a messageId is an assistant's:
	// the events that end at it (its inference, a tool's subagent) go
	// after it; the others (a title's, a course correction's, which
	// name message 0) go after the thread's last message.
	answer map[int64]bool
}

type ledgerEvent struct {
	raw   []byte
	key   string // its id, else "#<index>"
	to    int64  // toMessageId; -1 for none
	date  string // its timestamp, when ccusage reads it
	model string
	t     tokens
	ok    bool // it has what ccusage counts: a date, a model, tokens
	done  bool // its entry was made
}

// floats reports whether an event's entry goes where its date puts it
// among the messages, not after the message it ends at.
func (l *ledger) floats(e *ledgerEvent) bool { return e.to < 0 || !l.answer[e.to] }

// readLedger reads the thread's usageLedger; false when it has no list of
// events (ccusage then counts the messages' usage).
func (m *mapping) readLedger(v []byte) bool {
	list := member(v, "events")
	if len(list) == 0 || list[0] != '[' {
		return false
	}
	l := &ledger{lastAt: map[int64]int{}, cache: map[int64][2]uint64{}, answer: map[int64]bool{}}
	rawjson.ArrayItems(list, func(raw []byte) {
		e := ledgerEvent{raw: source.Trim(raw), to: -1, key: "#" + strconv.Itoa(len(l.events))}
		ms := source.ObjectOf(raw)
		if id, ok := nonEmpty(lookup(ms, "id")); ok {
			e.key = id
		}
		if n, err := strconv.ParseInt(string(source.Trim(lookup(ms, "toMessageId"))), 10, 64); err == nil {
			e.to = n
		}
		d, okDate := usageDate(lookup(ms, "timestamp"))
		model, okModel := nonEmpty(lookup(ms, "model"))
		tk := source.Trim(lookup(ms, "tokens"))
		e.date, e.model = d, model
		e.ok = ms != nil && okDate && okModel && !absent(tk)
		e.t = tokens{in: count(member(tk, "input")), out: count(member(tk, "output")), total: count(member(tk, "total"))}
		l.events = append(l.events, e)
	})
	m.ledger = l
	return true
}

// prepare reads what the ledger's runs take of the messages.
func (l *ledger) prepare(messages []item) {
	if l == nil {
		return
	}
	for i, it := range messages {
		ms := source.ObjectOf(it.raw)
		n, err := strconv.ParseInt(string(source.Trim(lookup(ms, "messageId"))), 10, 64)
		if err != nil {
			continue
		}
		l.lastAt[n] = i
		role, _ := str(lookup(ms, "role"))
		l.answer[n] = role == "assistant"
		if role == "assistant" {
			u := lookup(ms, "usage")
			l.cache[n] = [2]uint64{count(member(u, "cacheCreationInputTokens")), count(member(u, "cacheReadInputTokens"))}
		}
	}
}

// dateFor is the date of the ledger's first event that ends at message
// id: the date of an assistant message whose usage has none.
func (l *ledger) dateFor(id int64) (string, bool) {
	if l == nil || id < 0 {
		return "", false
	}
	for _, e := range l.events {
		if e.to == id && e.date != "" {
			return e.date, true
		}
	}
	return "", false
}

// ledgerAfter makes the entries of the ledger's events that end at
// message id, after the last message with that id.
func (m *mapping) ledgerAfter(id int64, index int) {
	if m.ledger == nil || m.ledger.lastAt[id] != index || !m.ledger.answer[id] {
		return
	}
	for i := range m.ledger.events {
		if e := &m.ledger.events[i]; e.to == id && !e.done {
			m.ledgerEntry(e)
		}
	}
}

// ledgerBefore makes the entries of the events that end at no
// assistant's message and are dated before date (a message's): a tape
// orders a file's entries by the latest date before them, and a run
// counts on the day it sorts at.
func (m *mapping) ledgerBefore(date string) {
	if m.ledger == nil || date == "" {
		return
	}
	for i := range m.ledger.events {
		if e := &m.ledger.events[i]; !e.done && e.date != "" && e.date <= date && m.ledger.floats(e) {
			m.ledgerEntry(e)
		}
	}
}

// ledgerRest makes the entries of the events not made yet, after the
// thread's last message, in the ledger's order.
func (m *mapping) ledgerRest() {
	if m.ledger == nil {
		return
	}
	for i := range m.ledger.events {
		if e := &m.ledger.events[i]; !e.done {
			m.ledgerEntry(e)
		}
	}
}

// ledgerEntry makes an event's run: its input and output, and the cache
// counts of its message, as ccusage counts them; usage_id
// amp:<thread>:<event id>. An event ccusage does not count (no date, no
// model, no tokens, all 0) is kept as an event amp/ledger.
func (m *mapping) ledgerEntry(e *ledgerEvent) {
	e.done = true
	t := e.t
	if c, ok := m.ledger.cache[e.to]; ok && e.to >= 0 {
		t.cacheWrite, t.cacheRead = c[0], c[1]
	}
	t = t.withTotal()
	id := m.tid + "/ledger/" + e.key
	if !e.ok || t.zero() {
		date := e.date
		if date == "" {
			date = m.date
		}
		m.eventAt(id, "amp/ledger", compact(e.raw), date)
		return
	}
	data := rawjson.NewObject().Str("status", "ok").Str("model", e.model).Raw("usage", t.object())
	if c := member(e.raw, "credits"); !absent(c) {
		data.Raw("credits", compact(c))
	}
	if op, ok := str(member(e.raw, "operationType")); ok {
		data.StrIf("operation", op)
	}
	data.Raw("event", compact(e.raw)).Str("usage_id", "amp:"+m.tid+":"+e.key)
	m.eventAt(id, "run", data.Done(), e.date)
}

// usage maps an assistant message's usage: a run, when the thread has no
// ledger and ccusage counts it (a timestamp it reads, usage.timestamp
// else the message's; a model, usage.model else the message's; a count
// that is not 0), usage_id amp:<thread>:<message key>; else an event
// amp/usage. ok is false when the message has no usage.
func (m *mapping) usage(g *msg, usage []byte, stop, state string) bool {
	if absent(usage) {
		return false
	}
	id := m.tid + "/" + g.key + "/usage"
	var t tokens
	var ts, modelV, credits []byte
	rawjson.ObjectMembers(usage, func(k, v []byte) {
		switch string(k) {
		case "inputTokens":
			t.in = count(v)
		case "outputTokens":
			t.out = count(v)
		case "cacheCreationInputTokens":
			t.cacheWrite = count(v)
		case "cacheReadInputTokens":
			t.cacheRead = count(v)
		case "totalTokens":
			t.total = count(v)
		case "timestamp":
			ts = source.Trim(v)
		case "model":
			modelV = source.Trim(v)
		case "credits":
			credits = source.Trim(v)
		}
	})
	t = t.withTotal()
	if _, ok := nonEmpty(ts); !ok {
		ts = lookup(g.members, "timestamp")
	}
	model, ok := nonEmpty(modelV)
	if !ok {
		model, ok = nonEmpty(lookup(g.members, "model"))
	}
	date, okDate := usageDate(ts)
	if m.ledger != nil || !ok || !okDate || t.zero() {
		m.event(id, "amp/usage", compact(usage))
		return true
	}
	status := "ok"
	if state == "cancelled" || state == "error" {
		status = state
	}
	data := rawjson.NewObject().Str("status", status).Str("model", model).Raw("usage", t.object()).StrIf("stop_reason", stop)
	if !absent(credits) {
		data.Raw("credits", compact(credits))
	}
	data.Raw("message_usage", compact(usage)).Str("usage_id", "amp:"+m.tid+":"+g.key)
	m.emit(tapelog.Entry{ID: id, Kind: tapelog.KindEvent, Payload: source.NamedData("run", data.Done()), Date: date}, false, nil)
	return true
}
