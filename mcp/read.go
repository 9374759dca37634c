package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tape-dev/tape/bub"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
	"github.com/tape-dev/tape/views"
)

// The tools that read entries: search, context, log, show, anchors.

// readOnly marks a tool that changes nothing.
var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

// Descriptions of the arguments several tools share.
const (
	tapeArg     = `The tape (session) to read; the tapes tool lists them. Left out: the workspace's default tape.`
	allTapesArg = `Read every tape, not one; not with "tape".`
	kindArg     = `Only entries of these kinds: message, tool_call, tool_result, event, error, system, anchor, or an agent's own.`
)

// Limits of the lists a call returns.
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 200
	defaultPage        = 50
	maxPage            = 1000
)

// checkLimit checks a limit argument: 0 is the default.
func checkLimit(n, def, most int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > most:
		return 0, fmt.Errorf("limit %d: want 1 to %d", n, most)
	}
	return n, nil
}

type searchArgs struct {
	Query    string   `json:"query" jsonschema:"Words to find (English, Chinese, Japanese); \"a quoted phrase\"; prefix* for words that start so. A word also finds the camelCase names it is part of. Entries with all the words come first; when they are fewer than limit, entries with some of them follow (match: some)."`
	Tape     string   `json:"tape,omitempty" jsonschema:"Search this tape only. Left out: the workspace's default tape, or every tape when there is no default tape."`
	AllTapes bool     `json:"all_tapes,omitempty" jsonschema:"Search every tape; not with \"tape\"."`
	Kind     []string `json:"kind,omitempty" jsonschema:"Only entries of these kinds: message, tool_call, tool_result, event, error, system, anchor, or an agent's own."`
	Since    string   `json:"since,omitempty" jsonschema:"Only entries from this time on: RFC 3339 (2026-11-22T10:00:00Z, 2026-11-22) or a duration ago (90m, 2h, 3d, 1w)."`
	Until    string   `json:"until,omitempty" jsonschema:"Only entries before this time, in the same forms as since."`
	Limit    int      `json:"limit,omitempty" jsonschema:"At most this many hits, 1 to 200 (default 20)."`
	AllWords bool     `json:"all_words,omitempty" jsonschema:"Only entries that hold every word: none of the entries with some of them."`
}

type hitRecord struct {
	ID        string  `json:"id"`
	Tape      string  `json:"tape"`
	Anchor    string  `json:"anchor"`
	AnchorSeq int64   `json:"anchor_seq"`
	Folder    string  `json:"folder" jsonschema:"the anchor's folder: what show's anchor argument takes"`
	Kind      string  `json:"kind"`
	Date      *string `json:"date"`
	Snippet   string  `json:"snippet" jsonschema:"the matching text, matches marked **like this**"`
	Rank      float64 `json:"rank" jsonschema:"bm25, lower is better; 0 when ranked by recency"`
	Match     string  `json:"match" jsonschema:"all: the entry holds every word of the query; some: only some of them (listed after, the most words first)"`
}

type searchResult struct {
	Hits     []hitRecord `json:"hits"`
	RankedBy string      `json:"ranked_by" jsonschema:"bm25 (best first), or recency (the latest indexed first: the query matched too many entries to rank)"`
	Warnings []string    `json:"warnings,omitempty" jsonschema:"tapes or anchors that could not be read, and were not searched"`
}

func (s *server) addSearch(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "search", Title: "Search the sessions", Annotations: readOnly,
		Description: `Find entries of past and current sessions by their text: messages, tool calls and results, anchor names and states, events and errors. Returns hits with their tape, anchor, id, date and a snippet, best first (bm25). Use it to recall what was decided, tried or said before; then read around a hit with show (tape and folder) or context.`},
		s.search)
}

