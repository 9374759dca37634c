package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	tapelog "github.com/tape-dev/tape/log"
	"github.com/tape-dev/tape/projector"
	"github.com/tape-dev/tape/read"
	"github.com/tape-dev/tape/read/records"
)

// Resources: each tape as tape://<tape>, each anchor as
// tape://<tape>/<folder>, their entries as JSON lines, one entry a line as
// `tape log --json` prints it. A name is percent-encoded but for the
// characters RFC 3986 leaves unreserved, as the templates below expand
// it.
//
// Two templates make every such URI readable; the list is answered here,
// not by the SDK, whose list holds the resources added to it one by one:
// a workspace has thousands of tapes, and more while a session runs. It
// is read from the index a page at a time, in the order of (tape,
// folder), each tape before its anchors, its cursor the last anchor of
// the page before, so a page costs the same at the end of 10,000 tapes as
// at the start.

const (
	scheme         = "tape://"
	tapeTemplate   = scheme + "{tape}"
	anchorTemplate = scheme + "{tape}/{folder}"
	jsonLinesMIME  = "application/jsonl"
	// resourcePage is how many anchors a page of the list holds, with
	// their tapes.
	resourcePage = 1000
)

func (s *server) addResources(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: tapeTemplate, Name: "tape", Title: "A tape",
		Description: "Every entry of a tape (session), in tape order, as JSON lines: id, tape, anchor, anchor_seq, kind, date, payload, meta, file, line.",
		MIMEType:    jsonLinesMIME}, s.readResource)
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: anchorTemplate, Name: "anchor", Title: "An anchor of a tape",
		Description: "The entries of one anchor (phase) of a tape, named by its folder (001_session-start), the anchor's own entry first, as JSON lines.",
		MIMEType:    jsonLinesMIME}, s.readResource)
	srv.AddReceivingMiddleware(s.listing)
}

// listing answers resources/list from the index.
func (s *server) listing(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		r, ok := req.(*sdk.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		cursor := ""
		if r.Params != nil {
			cursor = r.Params.Cursor
		}
		return s.listResources(ctx, cursor)
	}
}

// listResources is the page of resources after cursor.
func (s *server) listResources(ctx context.Context, cursor string) (*sdk.ListResourcesResult, error) {
	afterTape, afterFolder, err := decodeCursor(cursor)
	if err != nil {
		return nil, err
	}
	anchors, err := served(ctx, s, func(ix *projector.Projector) ([]tapelog.Anchor, error) {
		return ix.AnchorsAfter(ctx, afterTape, afterFolder, s.resourcePage)
	})
	if err != nil {
		return nil, err
	}
	res := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
	res.CacheScope = "private"
	prev := afterTape
	for _, a := range anchors {
		tape := a.Entry.Pos.Tape
		if tape != prev {
			res.Resources = append(res.Resources, &sdk.Resource{URI: tapeURI(tape), Name: tape, MIMEType: jsonLinesMIME,
				Description: "the entries of tape " + tape})
			prev = tape
		}
		title, desc := a.Name, fmt.Sprintf("the entries of anchor %s (%03d) of tape %s", a.Name, a.Seq, tape)
		if a.Unanchored {
			title, desc = "(before the first anchor)", "the entries of tape "+tape+" before its first anchor"
		}
		res.Resources = append(res.Resources, &sdk.Resource{URI: tapeURI(tape) + "/" + escape(a.Folder), Name: tape + "/" + a.Folder,
			Title: title, MIMEType: jsonLinesMIME, Description: desc})
	}
	if len(anchors) == s.resourcePage {
		last := anchors[len(anchors)-1]
		res.NextCursor = encodeCursor(last.Entry.Pos.Tape, last.Folder)
	}
	return res, nil
}

// A cursor is the tape and folder of the last anchor listed, opaque to
// the client.
func encodeCursor(tape, folder string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tape + "\x00" + folder))
}

func decodeCursor(cursor string) (tape, folder string, err error) {
	if cursor == "" {
		return "", "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	tape, folder, ok := strings.Cut(string(b), "\x00")
	if err != nil || !ok {
		return "", "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("cursor %q is not one this server gave", cursor)}
	}
	return tape, folder, nil
}

// readResource reads tape://<tape> or tape://<tape>/<folder>: the
// entries as JSON lines. A name that is not a tape's or an anchor's, and
// one that is not a name at all (../x), is not found.
func (s *server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	tape, folder, ok := parseURI(uri)
	if !ok || tapelog.ValidateTapeName(tape) != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	text, err := served(ctx, s, func(ix *projector.Projector) (string, error) {
		// The whole tape, or the one folder the name gives (as a web
		// page's link), without the warnings, which a resource has no
		// place for.
		q := read.EntryQuery{Tape: tape, Pick: read.Pick{All: true}}
		if folder != "" {
			q.Pick = read.Pick{Folder: folder}
		}
		got, err := read.ReadEntries(ctx, ix, q)
		if errors.Is(err, tapelog.ErrNoAnchor) || err == nil && len(got.Tape) == 0 {
			return "", errNotFound
		}
		if err != nil {
			return "", err
		}
		recs := make([]records.Entry, len(got.Entries))
		for i, e := range got.Entries {
			recs[i] = records.NewEntry(e)
		}
		return jsonLines(recs), nil
	})
	if errors.Is(err, errNotFound) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: jsonLinesMIME, Text: text}}}, nil
}

var errNotFound = errors.New("not found")

func tapeURI(tape string) string { return scheme + escape(tape) }

// escape percent-encodes every byte of s but the unreserved characters
// of RFC 3986 (letters, digits, - . _ ~), as a URI template expands a
// variable.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// parseURI splits tape://<tape>[/<folder>] into its names, unescaped.
func parseURI(uri string) (tape, folder string, ok bool) {
	rest, ok := strings.CutPrefix(uri, scheme)
	if !ok {
		return "", "", false
	}
	rawTape, rawFolder, hasFolder := strings.Cut(rest, "/")
	tape, err := url.PathUnescape(rawTape)
	if err != nil || tape == "" {
		return "", "", false
	}
	if !hasFolder {
		return tape, "", true
	}
	folder, err = url.PathUnescape(rawFolder)
	if err != nil || folder == "" || strings.Contains(folder, "/") {
		return "", "", false
	}
	return tape, folder, true
}
