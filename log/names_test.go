package log

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSlug(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"slash", "session/start", "session-start"},
		{"plain", "review", "review"},
		{"spaces and punctuation", "plan: step 1!", "plan-step-1"},
		{"dot dot", "..", "anchor"},
		{"parent escape", "../../etc/passwd", "etc-passwd"},
		{"absolute", "/etc/cron.d/x", "etc-cron.d-x"},
		{"chinese kept", "审查/第一步", "审查-第一步"},
		{"nul and control", "a\x00b\nc\td", "a-b-c-d"},
		{"leading dot trimmed", ".hidden", "hidden"},
		{"only punctuation", "///", "anchor"},
		{"empty", "", "anchor"},
		{"underscore kept", "auto_handoff/context_overflow", "auto_handoff-context_overflow"},
		{"invalid utf8", "a\xffb", "a-b"},
		{"backslash", `a\b`, "a-b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Slug(tt.in); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSlugLength(t *testing.T) {
	got := Slug(strings.Repeat("错", 100)) // 300 bytes
	if len(got) > MaxNameBytes || !utf8.ValidString(got) {
		t.Errorf("Slug of a long name = %d bytes (valid UTF-8: %v), want at most %d", len(got), utf8.ValidString(got), MaxNameBytes)
	}
}

func TestValidateTapeName(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"main", "main", true},
		{"session tape", "be7c02414bd38019__f247c92535cc0807", true},
		{"chinese", "调试会话", true},
		{"inner space", "my tape", true},
		{"empty", "", false},
		{"dot", ".", false},
		{"dotdot", "..", false},
		{"parent", "../x", false},
		{"hidden", ".x", false},
		{"slash", "a/b", false},
		{"absolute", "/etc", false},
		{"backslash", `a\b`, false},
		{"nul", "a\x00b", false},
		{"newline", "a\nb", false},
		{"trailing space", "a ", false},
		{"invalid utf8", "a\xff", false},
		{"too long", strings.Repeat("a", MaxNameBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTapeName(tt.in)
			if (err == nil) != tt.ok {
				t.Errorf("ValidateTapeName(%q) = %v, want ok=%v", tt.in, err, tt.ok)
			}
		})
	}
}

func TestParseFolderName(t *testing.T) {
	tests := []struct {
		in   string
		seq  int64
		slug string
		ok   bool
	}{
		{"001_session-start", 1, "session-start", true},
		{"1000_x", 1000, "x", true},
		{"7_short", 7, "short", true},
		{"003_", 3, "", true},
		{"003_a_b", 3, "a_b", true},
		{"003", 0, "", false},
		{"_x", 0, "", false},
		{"0x1_x", 0, "", false},
		{"-01_x", 0, "", false},
		{".tmp-abc", 0, "", false},
		{"9223372036854775807_x", 9223372036854775807, "x", true},
		{"9999999999999999999_x", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			seq, slug, ok := ParseFolderName(tt.in)
			if seq != tt.seq || slug != tt.slug || ok != tt.ok {
				t.Errorf("ParseFolderName(%q) = %d, %q, %v; want %d, %q, %v", tt.in, seq, slug, ok, tt.seq, tt.slug, tt.ok)
			}
		})
	}
}

// FuzzSlug checks that no anchor name makes a folder name that leaves the
// anchors folder or does not parse back.
func FuzzSlug(f *testing.F) {
	for _, s := range []string{"session/start", "../..", "/abs", "a\x00b", "错误/重试", ".", "", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s := Slug(name)
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") || !utf8.ValidString(s) || len(s) > MaxNameBytes {
			t.Fatalf("Slug(%q) = %q: not a safe path component", name, s)
		}
		for _, r := range s {
			if unicode.IsControl(r) {
				t.Fatalf("Slug(%q) = %q: contains a control character", name, s)
			}
		}
		folder := FolderName(42, name)
		if !filepath.IsLocal(folder) || filepath.Base(folder) != folder {
			t.Fatalf("FolderName(42, %q) = %q: not a local single component", name, folder)
		}
		if seq, slug, ok := ParseFolderName(folder); !ok || seq != 42 || slug != s {
			t.Fatalf("ParseFolderName(%q) = %d, %q, %v; want 42, %q, true", folder, seq, slug, ok, s)
		}
	})
}

// FuzzValidateTapeName checks that every accepted tape name is one local
// path component.
func FuzzValidateTapeName(f *testing.F) {
	for _, s := range []string{"main", "..", "../x", "/etc", "a/b", "a\x00", "调试", " a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateTapeName(name) != nil {
			return
		}
		if !filepath.IsLocal(name) || filepath.Base(name) != name || strings.ContainsAny(name, "/\\\x00") || name[0] == '.' {
			t.Fatalf("ValidateTapeName accepted %q, which is not one safe path component", name)
		}
		root := "/ws/tapes"
		if got := filepath.Join(root, name); filepath.Dir(got) != root {
			t.Fatalf("tape %q resolves to %q, outside %s", name, got, root)
		}
	})
}

