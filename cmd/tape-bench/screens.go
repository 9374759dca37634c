package main

import (
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tape-dev/tape/testkit/tmux"
)

// screens captures tape ui's screens for docs/screenshots: the real
// binary in tmux, driven by keys, each screen kept as text (.txt), with
// its colors as a page (.html, made here from the terminal's escapes),
// and as a picture of that page (.png, by headless Chromium).
//
//	go run ./cmd/tape-bench screens -dir /tmp/s1k -tape bin/tape -out docs/screenshots
func screens(args []string) error {
	fs := flags("screens")
	dir, bin := workspaceFlags(fs)
	out := fs.String("out", "docs/screenshots", "the folder the screens go to")
	query := fs.String("query", "构建失败", "what the search screen types")
	fs.Parse(args)
	if err := prepare(dir, bin); err != nil {
		return err
	}
	for _, size := range [][2]int{{100, 30}, {200, 50}} {
		t := &tmux.Server{Socket: filepath.Join(os.TempDir(), fmt.Sprintf("tape-screens-%d-%d", os.Getpid(), size[0])), W: size[0], H: size[1]}
		name := func(screen string) string {
			return filepath.Join(*out, fmt.Sprintf("ui-%s-%dx%d", screen, size[0], size[1]))
		}
		steps := []struct {
			screen, wait string
			keys         []string
		}{
			{"sessions", "sessions ·", nil},
			{"search", "hits ·", append([]string{"/"}, strings.Split(*query, "")...)},
			{"session", "enter fold", []string{"Enter", "j", "j", "j", "j", "Enter"}},
		}
		abs, err := filepath.Abs(*bin)
		if err != nil {
			return err
		}
		if err := t.Start(*dir, "env TERM=xterm-256color TAPE_WATCH=off "+abs+" ui; sleep 30"); err != nil {
			return err
		}
		for _, st := range steps {
			for _, k := range st.keys {
				if err := t.Keys(k); err != nil {
					return err
				}
				time.Sleep(30 * time.Millisecond) // a person's typing: each key its own search
			}
			if _, err := t.WaitFor(15*time.Second, st.wait); err != nil {
				return err
			}
			if _, err := t.Settled(15 * time.Second); err != nil { // the preview and the hits drawn
				return err
			}
			if err := saveScreen(t, name(st.screen)); err != nil {
				return err
			}
		}
		t.Kill()
	}
	return nil
}

// saveScreen writes the screen as name.txt and name.png.
func saveScreen(t *tmux.Server, name string) error {
	text, err := t.Screen(false)
	if err != nil {
		return err
	}
	colored, err := t.Screen(true)
	if err != nil {
		return err
	}
	if err := os.WriteFile(name+".txt", []byte(text), 0o644); err != nil {
		return err
	}
	page := ansiPage(colored)
	if err := os.WriteFile(name+".html", []byte(page), 0o644); err != nil {
		return err
	}
	png, err := filepath.Abs(name + ".png")
	if err != nil {
		return err
	}
	htmlPath, _ := filepath.Abs(name + ".html")
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", t.W*9+24, t.H*19+24), "file://"+htmlPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("chromium: %v: %s", err, out)
	}
	return os.Remove(name + ".html")
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// ansiPage is a terminal's screen, with its SGR escapes, as an HTML page
// in a dark terminal's colors.
func ansiPage(screen string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><meta charset="utf-8"><style>body{margin:12px;background:#1d1f21;color:#d0d0d0}` +
		`pre{font:15px/19px "DejaVu Sans Mono","Noto Sans Mono CJK SC",monospace;margin:0}</style><pre>`)
	st := sgrState{}
	open := false
	last := 0
	for _, m := range sgr.FindAllStringSubmatchIndex(screen, -1) {
		b.WriteString(html.EscapeString(screen[last:m[0]]))
		last = m[1]
		st.apply(screen[m[2]:m[3]])
		if open {
			b.WriteString("</span>")
		}
		b.WriteString(`<span style="` + st.css() + `">`)
		open = true
	}
	b.WriteString(html.EscapeString(screen[last:]))
	if open {
		b.WriteString("</span>")
	}
	b.WriteString("</pre>")
	return b.String()
}

type sgrState struct {
	bold, faint, reverse bool
	fg, bg               string
}

// palette is xterm's 16 colors.
var palette = []string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}

func color256(n int) string {
	switch {
	case n < 16:
		return palette[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + v*40
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	}
	g := 8 + (n-232)*10
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}

func (s *sgrState) apply(params string) {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	if len(ps) == 0 {
		ps = []string{"0"}
	}
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			*s = sgrState{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.faint = true
		case n == 22:
			s.bold, s.faint = false, false
		case n == 7:
			s.reverse = true
		case n == 27:
			s.reverse = false
		case n >= 30 && n <= 37:
			s.fg = palette[n-30]
		case n >= 90 && n <= 97:
			s.fg = palette[n-90+8]
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47:
			s.bg = palette[n-40]
		case n == 49:
			s.bg = ""
		case (n == 38 || n == 48) && i+2 < len(ps) && ps[i+1] == "5":
			c, _ := strconv.Atoi(ps[i+2])
			s.set(n, color256(c))
			i += 2
		case (n == 38 || n == 48) && i+4 < len(ps) && ps[i+1] == "2":
			r, _ := strconv.Atoi(ps[i+2])
			g, _ := strconv.Atoi(ps[i+3])
			bl, _ := strconv.Atoi(ps[i+4])
			s.set(n, fmt.Sprintf("#%02x%02x%02x", r, g, bl))
			i += 4
		}
	}
}

func (s *sgrState) set(which int, c string) {
	if which == 38 {
		s.fg = c
	} else {
		s.bg = c
	}
}

func (s sgrState) css() string {
	fg, bg := s.fg, s.bg
	if s.reverse {
		fg, bg = bg, fg
		if fg == "" {
			fg = "#1d1f21"
		}
		if bg == "" {
			bg = "#d0d0d0"
		}
	}
	var css []string
	if fg != "" {
		css = append(css, "color:"+fg)
	}
	if bg != "" {
		css = append(css, "background:"+bg)
	}
	if s.bold {
		css = append(css, "font-weight:bold")
	}
	if s.faint {
		css = append(css, "opacity:.6")
	}
	return strings.Join(css, ";")
}
