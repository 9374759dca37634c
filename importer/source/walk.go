package source

import tapelog "github.com/tape-dev/tape/log"

// Pruner is a source whose transcripts lie in folders of people's own
// (Aider writes its histories in each project): a walk for them leaves
// out the folders Prune names, which may be large and hold none (.git,
// node_modules, a home folder's hidden ones). The importer's walk and the
// follower's watches both ask it; a source that is not one is walked
// whole.
type Pruner interface {
	// Prune reports whether the walk of root leaves out the folder at
	// path, depth folders below root (1 for a folder right in it).
	Prune(root, path string, depth int) bool
}

// Rooted is a source whose folders a workspace's config.json may name,
// for an agent that keeps no folder of its own (config.json's
// "aider_roots"): when Roots names some, they are read instead of
// DefaultDirs.
type Rooted interface {
	// Roots are the folders cfg names for the source, absolute (a "~"
	// and a relative path are taken from home).
	Roots(cfg tapelog.Config, home string) []string
}