func (s *server) search(ctx context.Context, a searchArgs) (searchResult, string, error) {
	now := time.Now()
	q := projector.SearchQuery{Text: a.Query, Kinds: a.Kind, Relax: !a.AllWords}
	var err error
	if q.Limit, err = checkLimit(a.Limit, defaultSearchLimit, maxSearchLimit); err != nil {
		return searchResult{}, "", err
	}
	if q.Since, err = tapelog.ParseWhen(a.Since, now); err != nil {
		return searchResult{}, "", fmt.Errorf("since: %w", err)
	}
	if q.Until, err = tapelog.ParseWhen(a.Until, now); err != nil {
		return searchResult{}, "", fmt.Errorf("until: %w", err)
	}
	tape, err := s.scope(a.Tape, tapelog.AnyTapes, a.AllTapes)
	if err != nil {
		return searchResult{}, "", err
	}
	if tape != "" {
		q.Tapes = []string{tape}
	}
	found, err := served(ctx, s, func(ix *projector.Projector) (read.Found, error) {
		return read.Search(ctx, ix, q, "")
	})
	if errors.Is(err, projector.ErrEmptyQuery) {
		return searchResult{}, "", fmt.Errorf("query %q has no word to search for", a.Query)
	}
	if err != nil {
		return searchResult{}, "", err
	}
	res := searchResult{Hits: []hitRecord{}, RankedBy: projector.RankedByBM25}
	var text strings.Builder
	for _, le := range found.Unlisted {
		res.Warnings = append(res.Warnings, message(le)+"; not searched; tape doctor says more")
		fmt.Fprintf(&text, "warning: %s\n", res.Warnings[len(res.Warnings)-1])
	}
	hits := found.Hits
	for _, h := range hits {
		e := h.Entry
		if r := s.opts.Redactor; r != nil {
			h.Snippet = r.Snippet(h.Snippet, e) // cut by the snippet, a secret is no secret to the rules
		}
		res.Hits = append(res.Hits, hitRecord{ID: e.ID, Tape: e.Pos.Tape, Anchor: e.Pos.Anchor, AnchorSeq: e.Pos.AnchorSeq, Folder: e.Pos.Folder,
			Kind: e.Kind, Date: records.Optional(e.Date), Snippet: h.Snippet, Rank: h.Rank, Match: h.Match})
		if h.Match == projector.MatchAll {
			res.RankedBy = h.RankedBy
		}
		some := ""
		if h.Match == projector.MatchSome {
			some = " (some of the words)"
		}
		fmt.Fprintf(&text, "%s  %s  %s  %s  %s%s: %s\n", e.Pos.Tape, e.Pos.Folder, e.Date, e.ID, e.Kind, some, wording.OneLine(h.Snippet, 0))
	}
	if len(hits) == 0 {
		text.WriteString("no entry matches")
		if n := s.defaultOnly(a.Tape, tape); n > 0 {
			fmt.Fprintf(&text, " in tape %s, the default tape; all_tapes searches all %d tapes", tape, n)
		}
		text.WriteString("\n")
	}
	return res, text.String(), nil
}

type contextArgs struct {
	Tape      string `json:"tape,omitempty" jsonschema:"The tape (session) to read; the tapes tool lists them. Left out: the workspace's default tape."`
	Anchor    string `json:"anchor,omitempty" jsonschema:"Start after this anchor: its name (the last anchor of that name), folder (003_plan), seq or slug. \"last\" or left out: after the last anchor, the current phase."`
	All       bool   `json:"all,omitempty" jsonschema:"The whole tape, every anchor included as a message; not with anchor."`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"Keep the newest messages that fit in about this many tokens (an estimate that runs above real tokenizers), dropping the oldest first; a tool call is never separated from its results, and the newest anchor's state message is always kept. Left out: every message."`
}

type contextResult struct {
	Tape       string            `json:"tape"`
	Messages   []json.RawMessage `json:"messages" jsonschema:"the chat messages, in the OpenAI shape ({role, content}, tool_calls, tool_call_id), ready to send as a model's messages"`
	Dropped    int               `json:"dropped" jsonschema:"entries whose messages were dropped to fit max_tokens"`
	Estimate   int               `json:"estimate" jsonschema:"about how many tokens the messages cost a model: one per CJK character, one per 3 bytes of anything else of their JSON, which runs above real tokenizers"`
	MaxTokens  int               `json:"max_tokens,omitempty" jsonschema:"the budget, when max_tokens was given"`
	OverBudget bool              `json:"over_budget" jsonschema:"the anchor's state message, always kept, alone exceeds max_tokens"`
	Warnings   []string          `json:"warnings,omitempty" jsonschema:"lines of these anchors that could not be read, and were left out"`
}

func (s *server) addContext(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "context", Title: "The chat messages of a phase", Annotations: readOnly,
		Description: `The chat messages an agent sends its model, rebuilt from a tape as the Bub agent framework builds them: anchors as assistant notes with their state, messages as they are, tool calls as assistant messages with tool_calls, each result as a tool message paired with its call. By default the entries after the last anchor: the current phase. Use it to pick up a session where it was left, within max_tokens.`},
		s.context)
}

func (s *server) context(ctx context.Context, a contextArgs) (contextResult, string, error) {
	if a.All && a.Anchor != "" {
		return contextResult{}, "", errors.New(`"all" reads the whole tape; give it or "anchor", not both`)
	}
	if a.MaxTokens < 0 {
		return contextResult{}, "", fmt.Errorf("max_tokens %d: want a positive number of tokens", a.MaxTokens)
	}
	if a.Anchor == "last" {
		a.Anchor = ""
	}
	tape, err := s.scope(a.Tape, tapelog.OneTape, false)
	if err != nil {
		return contextResult{}, "", err
	}
	got, err := served(ctx, s, func(ix *projector.Projector) (read.Context, error) {
		got, err := read.ReadContext(ctx, ix, tape, a.Anchor, a.All)
		return got, anchorHint(err)
	})
	if err != nil {
		return contextResult{}, "", err
	}
	fit := fitTokens(bub.Context(got.Entries), a.MaxTokens)
	res := contextResult{Tape: tape, Messages: []json.RawMessage{}, Dropped: fit.Dropped, Estimate: fit.Estimate, MaxTokens: fit.MaxTokens, OverBudget: fit.OverBudget(), Warnings: warnings(got.Unread)}
	for _, m := range fit.Messages {
		raw, err := m.MarshalJSON()
		if err != nil {
			return contextResult{}, "", err
		}
		res.Messages = append(res.Messages, raw)
	}
	text, err := marshal(res.Messages)
	return res, string(text), err
}

// fitTokens is the context under max_tokens (bub.FitTokens, as tape
// context --max-tokens has it), or, with no budget (0), all of it with its
// estimate.
func fitTokens(msgs []bub.Message, maxTokens int) bub.Fitted {
	if maxTokens > 0 {
		return bub.FitTokens(msgs, maxTokens)
	}
	f := bub.Fitted{Messages: msgs}
	for _, m := range msgs {
		f.Estimate += bub.EstimateTokens(m)
	}
	return f
}

type logArgs struct {
	Tape   string   `json:"tape,omitempty" jsonschema:"The tape (session) to read; the tapes tool lists them. Left out: the workspace's default tape."`
	Anchor string   `json:"anchor,omitempty" jsonschema:"Start at this anchor (name, folder, seq or slug) and read to the end of the tape. Left out: the current (last) anchor."`
	All    bool     `json:"all,omitempty" jsonschema:"The whole tape; not with anchor."`
	Kind   []string `json:"kind,omitempty" jsonschema:"Only entries of these kinds: message, tool_call, tool_result, event, error, system, anchor, or an agent's own."`
	Limit  int      `json:"limit,omitempty" jsonschema:"At most this many entries, 1 to 1000 (default 50): the newest of them, in tape order."`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of a previous call with the same arguments: the page of entries before that one."`
}

