package importer

import (
	"context"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tape-dev/tape/importer/source"
)

// StoreSettle is how long a database source's session must have been
// quiet before a reply its agent never finished is exported as it was
// left (the agent crashed, or was killed): a reply streams into its row
// for minutes, and a row exported early would lose what came after it
// (decision 0097). An Importer's longer Settle is used instead.
const StoreSettle = 5 * time.Minute

// mirrorRoots replaces the databases at roots (and the folders that hold
// them) with their mirrors, after bringing each up to date: the folders
// the import then reads as it reads any source's. A root that holds no
// database is kept. A database that cannot be mirrored is reported and
// its mirror imported as it is.
func (im *Importer) mirrorRoots(ctx context.Context, st source.Store, roots []string) ([]string, error) {
	var out []string
	for _, root := range roots {
		dbs := st.Stores(root)
		if len(dbs) == 0 {
			out = append(out, root)
			continue
		}
		for _, db := range dbs {
			rel := mirrorDir(st, db)
			if err := im.ws.MkdirPrivate(rel); err != nil {
				return nil, fmt.Errorf("mirror %s: %w", db, err)
			}
			dir := im.ws.Abs(rel)
			if err := st.Mirror(ctx, db, dir, im.now(), max(im.settle(), StoreSettle)); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				im.warn(fmt.Errorf("%s: %w; what was exported of it before is imported", db, err))
			}
			out = append(out, dir)
		}
	}
	return out, nil
}

// mirrorDir is the workspace folder of a database's mirror: one per
// database, named by a sum of its absolute path.
func mirrorDir(st source.Store, db string) string {
	if abs, err := filepath.Abs(db); err == nil {
		db = abs
	}
	h := fnv.New64a()
	h.Write([]byte(db))
	return "import/" + st.Name() + "/" + strconv.FormatUint(h.Sum64(), 16)
}
