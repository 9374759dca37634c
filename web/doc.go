// Package web owns tape's web page: `tape serve`, an HTTP server that
// shows a workspace's sessions to a person in a browser, read-only and
// live.
//
// It holds the routes (routes.go), who may ask (auth.go: loopback
// without a token, a token anywhere else), the HTTP server's timeouts and
// the cap on live streams (server.go), the pages' models and their
// templates (templates/): what every page shares and the sessions page
// (pages.go), a tape's and an anchor's pages and an entry's link
// (tapepage.go), the search, calls and usage pages (listpages.go); the chat a page of entries becomes
// (chat.go: messages, each tool call folded with its result by the one
// pairing rule of views/calls, thinking and events, bad lines), the usage
// chart drawn as SVG (chart.go), and the live tail of a tape over
// Server-Sent Events (live.go; looks.go, the one poll its streams share).
//
// It decides nothing the CLI decides: it reads through the read layer
// (package read), the projector's queries and the views, one index shared by its requests and made fresh
// before each read by the one freshness rule (fresh.ServedRead), and
// names tapes and anchors as package log validates them. What is its own is
// the page: HTML escaped by html/template (tapes hold untrusted tool
// output), a Content-Security-Policy that runs no inline script, pages
// that never list more than a page nor render more than a budget of bytes
// (bounds.go: long values folded, deep JSON flattened, a page cut by its
// bytes as by its entries), URLs that say what they show
// (/t/<tape>/a/<folder>, /t/<tape>/e/<entry id>). Its assets are embedded:
// no build step, no CDN. See docs/decisions/0066 and 0070.
package web
