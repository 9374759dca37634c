package tui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// input is a line of text typed in: the search box, the filter. It is
// written here rather than taken from bubbles' textinput, which links a
// clipboard package whose initializer looks for xclip and wl-copy on the
// PATH in every tape process (0.7 ms; GODEBUG=inittrace=1 tape version),
// a status line's included; a line editor is these few keys.
type input struct {
	prompt, placeholder string
	text                []rune
	pos                 int // the cursor, in runes
	focused             bool
}

func (in *input) Value() string { return string(in.text) }

func (in *input) SetValue(s string) { in.text, in.pos = []rune(s), len([]rune(s)) }

func (in *input) Focus() { in.focused = true }

func (in *input) Blur() { in.focused = false }

// key edits the line as a key asks; it reports whether the key was one
// it takes.
func (in *input) key(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "backspace", "ctrl+h":
		if in.pos > 0 {
			in.text = append(in.text[:in.pos-1], in.text[in.pos:]...)
			in.pos--
		}
	case "delete", "ctrl+d":
		if in.pos < len(in.text) {
			in.text = append(in.text[:in.pos], in.text[in.pos+1:]...)
		}
	case "left", "ctrl+b":
		in.pos = max(0, in.pos-1)
	case "right", "ctrl+f":
		in.pos = min(len(in.text), in.pos+1)
	case "home", "ctrl+a":
		in.pos = 0
	case "end", "ctrl+e":
		in.pos = len(in.text)
	case "ctrl+u":
		in.text, in.pos = in.text[in.pos:], 0
	case "ctrl+k":
		in.text = in.text[:in.pos]
	case "ctrl+w":
		start := in.pos
		for start > 0 && unicode.IsSpace(in.text[start-1]) {
			start--
		}
		for start > 0 && !unicode.IsSpace(in.text[start-1]) {
			start--
		}
		in.text, in.pos = append(in.text[:start], in.text[in.pos:]...), start
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		in.insert(k.Text)
	}
	return true
}

// insert puts text at the cursor: what was typed or pasted, on one line,
// a paste's colors dropped.
func (in *input) insert(text string) {
	r := []rune(oneLine(ansi.Strip(text)))
	if strings.HasSuffix(text, " ") && len(r) > 0 || text == " " {
		r = append(r, ' ') // oneLine drops a space typed at the end
	}
	in.text = append(in.text[:in.pos], append(r, in.text[in.pos:]...)...)
	in.pos += len(r)
}

// view is the line as drawn in w columns: the prompt, the text with the
// cursor in reverse (the text before it cut from the left when it does
// not fit), or the placeholder dimmed.
func (in *input) view(t theme, w int) string {
	if len(in.text) == 0 {
		cursor := ""
		if in.focused {
			cursor = t.selected.Render(" ")
		}
		return in.prompt + cursor + t.dim.Render(in.placeholder)
	}
	if !in.focused {
		return in.prompt + string(in.text)
	}
	at := " "
	if in.pos < len(in.text) {
		at = string(in.text[in.pos])
	}
	rest := ""
	if in.pos+1 < len(in.text) {
		rest = string(in.text[in.pos+1:])
	}
	before := string(in.text[:in.pos])
	if over := widthOf(in.prompt+before+at) - w; over > 0 {
		before = ansi.TruncateLeft(before, over+1, "…")
	}
	return in.prompt + before + t.selected.Render(at) + rest
}
