// Package agenthome lays agents' transcripts out under a home folder,
// each where its agent keeps them, as a person's machine has them: for the
// tests that compare tape's imports with ccusage's counts, the tests of
// `tape import` with no source, and the benchmarks of importing every
// source (cmd/tape-bench home).
package agenthome

import (
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tape-dev/tape/internal/sqlitefile"
	"github.com/tape-dev/tape/testkit/corpus"
)

// Folder is where, under $HOME, an agent keeps the transcripts its
// source's golden files (testdata/import/<source>/src) stand for.
type Folder struct {
	Source string // tape import's source, and ccusage's command for the agent
	Home   string // the folder under $HOME, slash-separated
	// DB, for an agent that keeps its sessions in SQLite, is the
	// database's name in Home, which Build writes from the statements of
	// testdata/import/<source>/<source>.sql (its src/ is the mirror tape
	// exports of it, decision 0097).
	DB string
}

// Folders are the sources' folders, in the registry's order. A source
// ccusage reads gets a line here, and a database source ccusage does not
// read (Uncounted), for the tests of tape import with no source.
var Folders = []Folder{
	{"claude", ".claude/projects", ""},
	{"codex", ".codex/sessions", ""},
	{"gemini", ".gemini/tmp", ""},
	{"qwen", ".qwen/projects", ""},
	{"copilot", ".copilot", ""},
	{"pi", ".pi/agent/sessions", ""},
	{"kimi", ".kimi/sessions", ""},
	{"droid", ".factory/sessions", ""},
	{"openclaw", ".openclaw", ""},
	{"opencode", ".local/share/opencode", "opencode.db"},
	{"amp", ".local/share/amp/threads", ""},
	{"aider", "code", ""}, // the home folder is walked (once ~/.aider is there: Build makes it), and ~/code/<project> is in it
	{"goose", ".local/share/goose/sessions", "sessions.db"},
	{"crush", ".local/share/crush/.crush", "crush.db"},
	{"cline", ".config/Code/User/globalStorage", ""},
	{"cursor", ".config/Cursor/User/globalStorage", "state.vscdb"},
	{"kilo", ".local/share/kilo", "kilo.db"},
}

// Uncounted are the sources of Folders that ccusage 20.0.24 does not read
// (it has no command for the agent): the ccusage test passes them by, and
// their golden files check their usage.
var Uncounted = map[string]bool{"aider": true, "crush": true, "cline": true, "cursor": true}

// Env clears the variables by which the agents find their folders
// elsewhere than under $HOME, for a process run on a home Build made.
var Env = []string{"CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "GEMINI_CLI_HOME=", "QWEN_RUNTIME_DIR=", "QWEN_HOME=", "COPILOT_HOME=", "XDG_STATE_HOME=",
	"PI_CODING_AGENT_DIR=", "OMP_CODING_AGENT_DIR=", "KIMI_SHARE_DIR=", "KIMI_CODE_HOME=", "KIMI_DATA_DIR=", "DROID_SESSIONS_DIR=",
	"OPENCLAW_STATE_DIR=", "CLAWDBOT_STATE_DIR=", "OPENCLAW_HOME=", "OPENCODE_DATA_DIR=", "XDG_DATA_HOME=", "AIDER_CHAT_HISTORY_FILE=", "GOOSE_PATH_ROOT=", "CRUSH_GLOBAL_DATA=",
	"CLINE_DATA_DIR=", "CLINE_DIR=", "XDG_CONFIG_HOME=",
	"KILO_DATA_DIR="}

// Of returns source's folder.
func Of(source string) (Folder, bool) {
	for _, f := range Folders {
		if f.Source == source {
			return f, true
		}
	}
	return Folder{}, false
}

// Build copies the golden transcripts of source (under golden, the
// testdata/import folder) into its folder under home: as they are when
// copies is 0, else that many copies with every id rewritten
// (corpus.CopyTranscripts), a person's many sessions. The files are dated
// an hour back: finished sessions, whose last turn no import holds as
// still being written. It returns the folder.
func Build(home, golden, source string, copies int) (string, corpus.CopyStats, error) {
	f, ok := Of(source)
	if !ok {
		return "", corpus.CopyStats{}, fmt.Errorf("agenthome: no folder for source %q", source)
	}
	from := filepath.Join(golden, source, "src")
	into := filepath.Join(home, filepath.FromSlash(f.Home))
	if f.DB != "" && copies > 0 { // the agent's files are the database alone
		st, err := writeDBCopies(filepath.Join(into, f.DB), filepath.Join(golden, source, source+".sql"), copies)
		if err != nil {
			return "", st, err
		}
		return into, st, settle(into)
	}
	var st corpus.CopyStats
	var err error
	if copies == 0 {
		err = os.CopyFS(into, os.DirFS(from))
	} else {
		st, err = corpus.CopyTranscripts(from, into, copies)
	}
	if err != nil {
		return "", st, err
	}
	if source == "aider" { // Aider's own folder, by which tape knows it ran here
		if err := os.MkdirAll(filepath.Join(home, ".aider"), 0o700); err != nil {
			return "", st, err
		}
	}
	if f.DB != "" {
		if err := writeDB(filepath.Join(into, f.DB), filepath.Join(golden, source, source+".sql")); err != nil {
			return "", st, err
		}
	}
	return into, st, settle(into)
}

// writeDB writes the SQLite database at path from the statements in the
// file script.
func writeDB(path, script string) error {
	text, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(path))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(string(text)); err != nil {
		return fmt.Errorf("%s: %w", script, err)
	}
	return db.Close()
}

// writeDBCopies writes the SQLite database at path from the script's
// CREATE statements and copies of its INSERT statements, each copy's ids
// rewritten (corpus.RewriteIDs): a
// person's many sessions of a database agent. A row every copy shares (a
// project) is inserted once. The statements are one to a line, or run on
// to a line ending in ");", as the golden scripts write them.
func writeDBCopies(path, script string, copies int) (corpus.CopyStats, error) {
	text, err := os.ReadFile(script)
	if err != nil {
		return corpus.CopyStats{}, err
	}
	var schema, rows strings.Builder
	insert := false
	for _, line := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(line, "INSERT INTO "):
			insert = true
			line = "INSERT OR IGNORE INTO " + line[len("INSERT INTO "):]
		case strings.HasPrefix(line, "CREATE "):
			insert = false
		case strings.HasPrefix(line, "--"):
			continue
		}
		if insert {
			rows.WriteString(line + "\n")
		} else {
			schema.WriteString(line + "\n")
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return corpus.CopyStats{}, err
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(path)+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	if err != nil {
		return corpus.CopyStats{}, err
	}
	defer db.Close()
	if _, err := db.Exec(schema.String()); err != nil {
		return corpus.CopyStats{}, fmt.Errorf("%s: %w", script, err)
	}
	tx, err := db.Begin()
	if err != nil {
		return corpus.CopyStats{}, err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	for k := range copies {
		if _, err := tx.Exec(string(corpus.RewriteIDs(k, []byte(rows.String())))); err != nil {
			return corpus.CopyStats{}, fmt.Errorf("%s, copy %d: %w", script, k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return corpus.CopyStats{}, err
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return corpus.CopyStats{}, err
	}
	if err := db.Close(); err != nil {
		return corpus.CopyStats{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return corpus.CopyStats{}, err
	}
	return corpus.CopyStats{Files: 1, Bytes: fi.Size()}, nil
}

// settle dates every file under dir an hour back.
func settle(dir string) error {
	past := time.Now().Add(-time.Hour)
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(path, past, past)
	})
}
