package log

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/wording"
)

// A symlink in the tapes folder is not a tape, and not silently: doctor
// and UnreadTapeFolders report it with the fix that fits where it points
// (out of the workspace, to another tape, to nothing), and reading or
// writing the tape of its name fails with ErrTapeSymlink and that fix,
// where before an append went through to the other tape.
func TestSymlinkedTapeFolder(t *testing.T) {
	ws := openHandMade(t, map[string]string{
		"tapes/main/anchors/001_start/messages.jsonl": `{"role":"user","content":"hi"}` + "\n",
	})
	outside := filepath.Join(t.TempDir(), "x")
	writeTestFile(t, filepath.Join(outside, "anchors/001_start/messages.jsonl"), `{"role":"user","content":"elsewhere"}`+"\n")
	tapes := filepath.Join(ws.Dir(), "tapes")
	for link, target := range map[string]string{"x": outside, "alias": "main", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(tapes, link)); err != nil {
			t.Fatal(err)
		}
	}
	mainFile := filepath.Join(tapes, "main/anchors/001_start/messages.jsonl")
	before, _ := os.ReadFile(mainFile)

	if names, err := ws.Tapes(); err != nil || !slices.Equal(names, []string{"main"}) {
		t.Errorf("Tapes() = %q, %v; want only main", names, err)
	}
	fixes := map[string]string{
		"tapes/x":        "mv " + wording.ShellQuote(outside) + " " + wording.ShellQuote(filepath.Join(tapes, "x")),
		"tapes/alias":    "it is tape main, which is read under that name: remove the link",
		"tapes/dangling": "it leads to no folder: remove it",
	}
	unread, err := ws.UnreadTapeFolders()
	if err != nil {
		t.Fatal(err)
	}
	res, err := ws.CheckFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, problems := range [][]Problem{unread, res.Problems} {
		if len(problems) != len(fixes) {
			t.Errorf("problems %+v; want the %d symlinks", problems, len(fixes))
		}
		for _, p := range problems {
			if p.Check != CheckFolderName || !strings.Contains(p.Problem, "symlink") || !strings.Contains(p.Fix, fixes[p.Path]) {
				t.Errorf("problem %+v; want a folder_name symlink with the fix %q", p, fixes[p.Path])
			}
		}
	}

	ctx := context.Background()
	for _, name := range []string{"x", "alias"} {
		tp := mustTape(t, ws, name)
		if _, err := tp.Exists(); !errors.Is(err, ErrTapeSymlink) || !strings.Contains(err.Error(), fixes["tapes/"+name]) {
			t.Errorf("%s: Exists() = %v; want ErrTapeSymlink with its fix", name, err)
		}
		if _, err := tp.Anchors(); name == "x" && !errors.Is(err, ErrTapeSymlink) {
			t.Errorf("%s: Anchors() = %v; want ErrTapeSymlink", name, err)
		}
		if _, err := tp.Append(ctx, msg("through the link")); !errors.Is(err, ErrTapeSymlink) {
			t.Errorf("%s: Append = %v; want ErrTapeSymlink", name, err)
		}
		if _, err := tp.Handoff(ctx, "next", nil); !errors.Is(err, ErrTapeSymlink) {
			t.Errorf("%s: Handoff = %v; want ErrTapeSymlink", name, err)
		}
	}
	if after, _ := os.ReadFile(mainFile); string(after) != string(before) {
		t.Errorf("tape main changed through a symlink: %q", after)
	}
	if fis, _ := os.ReadDir(filepath.Join(tapes, "main/anchors")); len(fis) != 1 {
		t.Errorf("tape main has %d anchor folders; a handoff went through the link", len(fis))
	}
}
