package source

// Resumer is a Source whose agent reopens one of its sessions from a
// terminal: `tape resume` prints its command, and runs it with --exec;
// the web page shows it on the session's page. A source that is not one
// says that its agent has no such command (decision 0108).
type Resumer interface {
	// Resume is the command (argv) that reopens the session, to run in
	// its folder; ok is false when the agent cannot reopen this one.
	Resume(s Resumable) (argv []string, ok bool)
}

// Resumable is what tape knows of an imported session, from its tape's
// first anchor: its id, the folder the agent ran in, and the transcript
// the tape was imported from.
type Resumable struct {
	ID, CWD, File string
}