type showArgs struct {
	Tape   string   `json:"tape,omitempty" jsonschema:"The tape (session) to read; the tapes tool lists them. Left out: the workspace's default tape."`
	Anchor string   `json:"anchor" jsonschema:"The anchor: its folder (002_plan), seq (2), name or slug; a name several anchors share means the last of them."`
	Kind   []string `json:"kind,omitempty" jsonschema:"Only entries of these kinds: message, tool_call, tool_result, event, error, system, anchor, or an agent's own."`
	Limit  int      `json:"limit,omitempty" jsonschema:"At most this many entries, 1 to 1000 (default 50): the newest of them, in tape order."`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of a previous call with the same arguments: the page of entries before that one."`
}

type entriesResult struct {
	Tape       string          `json:"tape"`
	Entries    []records.Entry `json:"entries" jsonschema:"in tape order, the anchor's own entry first"`
	Total      int             `json:"total" jsonschema:"how many entries the arguments select, in all pages"`
	NextCursor string          `json:"next_cursor,omitempty" jsonschema:"pass it as cursor for the entries before these; absent on the first page"`
	Warnings   []string        `json:"warnings,omitempty" jsonschema:"lines of these anchors that could not be read, and were skipped"`
}

func (s *server) addLog(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "log", Title: "Read a tape's entries", Annotations: readOnly,
		Description: `The entries of a tape, in tape order, a page at a time: by default those of its current (last) anchor, the newest page first; with anchor, from that anchor to the end; with all, the whole tape. Each entry has its id, kind, date, payload and meta. next_cursor pages back to older entries.`},
		func(ctx context.Context, a logArgs) (entriesResult, string, error) {
			if a.All && a.Anchor != "" {
				return entriesResult{}, "", errors.New(`"all" reads the whole tape; give it or "anchor", not both`)
			}
			return s.entries(ctx, a.Tape, a.Kind, a.Limit, a.Cursor, read.Pick{All: a.All, From: a.Anchor})
		})
}

func (s *server) addShow(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "show", Title: "Read one anchor's entries", Annotations: readOnly,
		Description: `The entries of one anchor (phase) of a tape, starting with the anchor itself, in tape order, a page at a time (the newest page first; next_cursor pages back). Use it to read around a search hit: pass the hit's tape and folder.`},
		func(ctx context.Context, a showArgs) (entriesResult, string, error) {
			if a.Anchor == "" {
				return entriesResult{}, "", errors.New(`"anchor" is required: its folder, seq, name or slug; the anchors tool lists them`)
			}
			return s.entries(ctx, a.Tape, a.Kind, a.Limit, a.Cursor, read.Pick{One: a.Anchor})
		})
}

