//go:build postgres

package remote

import (
	"encoding/base64"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/tape-dev/tape/projector"
)

// A message with a screenshot of about 1 MB pasted in as a data: URL,
// then a rare word: the server finds the word, as the local index does,
// where the blob's tokens used to fill the entry's 512 KB of lexemes
// before it; and neither index finds a word of the blob.
func TestScreenshotSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 7))
	png := make([]byte, 768<<10)
	for i := range png {
		png[i] = byte(r.Uint32())
	}
	blob := base64.StdEncoding.EncodeToString(png)
	blobWord := regexp.MustCompile(`[+/]([A-Za-z0-9]{8,})[+/]`).FindStringSubmatch(blob[1000:])[1] // one token to both indexes
	ws := newWorkspace(t)
	appendEntry(t, ws, "main", "message", map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + blob}},
		map[string]any{"type": "text", "text": "the chart is blank: zorblaxian"},
	}})
	ix := openIndex(t, ws)
	conn := connect(t, server.DB(t))
	syncNow(t, ix, conn)
	for q, want := range map[string]int{"zorblaxian": 1, blobWord: 0, blobWord[:6] + "*": 0} {
		local, err := ix.Search(t.Context(), projector.SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		remote, err := Search(t.Context(), conn, SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(local) != want || len(remote) != want {
			t.Errorf("search %q: %d hits in the local index, %d on the server; want %d", q, len(local), len(remote), want)
		}
	}
}
