package export

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/projector"
)

// Tapes writes each named tape to <dir>/<tape>.<format>, and an index
// that links them (index.md, index.html; for JSON and JSONL, index.json:
// the files and what each holds). dir is made if it is not there. The
// files are private to their owner, as a workspace's are: they are
// shared by choice.
func Tapes(ctx context.Context, dir string, ix *projector.Projector, names []string, opt Options) (Stats, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Stats{}, fmt.Errorf("export: %w", err)
	}
	var all Stats
	var rows []indexRow
	for _, name := range names {
		file := name + "." + opt.Format
		st, err := File(ctx, filepath.Join(dir, file), ix, name, opt)
		if err != nil {
			return all, err
		}
		all.Entries += st.Entries
		all.Redacted += st.Redacted
		rows = append(rows, indexRow{name: name, file: file, entries: st.Entries})
	}
	index, body := indexFile(opt.Format, rows)
	if err := os.WriteFile(filepath.Join(dir, index), []byte(body), 0o600); err != nil {
		return all, fmt.Errorf("export: %w", err)
	}
	return all, nil
}

// File writes one tape to the file at path, private to its owner.
func File(ctx context.Context, path string, ix *projector.Projector, name string, opt Options) (Stats, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return Stats{}, fmt.Errorf("export: %w", err)
	}
	st, err := Tape(ctx, f, ix, name, opt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, fmt.Errorf("export %s: %w", name, err)
	}
	return st, nil
}

type indexRow struct {
	name, file string
	entries    int
}

// indexFile is the name and the text of a folder's index.
func indexFile(format string, rows []indexRow) (string, string) {
	var b strings.Builder
	switch format {
	case "md":
		b.WriteString("# Tapes\n\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "- [%s](%s) · %d entries\n", r.name, url.PathEscape(r.file), r.entries)
		}
		return "index.md", b.String()
	case "html":
		b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"color-scheme\" content=\"light dark\">" +
			"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"><title>Tapes · tape</title>" +
			"<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}</style></head><body><h1>Tapes</h1><ul>\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a> · %d entries</li>\n", html.EscapeString(url.PathEscape(r.file)), html.EscapeString(r.name), r.entries)
		}
		b.WriteString("</ul></body></html>\n")
		return "index.html", b.String()
	}
	b.WriteString("[\n")
	for i, r := range rows {
		line := rawjson.NewObject().Str("tape", r.name).Str("file", r.file).Int("entries", int64(r.entries)).Done()
		b.Write(line)
		if i < len(rows)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return "index.json", b.String()
}
