package log

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/oklog/ulid/v2"
)

// Sync says when an append is made durable.
type Sync string

// RedactsSync reports whether tape sync replaces secrets: unless
// config.json says "redact_sync": false.
func (c Config) RedactsSync() bool { return c.RedactSync == nil || *c.RedactSync }

const (
	// SyncNone leaves flushing to the kernel: an entry survives a crash of
	// the process, not always a crash of the machine.
	SyncNone Sync = "none"
	// SyncAlways fsyncs the file, and the folder of a new file, before an
	// append returns.
	SyncAlways Sync = "always"
)

// Config is the content of .tape/config.json. Every key is optional; a
// missing key takes its default.
type Config struct {
	Version     int    `json:"version"`
	DefaultTape string `json:"default_tape"`
	Sync        Sync   `json:"sync"`
	// RedactSync, when false, lets tape sync send secrets as they are;
	// by default (absent, or true) the server never receives one
	// (package redact).
	RedactSync    *bool `json:"redact_sync,omitempty"`
	MaxEntryBytes int64 `json:"max_entry_bytes"`
	// Follow names the agents whose transcripts `tape watch` mirrors into
	// tapes when it is not told otherwise ("claude", "codex").
	Follow []string `json:"follow,omitempty"`
	// AiderRoots are the folders `tape import aider` (and `tape watch
	// --follow aider`) walks for Aider's histories when given no path:
	// Aider writes them in each project, not in a folder of its own
	// (importer/aider, decision 0096).
	AiderRoots []string `json:"aider_roots,omitempty"`
	// Watch says whether a read command starts a watcher on the
	// workspace when none runs: WatchAuto (the default) or WatchOff.
	Watch Watch `json:"watch,omitempty"`
	// Workspace tells this workspace apart from others where many are
	// gathered (a team's index on PostgreSQL): made by the first `tape
	// sync` (Workspace.Identity).
	Workspace *Identity `json:"workspace,omitempty"`
	// PGURL is the PostgreSQL server `tape sync` and --remote use when
	// neither the command line nor TAPE_PG_URL names one.
	PGURL string `json:"pg_url,omitempty"`
	// CrushRoots are folders `tape import crush` (and the other commands
	// that look for an agent's sessions) walk for Crush's projects, each
	// .crush/crush.db under them, beside the projects Crush lists itself.
	CrushRoots []string `json:"crush_roots,omitempty"`
}

// Roots are the folders config.json names for the source called name
// (its "<name>_roots"), where its sessions are looked for beside the
// source's own folders; none for a source that has no such key.
func (c Config) Roots(name string) []string {
	switch name {
	case "crush":
		return c.CrushRoots
	}
	return nil
}

// Identity is config.json's "workspace": who this workspace is among
// others.
type Identity struct {
	// ID is a ULID, made once and never changed: rows on a shared server
	// are keyed by it.
	ID string `json:"id"`
	// Name is for people: --workspace NAME picks it, lists show it. It
	// may be changed; it defaults to the folder and the host
	// ("proj@laptop").
	Name string `json:"name"`
}

// Watch is config.json's "watch": whether read commands start a watcher.
type Watch string

const (
	// WatchAuto starts `tape watch` in the background, on demand, when a
	// read command finds none running; it exits once no command has asked
	// it anything for a while.
	WatchAuto Watch = "auto"
	// WatchOff never starts one: each read command catches up itself,
	// unless a watcher started by hand runs.
	WatchOff Watch = "off"
)

// ParseWatch reads a value of "watch" (or of TAPE_WATCH); "" is the
// default, WatchAuto.
func ParseWatch(s string) (Watch, error) {
	switch Watch(s) {
	case "":
		return WatchAuto, nil
	case WatchAuto, WatchOff:
		return Watch(s), nil
	}
	return "", fmt.Errorf("watch is %q; want \"auto\" or \"off\"", s)
}

// DefaultMaxEntryBytes is the largest line an append accepts by default.
const DefaultMaxEntryBytes = 16 << 20

// DefaultConfig is the configuration of a workspace without config.json.
func DefaultConfig() Config {
	return Config{Version: 1, DefaultTape: "main", Sync: SyncNone, MaxEntryBytes: DefaultMaxEntryBytes, Watch: WatchAuto}
}

func (w *Workspace) loadConfig() (Config, error) {
	cfg := DefaultConfig()
	data, err := w.root.ReadFile(configFile)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read %s: %w", w.Abs(configFile), err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("read %s: %w (fix the JSON, or delete the file to use the defaults)", w.Abs(configFile), err)
	}
	return cfg, cfg.validate(w.Abs(configFile))
}

func (c *Config) validate(file string) error {
	if c.DefaultTape == "" {
		c.DefaultTape = "main"
	}
	if err := ValidateTapeName(c.DefaultTape); err != nil {
		return fmt.Errorf("%s: default_tape: %w", file, err)
	}
	switch c.Sync {
	case "":
		c.Sync = SyncNone
	case SyncNone, SyncAlways:
	default:
		return fmt.Errorf("%s: sync is %q; want \"none\" or \"always\"", file, c.Sync)
	}
	watch, err := ParseWatch(string(c.Watch))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	c.Watch = watch
	if c.MaxEntryBytes == 0 {
		c.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if c.MaxEntryBytes < 0 {
		return fmt.Errorf("%s: max_entry_bytes is %d; want a positive number of bytes", file, c.MaxEntryBytes)
	}
	if id := c.Workspace; id != nil {
		if _, err := ulid.ParseStrict(id.ID); err != nil {
			return fmt.Errorf("%s: workspace.id is %q, not a ULID; delete \"workspace\" for a new one", file, id.ID)
		}
		if strings.TrimSpace(id.Name) == "" {
			return fmt.Errorf("%s: workspace.name is empty; give the workspace a name", file)
		}
	}
	return nil
}

// SaveConfig writes config.json atomically.
func (w *Workspace) SaveConfig(c Config) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	if err := w.writeAtomic(configFile, append(data, '\n')); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	w.config = c
	return nil
}
