package views_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"testing"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
)

// screenshotMessage is a user message with a screenshot of about 1 MB
// pasted in as a data: URL, followed by a rare word: the message as
// Claude Code's import writes one (docs/IMPORT.md), and a word of the
// blob, one token to both indexes.
func screenshotMessage() (payload json.RawMessage, word, blobWord string) {
	r := rand.New(rand.NewPCG(29, 7))
	png := make([]byte, 768<<10)
	for i := range png {
		png[i] = byte(r.Uint32())
	}
	blob := base64.StdEncoding.EncodeToString(png)
	payload, _ = json.Marshal(map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + blob}},
		map[string]any{"type": "text", "text": "the chart is blank: zorblaxian"},
	}})
	// A whole token: between two of the characters that split one.
	return payload, "zorblaxian", regexp.MustCompile(`[+/]([A-Za-z0-9]{8,})[+/]`).FindStringSubmatch(blob[1000:])[1]
}

// A screenshot's base64 is not searched: the words after it are found,
// and a word of the blob is not.
func TestScreenshotSearch(t *testing.T) {
	ws, _, err := tapelog.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tp, err := ws.Tape("main")
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	payload, word, blobWord := screenshotMessage()
	if _, err := tp.Append(context.Background(), tapelog.Entry{Kind: "message", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	ix, err := projector.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{word: 1, blobWord: 0, blobWord[:6] + "*": 0} {
		hits, err := ix.Search(context.Background(), projector.SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Errorf("search %q: %d hits, want %d", q, len(hits), want)
		}
	}
}
