package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read/records"
)

// searchRecord is what `tape search --json` printed through encoding/json
// before appendSearchRecord: the reference it must match byte for byte.
type searchRecord struct {
	records.Entry
	Snippet  string  `json:"snippet"`
	Rank     float64 `json:"rank"`
	RankedBy string  `json:"ranked_by"`
	Match    string  `json:"match"`
}

func TestAppendSearchRecordIsEncodingJSON(t *testing.T) {
	t.Parallel()
	entries := []tapelog.Entry{
		{ID: "01JD", Kind: "message", Date: "2026-11-23T18:00:00Z", Payload: json.RawMessage(`{"role":"user", "content":"发生了一个错误，请重试 <b>&</b>"}`),
			Pos: tapelog.Position{Tape: "main", Anchor: "review", Folder: "003_review", File: "messages.jsonl", AnchorSeq: 3, Line: 12}},
		{ID: "x\"\n", Kind: "tool_result", Payload: json.RawMessage(` {"results" : ["a\nb", "\u2028"]} `), Meta: json.RawMessage(`{"model":"m"}`),
			Pos: tapelog.Position{Tape: "t\u2029", Anchor: "start", Folder: "000_start", File: "tool_results.jsonl"}},
	}
	for _, e := range entries {
		for _, h := range []projector.Hit{
			{Entry: e, Rank: -3.0000001e-7, RankedBy: projector.RankedByBM25, Snippet: "**发生**了 \x01 \xff"},
			{Entry: e, Rank: 0, RankedBy: projector.RankedByRecency, Snippet: "…a **b** c…"},
			{Entry: e, Rank: -math.MaxFloat64, RankedBy: projector.RankedByBM25, Match: projector.MatchSome},
		} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(searchRecord{Entry: records.NewEntry(h.Entry), Snippet: h.Snippet, Rank: h.Rank, RankedBy: h.RankedBy, Match: cmp.Or(h.Match, projector.MatchAll)}); err != nil {
				t.Fatal(err)
			}
			if got := appendSearchRecord(nil, h); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("appendSearchRecord:\n got %s\nwant %s", got, want.Bytes())
			}
		}
	}
}

// tape search --newest lists the matches newest first, by their dates,
// whatever their rank; with --remote it is a usage error.
func TestSearchNewest(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	path := filepath.Join(dir, ".tape/tapes/main/anchors/001_session-start/messages.jsonl")
	lines := `{"id":"old","kind":"message","payload":{"role":"user","content":"deploy deploy deploy"},"date":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"id":"mid","kind":"message","payload":{"role":"user","content":"deploy it"},"date":"2026-02-01T00:00:00Z"}` + "\n" +
		`{"id":"new","kind":"message","payload":{"role":"user","content":"a deploy among many other words of a long message"},"date":"2026-03-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range jsonRecords(t, mustRun(t, dir, "search", "deploy", "--newest", "--json")) {
		ids = append(ids, r["id"].(string)+" "+r["ranked_by"].(string))
	}
	if want := []string{"new recency", "mid recency", "old recency"}; !slices.Equal(ids, want) {
		t.Fatalf("tape search --newest: %v; want %v", ids, want)
	}
	if best := jsonRecords(t, mustRun(t, dir, "search", "deploy", "--json")); best[0]["id"] != "old" {
		t.Fatalf("tape search without --newest lists %v first; want the best match, old", best[0]["id"])
	}
	if _, stderr, code := runTape(t, dir, "search", "deploy", "--newest", "--remote", "postgres://x/y"); code != exitUsage || !strings.Contains(stderr, "--newest") {
		t.Fatalf("--newest --remote: exit %d, %q; want a usage error", code, stderr)
	}
}

// When fewer entries than -n hold every word, tape search lists those that
// hold some of them after, marked "match": "some", and says so on stderr;
// --all-words lists only the first.
func TestSearchRelaxedPass(t *testing.T) {
	t.Parallel()
	dir := newCLIWorkspace(t)
	for _, text := range []string{"flush the buffer on timeout", "timeout in the parser", "flush timeout parser together", "nothing else"} {
		mustRun(t, dir, "append", "--kind", "message", `{"role":"user","content":"`+text+`"}`)
	}
	stdout, stderr, code := runTape(t, dir, "search", "flush", "timeout", "parser", "--json")
	var got []string
	for _, r := range jsonRecords(t, stdout) {
		got = append(got, r["match"].(string))
	}
	if code != exitOK || !slices.Equal(got, []string{"all", "some", "some"}) || !strings.Contains(stderr, "1 entry with every word, then 2 entries with some of them") {
		t.Fatalf("relaxed search: exit %d, matches %v, stderr %q", code, got, stderr)
	}
	stdout, stderr, _ = runTape(t, dir, "search", "flush", "timeout", "parser", "--json", "--all-words")
	if n := len(jsonRecords(t, stdout)); n != 1 || stderr != "" {
		t.Fatalf("--all-words: %d hits, stderr %q; want the one exact hit", n, stderr)
	}
	if _, stderr, _ := runTape(t, dir, "search", "parser", "zebra"); !strings.Contains(stderr, "no entry holds every word; 2 entries hold some of them") {
		t.Fatalf("words no entry holds together: stderr %q", stderr)
	}
	if _, _, code := runTape(t, dir, "search", "zebra", "yak"); code != exitNoMatch {
		t.Fatalf("words no entry holds: exit %d; want %d", code, exitNoMatch)
	}
}
