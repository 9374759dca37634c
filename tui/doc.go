// Package tui is tape's terminal UI (tape ui): the sessions list with a
// preview, search as you type across every tape or one, and a session read
// as a chat, its tool calls folded with their results. It is a bubbletea
// program over the shared read layer (package read, through Reader), as
// the CLI, the MCP server and the web page are; it owns how a session
// looks in a terminal, and nothing of how it is read.
//
// The model is plain data that Update changes and View draws: tests drive
// it with messages and read what each screen shows (model_test.go), and
// a test runs the binary in tmux (cmd/tape). Work that touches the index
// runs in commands, off the UI's goroutine, and comes back as messages
// tagged with what asked for them, so an answer to an old keystroke is
// dropped rather than drawn.
package tui
