package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/internal/wording"
	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
)

// SearchCmd is `tape search`.
type SearchCmd struct {
	Query    []string `arg:"" text:"" help:"Words to find (all of them), \"quoted phrases\", prefix*; after the first, a word that starts with - is a word (--no-ff), unless it is a flag below."`
	Kind     []string `short:"k" placeholder:"KIND" help:"Only entries of these kinds (repeat, or separate with commas)."`
	AllTapes bool     `name:"all-tapes" help:"Search every tape, not only the selected one (see 'tape --help': which tape)."`
	Anchor   string   `placeholder:"ANCHOR" help:"Only entries of anchors with this folder, seq, name or slug."`
	Since    string   `placeholder:"WHEN" help:"Only entries from this time on: RFC 3339 (2026-11-22T10:00:00Z, 2026-11-22) or a duration ago (90m, 2h, 3d, 1w)."`
	Until    string   `placeholder:"WHEN" help:"Only entries before this time, in the same forms."`
	Limit    int      `short:"n" default:"20" help:"At most this many results."`
	AllWords bool     `name:"all-words" help:"Only entries that hold every word: no relaxed pass (see below)."`
	Newest   bool     `help:"The newest matches first, by the time of the entry, rather than the best (\"ranked_by\": \"recency\")."`
	JSON     bool     `help:"One JSON object per result and line: id, tape, anchor, kind, date, snippet, rank, ranked_by, match, payload (with --remote: workspace)."`
	remoteFlags
}

func (c *SearchCmd) Help() string {
	return `Finds entries by their text: messages, tool calls and results, anchor names and
states, events and errors, in English, Chinese and Japanese alike. Words are
AND'ed; anything that is not a word is searched as literal text. A word also
finds the camelCase and PascalCase names it is part of (flush finds TestFlush,
handler finds newHandler), below the entries where it stands alone. When fewer entries than -n hold every word,
the entries that hold some of them follow, the most words first (the
relaxed pass; --json marks each hit "match": "all" or "some"; --all-words
lists only the first). Results are
ranked by bm25, best first; a query whose words have more than 2,000 matches
together (a common word, or a phrase of common words) lists the newest first
("ranked_by": "recency" in --json), by the time of the entry; a phrase of
common words across tapes lists what the index read last first (a rebuild
reads the tapes in name order): add --since or --tape to narrow it.
Exit status 1 when nothing matched, as grep.

A query is text: after its first word, a word that starts with - is a word
of the query (tape search git --no-ff finds "git --no-ff"), unless it is one
of the flags below, written as they are listed (--name, --name=VALUE, or -n
alone), which work before and after the query, as ripgrep's do. A query that
starts with -, or a word that is a flag, comes after --:
  tape search -- --no-ff
  tape search git -- --json

Without color, matches are shown as they are written; with color (on a
terminal, or --color=always), in bold red; --json marks them **like this**
in "snippet".

Examples:
  tape search flush timeout
  tape search 错误 --kind tool_result --since 2d
  tape search '"permission denied"' --all-tapes --json | jq -r .id`
}

func (c *SearchCmd) Validate() error {
	if c.Limit <= 0 {
		return usagef("--limit must be a positive number")
	}
	if c.Remote.on && c.AllTapes {
		return usagef("--remote searches every tape of every workspace; --tape or --workspace narrow it")
	}
	if c.Remote.on && c.Newest {
		return usagef("--newest orders this workspace's matches; the team's index ranks them as it does")
	}
	return c.remoteFlags.validate()
}

// appendSearchRecord appends the line `tape search --json` prints for a
// hit: an entry as `tape log --json` prints it, then "snippet", "rank" and
// "ranked_by". Its names are a contract; it is written as encoding/json
// writes a searchRecord (search_json_test.go), only faster.
func appendSearchRecord(dst []byte, h projector.Hit) []byte { return appendHit(dst, h, nil) }

// appendHit is appendSearchRecord with "workspace" after the entry's
// fields when workspace is not nil: the line of `tape search --remote
// --json`.
func appendHit(dst []byte, h projector.Hit, workspace *string) []byte {
	dst = records.NewEntry(h.Entry).AppendJSONFields(dst)
	if workspace != nil {
		dst = rawjson.AppendString(append(dst, `,"workspace":`...), *workspace)
	}
	dst = rawjson.AppendString(append(dst, `,"snippet":`...), h.Snippet)
	dst = rawjson.AppendFloat(append(dst, `,"rank":`...), h.Rank)
	dst = rawjson.AppendString(append(dst, `,"ranked_by":`...), h.RankedBy)
	dst = rawjson.AppendString(append(dst, `,"match":`...), cmp.Or(h.Match, projector.MatchAll)) // --remote's are all exact
	return append(dst, '}', '\n')
}

// errNoMatch makes the exit status 1, as grep's.
var errNoMatch = errors.New("no match")

