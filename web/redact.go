package web

import (
	"bytes"
	"html"
	"net/http"
	"strconv"
	"strings"

	"github.com/tape-dev/tape/redact"
)

// Secrets on the page: with Options.Redactor set, each secret a page or a
// live event would show is replaced by [REDACTED:<kind>] in what is sent
// (the files stay as they are). Pages and events are scrubbed whole, as
// the browser gets them: the text is read back out of the HTML (entities
// undone), its secrets found, and each replaced in the HTML in every form
// the templates write it. tape serve does this always when it listens
// beyond loopback, and on loopback when asked (--redact).

// scrub is page with its secrets replaced; page itself without a
// redactor.
func (s *Server) scrub(page []byte) []byte {
	r := s.opts.Redactor
	if r == nil || len(page) == 0 {
		return page
	}
	// The texts the page shows, and those texts with JSON's escapes
	// undone once and twice: a call's arguments show as JSON, whose
	// strings hold a command whose quotes are escaped again.
	texts := pageTexts(page)
	var found []redact.Finding
	for range 3 {
		found = append(found, r.FindAll(texts)...)
		for i, t := range texts {
			texts[i] = jsonUnescaper.Replace(t)
		}
	}
	if len(found) == 0 {
		return page
	}
	// Every whole secret, in each form it takes in HTML, then those an
	// excerpt cut short.
	return []byte(redact.NewReplacer(redact.Dedupe(found), htmlForms).Replace(string(page)))
}

// pageTexts are the texts of a page, between its tags, entities undone:
// a secret never spans an element's end (the rules want a space or a
// quote after most secrets, and an excerpt of a private key in a summary
// must not run on into the key in full below it).
func pageTexts(page []byte) []string {
	var texts []string
	var cur []byte
	end := func() {
		if t := bytes.TrimSpace(cur); len(t) > 0 {
			texts = append(texts, html.UnescapeString(string(t)))
		}
		cur = cur[:0]
	}
	for len(page) > 0 {
		lt := bytes.IndexByte(page, '<')
		if lt < 0 {
			lt = len(page)
		}
		cur = append(cur, page[:lt]...)
		page = page[lt:]
		gt := bytes.IndexByte(page, '>')
		if gt < 0 {
			break
		}
		tag := page[:gt+1]
		page = page[gt+1:]
		if inlineTag(tag) {
			continue // a <mark> within a text does not end it
		}
		end()
		texts = append(texts, attributeValues(tag)...)
	}
	end()
	return texts
}

// inlineTag reports whether a tag only marks a part of a text: the search
// page's <mark> around a match, which may fall inside a secret.
func inlineTag(tag []byte) bool {
	name := strings.ToLower(strings.Fields(string(bytes.Trim(tag, "<>/")) + " x")[0])
	return name == "mark"
}

// attributeValues are the quoted values of a tag's attributes, entities
// undone: a title="…" shows a session's whole title on hover, where the
// page shows 200 characters of it.
func attributeValues(tag []byte) []string {
	var values []string
	for {
		i := bytes.IndexByte(tag, '"')
		if i < 0 {
			return values
		}
		j := bytes.IndexByte(tag[i+1:], '"')
		if j < 0 {
			return values
		}
		if v := tag[i+1 : i+1+j]; len(v) >= 8 {
			values = append(values, html.UnescapeString(string(v)))
		}
		tag = tag[i+1+j+1:]
	}
}

// jsonUnescaper undoes the escapes of JSON strings that a secret may
// hold or be next to.
var jsonUnescaper = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n", `\t`, "\t", `\/`, "/")

// htmlForms are the ways a secret shows in HTML: each of its redact.Forms
// (as it is, in JSON strings) as it is, escaped as html/template escapes
// text (&#34; &#39; &#43;), and as html.EscapeString does.
func htmlForms(s string) []string {
	var forms []string
	seen := map[string]bool{}
	for _, v := range redact.Forms(s) {
		for _, f := range []string{v, templateEscape(v), html.EscapeString(v)} {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	return forms
}

var templateEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;", "\x00", "\uFFFD")

func templateEscape(s string) string { return templateEscaper.Replace(s) }

// scrubbing holds a response back until it is whole, and sends it
// scrubbed: the pages, not the live stream (which scrubs each event) nor
// the static files.
func (s *Server) scrubbing(h http.Handler) http.Handler {
	if s.opts.Redactor == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if liveRoute(r.URL.Path) || strings.HasPrefix(r.URL.Path, "/static/") {
			h.ServeHTTP(w, r)
			return
		}
		held := &heldResponse{header: w.Header(), status: http.StatusOK}
		h.ServeHTTP(held, r)
		body := s.scrub(held.body.Bytes())
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(held.status)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	})
}

// liveRoute reports whether path is a live stream's, /t/<tape>/live
// (which scrubs each event itself): not a tape called live.
func liveRoute(path string) bool {
	parts := strings.Split(path, "/")
	return len(parts) == 4 && parts[0] == "" && parts[1] == "t" && parts[3] == "live"
}

// heldResponse is a response written to memory.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header         { return h.header }
func (h *heldResponse) WriteHeader(status int)      { h.status = status }
func (h *heldResponse) Write(p []byte) (int, error) { return h.body.Write(p) }
