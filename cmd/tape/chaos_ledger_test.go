package main

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	tapelog "github.com/tape-dev/tape/log"
)

// ledger holds every entry id a command printed, with its tape, and the
// forks the rounds made.
type ledger struct {
	mu        sync.Mutex
	ids       map[string]map[string]int // tape → id → the round that printed it
	forks     map[string]*chaosFork     // fork id → its fork
	busy      map[string]bool           // forks a task of busyRound merges
	busyRound int
}

// chaosFork is a fork and the ids printed into it.
type chaosFork struct {
	tape   string
	round  int
	ids    map[string]int
	merges int // merges tried
}

func newLedger() *ledger {
	return &ledger{ids: map[string]map[string]int{}, forks: map[string]*chaosFork{}}
}

// record notes the ids a command printed on stdout: one per line, or a
// JSON object per line with --json. A line without its newline was cut by
// a kill, and proves nothing.
func (l *ledger) record(c *chaos, args []string, stdout string, round int) {
	tape, fork, asJSON := flagValue(args, "--tape", "main"), flagValue(args, "--fork", ""), slices.Contains(args, "--json")
	lines := strings.Split(stdout, "\n")
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range lines[:len(lines)-1] {
		id := line
		if asJSON {
			var rec struct{ ID, Tape string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.ID == "" {
				c.t.Errorf("tape %v printed %q, not an entry", args, line)
				continue
			}
			id = rec.ID
		}
		if fork != "" {
			if f := l.forks[fork]; f != nil {
				f.ids[id] = round
			}
			continue
		}
		if l.ids[tape] == nil {
			l.ids[tape] = map[string]int{}
		}
		l.ids[tape][id] = round
	}
}

func flagValue(args []string, flag, def string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return def
}

func (l *ledger) fork(id, tape string, round int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forks[id] = &chaosFork{tape: tape, round: round, ids: map[string]int{}}
}

func (l *ledger) noteMerge(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.forks[id]; f != nil {
		f.merges++
	}
}

// leftover picks a fork of an earlier round that is still there (pick,
// in [0, 1), says which), for one task of this round to merge; "" if
// there is none.
func (l *ledger) leftover(c *chaos, pick float64) (id, tape string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == nil || l.busyRound != c.roundNo {
		l.busy, l.busyRound = map[string]bool{}, c.roundNo
	}
	var ids []string
	for id, f := range l.forks {
		if f.round < c.roundNo && !l.busy[id] && forkThere(c.dir, f.tape, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", ""
	}
	slices.Sort(ids)
	id = ids[int(pick*float64(len(ids)))]
	l.busy[id] = true
	return id, l.forks[id].tape
}

// forkThere reports whether a fork's folder is still there: not merged,
// or merged but for its removal (forks/.merged-<id>, which holds nothing
// the tape does not).
func forkThere(dir, tape, id string) bool {
	_, err := os.Stat(filepath.Join(dir, ".tape", "tapes", tape, "forks", id))
	return err == nil
}

// checkLedger holds the logs read in the workspace (tape → log --all
// --json) to the ledger: every printed id once, no id twice.
func (c *chaos) checkLedger(what string, logs map[string]string) {
	c.t.Helper()
	errs := 0
	errorf := func(format string, args ...any) {
		c.t.Helper()
		if errs++; errs <= maxLedgerErrors {
			c.t.Errorf(what+": "+format, args...)
		}
	}
	defer func() {
		if errs > maxLedgerErrors {
			c.t.Errorf("%s: %d more such ids", what, errs-maxLedgerErrors)
		}
	}()
	live := map[string]map[string]int{}
	for tape, out := range logs {
		live[tape] = map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var rec struct{ ID string }
			if line == "" || json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			live[tape][rec.ID]++
			if live[tape][rec.ID] == 2 {
				errorf("tape %s holds id %s twice", tape, rec.ID)
			}
		}
	}
	l := c.led
	l.mu.Lock()
	defer l.mu.Unlock()
	archived := map[string]map[string]int{}
	for tape, ids := range l.ids {
		archived[tape] = c.archiveIDs(tape)
		for id, round := range ids {
			n, a := live[tape][id], archived[tape][id]
			switch {
			case n+a == 0:
				errorf("id %s, printed in round %d, is not on tape %s nor in its archive: lost", id, round, tape)
			case n+a > 1:
				errorf("id %s, printed in round %d, is %d times on tape %s and %d times in its archive", id, round, n, tape, a)
			case a == 1:
				delete(ids, id) // reset --archive took it away: it stays there
			}
		}
	}
	for forkID, f := range l.forks {
		merged := !forkThere(c.dir, f.tape, forkID)
		if archived[f.tape] == nil {
			archived[f.tape] = c.archiveIDs(f.tape)
		}
		for id, round := range f.ids {
			n, a := live[f.tape][id], archived[f.tape][id]
			switch {
			case n > 1 || a > 1:
				errorf("id %s, printed into fork %s in round %d, is %d times on tape %s and %d times in its archive", id, forkID, round, n, f.tape, a)
			case merged && n+a == 0:
				errorf("id %s, printed into fork %s in round %d, is not on tape %s nor in its archive, and the fork is merged: lost", id, forkID, round, f.tape)
			}
		}
	}
}

// maxLedgerErrors is how many ids one check reports one by one.
const maxLedgerErrors = 10

// archiveIDs counts the entry ids of tape's archives (reset --archive),
// which no read shows: it reads the files.
func (c *chaos) archiveIDs(tape string) map[string]int {
	ids := map[string]int{}
	root := filepath.Join(c.dir, ".tape", tapelog.ArchiveDir)
	dirs, _ := os.ReadDir(root)
	name := regexp.MustCompile(`^` + regexp.QuoteMeta(tape) + `-\d{8}T\d{6}Z(-\d+)?$`)
	for _, d := range dirs {
		if !name.MatchString(d.Name()) {
			continue
		}
		filepath.WalkDir(filepath.Join(root, d.Name()), func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				c.t.Errorf("read the archive: %v", err)
				return nil
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if e, err := tapelog.ParseEntry(sc.Bytes()); err == nil && e.ID != "" {
					ids[e.ID]++
				}
			}
			return nil
		})
	}
	return ids
}
