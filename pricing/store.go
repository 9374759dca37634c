package pricing

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tape-dev/tape/internal/fileutil"
)

// The files of the user's config folder (Dir) that prices come from.
const (
	// StoredFile is the list `tape prices update` stored: when there is
	// one, it is used in place of the snapshot.
	StoredFile = "prices.json"
	// OverrideFile holds the user's own prices, in LiteLLM's form (a map
	// of model names to entries): they win over the list's.
	OverrideFile = "prices-override.json"
	// maxListBytes bounds a list read or downloaded: LiteLLM's whole list
	// is 1.5 MB.
	maxListBytes = 64 << 20
)

// Dir is the folder tape keeps the user's prices in: $TAPE_CONFIG_DIR,
// else tape/ in the user's config folder (~/.config/tape on Linux,
// ~/Library/Application Support/tape on macOS).
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("TAPE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the config folder for prices (set TAPE_CONFIG_DIR): %w", err)
	}
	return filepath.Join(base, "tape"), nil
}

// Loaded is the table tape prices with, and the files it came from.
type Loaded struct {
	*Table
	Stored   string // the stored list's path; "" for the snapshot
	Override string // the override file's path; "" for none
}

// Load is the stored list in dir, or the snapshot where there is none,
// with the override file's prices on top. A file that cannot be read as
// a price list is an error naming it and what to do.
func Load(dir string) (Loaded, error) {
	var l Loaded
	path := filepath.Join(dir, StoredFile)
	data, err := readList(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.Table = Snapshot()
	case err != nil:
		return l, err
	default:
		if l.Table, err = Open(data); err != nil {
			return l, fmt.Errorf("%s: %w (run tape prices update again, or remove it to use the prices tape ships with)", path, err)
		}
		l.Stored = path
	}
	path = filepath.Join(dir, OverrideFile)
	data, err = readList(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return l, nil
	case err != nil:
		return l, err
	}
	over, err := Parse(data)
	if err != nil {
		return l, fmt.Errorf("%s: %w (fix it: a map of model names to LiteLLM entries, e.g. {\"my-model\": {\"input_cost_per_token\": 3e-06, \"output_cost_per_token\": 1.5e-05}})", path, err)
	}
	l.Table, l.Override = l.Table.Merge(over), path
	return l, nil
}

// readList reads a list file, bounded.
func readList(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadList(f, path)
}

// ReadList reads a price list from r, named name in errors: at most
// 64 MB, which no list comes near (LiteLLM's whole list is 1.5 MB).
func ReadList(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxListBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > maxListBytes {
		return nil, fmt.Errorf("%s: larger than %d MB: not a price list", name, maxListBytes>>20)
	}
	return data, nil
}

// Store writes the list in data (either form Parse reads) to dir as the
// stored list, trimmed, dated today, private to the user, atomically.
func Store(dir string, data []byte, source string, now time.Time) (*Table, error) {
	trimmed, err := Trim(data, source, now.UTC().Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	if err := fileutil.WriteFile(root, StoredFile, trimmed, 0o600); err != nil {
		return nil, fmt.Errorf("store the prices in %s: %w", filepath.Join(dir, StoredFile), err)
	}
	return Open(trimmed)
}