// entries reads a page of the entries of the anchors p picks, of
// the given kinds. Pages count from the tape's first entry, so appends
// never move one: a call without cursor gets the last page (the newest
// entries), and next_cursor, the offset where it starts, gets the page
// before it.
func (s *server) entries(ctx context.Context, name string, kinds []string, limit int, cursor string, p read.Pick) (entriesResult, string, error) {
	limit, err := checkLimit(limit, defaultPage, maxPage)
	if err != nil {
		return entriesResult{}, "", err
	}
	end := -1 // the page ends where the entries do
	if cursor != "" {
		if end, err = strconv.Atoi(cursor); err != nil || end < 1 {
			return entriesResult{}, "", fmt.Errorf("cursor %q: pass next_cursor as a previous call returned it", cursor)
		}
	}
	tape, err := s.scope(name, tapelog.OneTape, false)
	if err != nil {
		return entriesResult{}, "", err
	}
	res, err := served(ctx, s, func(ix *projector.Projector) (entriesResult, error) {
		pg := views.Page{Limit: limit, Offset: -limit}
		if end > 0 {
			pg = views.Page{Limit: min(limit, end), Offset: max(0, end-limit)}
		}
		got, err := read.EntryPage(ctx, ix, read.EntryQuery{Tape: tape, Pick: p, Kinds: kinds}, pg)
		if err != nil {
			return entriesResult{}, anchorHint(err)
		}
		res := entriesResult{Tape: tape, Entries: make([]records.Entry, 0, len(got.Entries)), Total: got.Total, Warnings: warnings(got.Unread())}
		for _, e := range got.Entries {
			res.Entries = append(res.Entries, records.NewEntry(e))
		}
		if got.Start > 0 {
			res.NextCursor = strconv.Itoa(got.Start)
		}
		return res, nil
	})
	if err != nil {
		return entriesResult{}, "", err
	}
	text := jsonLines(res.Entries)
	if res.NextCursor != "" {
		text += fmt.Sprintf("(%d of %d entries; cursor %s reads the ones before)\n", len(res.Entries), res.Total, res.NextCursor)
	}
	return res, text, nil
}

// anchorHint says what to do of an anchor a call named that is not
// there; any other error (nil too) it returns as it is.
func anchorHint(err error) error {
	if errors.Is(err, tapelog.ErrNoAnchor) {
		return fmt.Errorf("%w; the anchors tool lists them", err)
	}
	return err
}

// warnings are the lines a read could not read (read.Entries.Unread), as
// a result gives them.
func warnings(unread []error) []string {
	var out []string
	for _, err := range unread {
		out = append(out, message(err)+"; skipped")
	}
	return out
}

type anchorsArgs struct {
	Tape string `json:"tape,omitempty" jsonschema:"The tape (session) to read; the tapes tool lists them. Left out: the workspace's default tape."`
}

type anchorsResult struct {
	Tape    string           `json:"tape"`
	Anchors []records.Anchor `json:"anchors" jsonschema:"in order, the current (last) one last"`
}

func (s *server) addAnchors(srv *sdk.Server) error {
	return addTool(srv, &sdk.Tool{Name: "anchors", Title: "List a tape's anchors", Annotations: readOnly,
		Description: `The anchors (phases) of a tape in order: each one's name, seq, folder, date, the state its handoff carried (a summary, what comes next) and how many entries it holds. The last is the current phase.`},
		s.anchors)
}

func (s *server) anchors(ctx context.Context, a anchorsArgs) (anchorsResult, string, error) {
	tape, err := s.scope(a.Tape, tapelog.OneTape, false)
	if err != nil {
		return anchorsResult{}, "", err
	}
	res, err := served(ctx, s, func(ix *projector.Projector) (anchorsResult, error) {
		anchors, err := read.ListAnchors(ctx, ix, tape)
		return anchorsResult{Tape: tape, Anchors: anchors}, err
	})
	if err != nil {
		return anchorsResult{}, "", err
	}
	var text strings.Builder
	for _, an := range res.Anchors {
		date := ""
		if an.Date != nil {
			date = *an.Date
		}
		fmt.Fprintf(&text, "%s  %s  %s  %s", an.Folder, an.Name, wording.Plural(an.Entries, "entry", "entries"), date)
		if state := string(an.State); state != "{}" {
			fmt.Fprintf(&text, "  state %s", state)
		}
		text.WriteString("\n")
	}
	return res, text.String(), nil
}