// FuzzHandoffName hands off with arbitrary anchor names and checks that the
// folder made is a direct child of the anchors folder, named by the slug.
func FuzzHandoffName(f *testing.F) {
	for _, s := range []string{"review", "../../../etc", "/abs/path", "a\x00b", "错误/重试", "..", "x/../../y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		ws := newTestWorkspace(t)
		a, err := mustTape(t, ws, "main").Handoff(context.Background(), name, nil)
		if err != nil {
			if !errors.Is(err, ErrBadName) {
				t.Fatalf("Handoff(%q): %v", name, err)
			}
			return
		}
		anchors := filepath.Join(ws.Dir(), "tapes", "main", "anchors")
		entries, err := os.ReadDir(anchors)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2 || entries[1].Name() != a.Folder || a.Folder != FolderName(2, name) {
			t.Fatalf("Handoff(%q) made %s; anchors holds %v", name, a.Folder, entries)
		}
		if a.Name != name {
			t.Fatalf("Handoff(%q) named the anchor %q", name, a.Name)
		}
		var files int
		filepath.WalkDir(filepath.Dir(ws.Dir()), func(string, os.DirEntry, error) error { files++; return nil })
		if files != 10 { // project, .tape, config.json, tapes, main, anchors, 2 folders, 2 anchor.json
			t.Fatalf("Handoff(%q) left %d paths in the project, want 10", name, files)
		}
	})
}

// Characters that print as nothing, or change how the text around them
// prints, make a name show as another: they are refused, and the error
// names the character.
func TestValidateTapeNameInvisible(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // in the error; "" for a valid name
	}{
		{"right-to-left override", "log\u202Egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE, a format character"},
		{"left-to-right mark", "a\u200Eb", "U+200E LEFT-TO-RIGHT MARK"},
		{"right-to-left isolate", "a\u2067b", "U+2067 RIGHT-TO-LEFT ISOLATE"},
		{"pop directional formatting", "a\u202Cb", "U+202C"},
		{"zero width space", "ma\u200Bin", "U+200B ZERO WIDTH SPACE"},
		{"zero width joiner", "a\u200Db", "U+200D ZERO WIDTH JOINER"},
		{"byte-order mark", "\uFEFFmain", "U+FEFF ZERO WIDTH NO-BREAK SPACE"},
		{"soft hyphen", "ma\u00ADin", "U+00AD SOFT HYPHEN"},
		{"tag character", "a\U000E0041", "U+E0041, a format character"},
		{"line separator inside", "a\u2028b", "U+2028 LINE SEPARATOR, a line or paragraph separator"},
		{"paragraph separator inside", "a\u2029b", "U+2029 PARAGRAPH SEPARATOR"},
		{"private use", "a\uE000b", "U+E000, a private-use character"},
		{"hangul filler", "a\u3164b", "U+3164 HANGUL FILLER, a character shown as nothing"},
		{"delete", "a\x7Fb", "U+007F, a control character"},
		{"next line", "a\u0085b", "U+0085, a control character"},
		{"bell", "a\ab", "U+0007, a control character"},
		{"replacement character", "a\uFFFDb", "U+FFFD REPLACEMENT CHARACTER"},
		{"arabic letters", "جلسة", ""},
		{"hebrew letters", "שיחה", ""},
		{"combining accent", "cafe\u0301", ""},
		{"emoji with a variation selector", "\u2764\uFE0F", ""},
		{"no-break space inside", "a\u00A0b", ""},
		{"ideographic space inside", "调试\u3000会话", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTapeName(tt.in)
			if tt.want == "" {
				if err != nil {
					t.Errorf("ValidateTapeName(%q) = %v, want it valid", tt.in, err)
				}
				return
			}
			if !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "use a name without it") {
				t.Fatalf("ValidateTapeName(%q) = %v; want it refused, naming %q, saying what to do", tt.in, err, tt.want)
			}
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return unsafeRune(r) != "" }) {
				t.Errorf("the error holds the character itself: %q", err.Error())
			}
		})
	}
}

// A tape folder made by hand with such a name is not a tape: not listed,
// not read by name (the error says why), and doctor says what to do.
func TestInvisibleTapeNameOnDisk(t *testing.T) {
	spoof := "main\u202Eevil"
	ws := openHandMade(t, map[string]string{
		"tapes/main/anchors/001_start/messages.jsonl":          `{"role":"user","content":"hi"}` + "\n",
		"tapes/" + spoof + "/anchors/001_start/messages.jsonl": `{"role":"user","content":"spoof"}` + "\n",
	})
	if names, err := ws.Tapes(); err != nil || len(names) != 1 || names[0] != "main" {
		t.Errorf("Tapes() = %q, %v; want only main", names, err)
	}
	if _, err := ws.Tape(spoof); !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), "U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Errorf("Tape(%q) = %v; want it refused, naming U+202E", spoof, err)
	}
	res, err := ws.CheckFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Check != CheckFolderName || !strings.Contains(res.Problems[0].Problem, "U+202E") {
		t.Errorf("doctor's problems: %+v; want the folder reported, naming U+202E", res.Problems)
	}
}

// tapeNameProblem passes printable ASCII without unsafeRune's tables:
// they must pass every such rune, and refuse DEL and the controls below
// the space, which the shortcut leaves to them.
func TestPrintableASCIIIsSafe(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		printable := r >= ' ' && r < 0x7f
		if safe := unsafeRune(r) == ""; safe != printable {
			t.Errorf("unsafeRune(%U) passes it: %v; printable ASCII: %v", r, safe, printable)
		}
	}
}
