package web

import "testing"

// A transcript's tags are escaped wherever CommonMark does not read a code
// fence, and kept as written where it does.
func TestMarkdownTextEscapesOutsideFences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"<img src=x>", "&lt;img src=x>"},
		{"```\n<b>code</b>\n```\n<b>x</b>", "```\n<b>code</b>\n```\n&lt;b>x&lt;/b>"},
		{"```go``` inline\n<img src=x onerror=y>", "```go``` inline\n&lt;img src=x onerror=y>"},                                    // not a fence: a backtick in its info
		{"    ```\n</details><img src=x>", "    ```\n&lt;/details>&lt;img src=x>"},                                                 // four spaces in: code, not a fence
		{"~~~~\n<b>a</b>\n~~~\n<b>still code</b>\n~~~~\n<b>x</b>", "~~~~\n<b>a</b>\n~~~\n<b>still code</b>\n~~~~\n&lt;b>x&lt;/b>"}, // closed by as many or more
		{"```\n<b>open</b>", "```\n<b>open</b>\n```"},
	} {
		if got := mdText(tc.in); got != tc.want {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
