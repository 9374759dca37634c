package pricing

import (
	_ "embed"
	"fmt"
)

// snapshot is LiteLLM's list as tape ships it, trimmed (Trim); `tape
// prices update` stores a newer one in the user's config folder.
//
//go:embed litellm.json
var snapshot []byte

// Snapshot is the table tape ships with, opened anew on each call
// (Open): callers keep the one they use.
func Snapshot() *Table {
	t, err := Open(snapshot)
	if err != nil {
		panic(fmt.Sprintf("pricing: the embedded snapshot does not parse: %v", err)) // TestSnapshotParses
	}
	return t
}