func (c *SearchCmd) Run(env *Env, g *Globals) error {
	if c.Remote.on {
		return c.runRemote(env, g)
	}
	now := time.Now()
	q := projector.SearchQuery{Text: strings.Join(c.Query, " "), Kinds: splitKinds(c.Kind), Limit: c.Limit, Newest: c.Newest, Relax: !c.AllWords}
	var err error
	if q.Since, err = tapelog.ParseWhen(c.Since, now); err != nil {
		return usagef("--since: %v", err)
	}
	if q.Until, err = tapelog.ParseWhen(c.Until, now); err != nil {
		return usagef("--until: %v", err)
	}
	t, ix, closeAll, err := g.openSearchable(env, anyTapes, c.AllTapes)
	if err != nil {
		return err
	}
	defer closeAll()
	q.Tapes = tapesOf(t)
	// find searches and renders what it found, so that a search beside a
	// catch-up prints it as soon as the catch-up says it holds.
	find := func() (searchAnswer, error) {
		got, err := read.Search(env.Context(), ix, q, c.Anchor)
		if err != nil {
			return searchAnswer{}, anchorHint(err)
		}
		var out bytes.Buffer
		out.Grow(outputSize(got.Hits)) // grown as it is written, it was copied at every doubling
		if err := c.print(env, &out, got.Hits, nil); err != nil {
			return searchAnswer{}, err
		}
		return searchAnswer{matched: len(got.Hits) > 0, hits: len(got.Hits), some: some(got.Hits), more: got.More, out: out.Bytes(), unlisted: got.Unlisted}, nil
	}
	found, err := readFresh(env, g, ix, find)
	if errors.Is(err, projector.ErrEmptyQuery) {
		return usagef("%q has no word to search for", q.Text)
	}
	if err != nil {
		return err
	}
	warnUnlisted(env, found.unlisted)
	if !found.matched {
		hintDefaultOnly(env, g, ix.Workspace(), t, "was searched", "searches")
		return errNoMatch
	}
	switch {
	case found.some > 0 && found.some == found.hits:
		fmt.Fprintf(env.Stderr, "tape: no entry holds every word; %s some of them (--all-words: only entries with every word)\n", wording.Plural(found.some, "entry holds", "entries hold"))
	case found.some > 0:
		fmt.Fprintf(env.Stderr, "tape: %s with every word, then %s with some of them (--all-words: only the first)\n",
			wording.Plural(found.hits-found.some, "entry", "entries"), wording.Plural(found.some, "entry", "entries"))
	}
	if _, err := env.Stdout.Write(found.out); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if found.more {
		c.moreHits(env)
	}
	return nil
}

// moreHits tells a person, on stderr, that more entries match than the
// hits printed, as the lists' footers do: a search stops at -n, and
// without a word of it a cut list reads as the whole answer.
func (c *SearchCmd) moreHits(env *Env) {
	fmt.Fprintf(env.Stderr, "tape: the first %s; more match: -n %d for more\n", wording.Plural(c.Limit, "hit", "hits"), 2*c.Limit)
}

// outputSize is about the size of hits as printed: each payload (in
// JSON), its snippet and the fields around them.
func outputSize(hits []projector.Hit) int {
	n := 0
	for _, h := range hits {
		n += len(h.Entry.Payload) + len(h.Snippet) + 256
	}
	return n
}

// some counts the hits of the relaxed pass.
func some(hits []projector.Hit) int {
	n := 0
	for _, h := range hits {
		if h.Match == projector.MatchSome {
			n++
		}
	}
	return n
}

// searchAnswer is a search's hits as printed.
type searchAnswer struct {
	matched  bool
	hits     int  // printed
	some     int  // of them, of the relaxed pass
	more     bool // more entries match than the hits in out
	out      []byte
	unlisted []*tapelog.LineError // the tapes or folders it could not read
}

// print writes hits, as JSON lines or a table; workspaces, when not nil,
// are the workspace of each (--remote), printed first.
func (c *SearchCmd) print(env *Env, w io.Writer, hits []projector.Hit, workspaces []string) error {
	if c.JSON {
		out := newJSONLines(w)
		for i, h := range hits {
			var ws *string
			if workspaces != nil {
				ws = &workspaces[i]
			}
			if err := out.writeWith(func(b []byte) []byte { return appendHit(b, h, ws) }); err != nil {
				return err
			}
		}
		return nil
	}
	cols := []column{{}, {tight: true}, {tight: true, give: 1, min: 12}, {drop: 1}, {}, {give: 2, min: 24}}
	if workspaces != nil {
		cols = append([]column{{}}, cols...)
	}
	t := table{columns: cols}
	for i, h := range hits {
		e := h.Entry
		date := ""
		if e.Date != "" {
			date = shortDate(e.Date)
		}
		row := []cell{text(e.Pos.Tape), text(fmt.Sprintf("%03d", e.Pos.AnchorSeq)), text(e.Pos.Anchor), text(date), painted(kindColors[e.Kind], e.Kind),
			snippetCell(wording.Printable(h.Snippet))}
		if workspaces != nil {
			row = append([]cell{text(workspaces[i])}, row...)
		}
		t.add(row...)
	}
	return t.write(w, terminalColumns(env.Stdout), env.color)
}

// warnUnlisted says on stderr which of the searched tapes, or which of
// their anchor folders, could not be read at all: a search of the rest
// still answers, as ripgrep's does past a folder it cannot read, and 'tape
// doctor' says how to fix it.
func warnUnlisted(env *Env, unlisted []*tapelog.LineError) {
	for _, le := range unlisted {
		what := "its tape is not searched"
		if path.Base(le.Path) != "anchors" {
			what = "its entries are not searched"
		}
		fmt.Fprintf(env.Stderr, "tape: warning: %s; %s; see 'tape doctor'\n", wording.Printable(le.Error()), what)
	}
}
