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
// separator, no control character or NUL, no leading dot (dot names are
// reserved for temporary files) and no leading or trailing space.
func ValidateTapeName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: tape name %q %s", ErrBadName, name, why)
	}
	switch {
	case name == "":
		return bad("is empty")
	case len(name) > MaxNameBytes:
		return bad(fmt.Sprintf("is longer than %d bytes", MaxNameBytes))
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8")
	case strings.ContainsAny(name, `/\`):
		return bad("contains a path separator")
	case name[0] == '.':
		return bad("starts with a dot")
	case strings.TrimSpace(name) != name:
		return bad("starts or ends with a space")
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return bad("contains a control character")
		}
	}
	return nil
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
