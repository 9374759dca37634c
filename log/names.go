package log

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds tape names and anchor slugs, well under the 255-byte
// limit most file systems put on one path component.
const MaxNameBytes = 120

// ErrBadName is wrapped by every error about a name that cannot be used.
var ErrBadName = errors.New("log: bad name")

// ValidateTapeName reports whether name can be a tape (or fork) folder name.
//
// Tape names are identifiers that users type and scripts compare, so they are
// refused rather than rewritten: two different names must never map to the
// same folder. A valid name is 1 to MaxNameBytes bytes of UTF-8 with no path
// separator, no leading dot (dot names are reserved for temporary files), no
// leading or trailing space, and no character that prints as nothing or
// changes how the text around it prints (unsafeRune): a name with U+202E
// RIGHT-TO-LEFT OVERRIDE shows as another name in a terminal. A folder
// under .tape/tapes whose name is refused is not a tape: it is not listed
// or read, and tape doctor says why.
func ValidateTapeName(name string) error {
	why, char := tapeNameProblem(name)
	if char {
		why += ": use a name without it (a folder under .tape/tapes so named is not read until it is renamed)"
	}
	if why != "" {
		return fmt.Errorf("%w: tape name %s %s", ErrBadName, quoteName(name), why)
	}
	return nil
}

// quoteName quotes name as %q does, with every character unsafeRune
// refuses escaped too: %q keeps those Go calls printable, U+3164 HANGUL
// FILLER among them.
func quoteName(name string) string {
	q := strconv.Quote(name)
	if !strings.ContainsFunc(q, func(r rune) bool { return unsafeRune(r) != "" }) {
		return q
	}
	var b strings.Builder
	for _, r := range q {
		switch {
		case unsafeRune(r) == "":
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// tapeNameProblem says what makes name no tape name, or "" if it is one,
// and whether that is a character it holds.
func tapeNameProblem(name string) (why string, char bool) {
	switch {
	case name == "":
		return "is empty", false
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("is longer than %d bytes", MaxNameBytes), false
	case !utf8.ValidString(name):
		return "is not valid UTF-8", false
	case strings.ContainsAny(name, `/\`):
		return "contains a path separator", false
	case name[0] == '.':
		return "starts with a dot", false
	case strings.TrimSpace(name) != name:
		return "starts or ends with a space", false
	}
	for _, r := range name {
		if r >= ' ' && r < 0x7f {
			// Printable ASCII, which unsafeRune passes: its tables were
			// 0.55 of the 0.65 µs a 15-byte name took, and listings
			// check every tape's name.
			continue
		}
		if what := unsafeRune(r); what != "" {
			return fmt.Sprintf("contains %s, %s", runeName(r), what), true
		}
	}
	return "", false
}

// runeName is r as U+XXXX, with its Unicode name if it is one of the
// invisible characters a name is most often spoofed with.
func runeName(r rune) string {
	names := map[rune]string{
		0x00AD: "SOFT HYPHEN", 0x061C: "ARABIC LETTER MARK", 0x180E: "MONGOLIAN VOWEL SEPARATOR",
		0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
		0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
		0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
		0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
		0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR", 0x2060: "WORD JOINER",
		0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE",
		0x2069: "POP DIRECTIONAL ISOLATE", 0x3164: "HANGUL FILLER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
		0xFFFD: "REPLACEMENT CHARACTER",
	}
	if name, ok := names[r]; ok {
		return fmt.Sprintf("%U %s", r, name)
	}
	return fmt.Sprintf("%U", r)
}

// unsafeRune says what r is if it has no place in a name that people read
// and compare, or "": a control character (Cc), a format character (Cf:
// bidi controls, zero-width spaces and joiners, the byte-order mark), a
// line or paragraph separator (Zl, Zp), a private-use character (Co), one
// Unicode says to ignore when shown (U+3164 HANGUL FILLER), and U+FFFD,
// which stands for bytes that were not UTF-8.
func unsafeRune(r rune) string {
	switch {
	case unicode.IsControl(r):
		return "a control character"
	case unicode.Is(unicode.Cf, r):
		return "a format character, invisible or changing how the text around it shows (as bidi controls do)"
	case unicode.In(r, unicode.Zl, unicode.Zp):
		return "a line or paragraph separator"
	case unicode.Is(unicode.Co, r):
		return "a private-use character"
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
		return "a character shown as nothing"
	case r == utf8.RuneError:
		return "which stands for bytes that were not UTF-8"
	}
	return ""
}

// Slug turns an anchor name into the file-safe part of its folder name:
// "session/start" becomes "session-start". Letters and digits of any script
// are kept, so Chinese names stay readable under ls; '-', '_' and '.' are
// kept; every other rune (separators, spaces, punctuation, control
// characters) becomes '-'. Runs of '-' collapse, '-' and '.' are trimmed from
// both ends, and the result is cut to MaxNameBytes on a rune boundary. A name
// with nothing left becomes "anchor".
//
// Slug never returns "", ".", "..", or a string containing '/' or NUL, so a
// folder named after it cannot leave the anchors folder.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		keep := r == '_' || r == '.' || (r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		if !keep {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxNameBytes {
			break
		}
		b.WriteRune(r)
		dash = false
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		return "anchor"
	}
	return s
}

// FolderName is the folder of the anchor with sequence number seq and name
// name: the seq zero-padded to three digits, '_', and the slug.
func FolderName(seq int64, name string) string {
	return fmt.Sprintf("%03d_%s", seq, Slug(name))
}

// ParseFolderName splits an anchor folder name "<seq>_<slug>" into its
// sequence number and slug. Any number of digits is accepted (writers pad to
// at least three); ok is false for a name that is not an anchor folder.
func ParseFolderName(folder string) (seq int64, slug string, ok bool) {
	digits, slug, found := strings.Cut(folder, "_")
	if !found || digits == "" || len(digits) > 19 {
		return 0, "", false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, "", false
		}
	}
	seq, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, "", false
	}
	return seq, slug, true
}
