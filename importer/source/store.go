package source

import (
	"context"
	"time"
)

// Store is a Source whose agent keeps its sessions in a database rather
// than in files that grow (OpenCode's opencode.db): the importer has it
// export each database's settled rows, as JSON lines, into files tape
// owns (the mirror, under .tape/import/<source>/), and imports those as
// the source's transcripts, with its converter (decision 0097). The
// driver, its checkpoints and its crash tests stay as they are for it.
//
// Unlike the rest of this package's contract, Mirror does I/O: it is
// the one place a Store's package reads its agent's database.
type Store interface {
	Source
	// Stores lists the databases at root, a file the user names or a
	// folder (one of DefaultDirs, say): those Mirror exports. A root that
	// holds none (a mirror folder, or a mirror file, named by hand) is
	// imported as transcripts are.
	Stores(root string) []string
	// Mirror appends to the mirror files in dir (a folder tape owns, one
	// per database) the rows of the database db that are settled and not
	// there yet: a row is settled when its agent has finished writing it,
	// or its session has been quiet for settle, as of now. A mirror file
	// only grows. It opens the database read-only and holds no lock past
	// one read transaction; a schema it does not know is an error naming
	// it, and nothing of that database is exported then.
	Mirror(ctx context.Context, db, dir string, now time.Time, settle time.Duration) error
	// Sessions counts the sessions in the database db, for `tape sources`.
	Sessions(ctx context.Context, db string) (int, error)
}
