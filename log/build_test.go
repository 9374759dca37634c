package log

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tape-dev/tape/internal/fileutil"
)

// buildStep is a handoff (one anchor entry) or an append (entries).
type buildStep struct {
	anchor  *Entry
	entries []Entry
}

func recorded(id, kind, payload, date string) Entry {
	return Entry{ID: id, Kind: kind, Payload: json.RawMessage(payload), Date: date}
}

func anchorStep(id, name, date string) buildStep {
	e := recorded(id, KindAnchor, `{"name":"`+name+`","state":{"cwd":"/w"}}`, date)
	return buildStep{anchor: &e}
}

func appendStep(entries ...Entry) buildStep { return buildStep{entries: entries} }

// builderCases are what importers hand a new tape: an anchor first or
// entries before any, phases, entries without a date, refused entries
// and a refused anchor (a name tape does not take), Chinese text.
var builderCases = map[string][]buildStep{
	"anchor first": {
		anchorStep("a1", "session/start", "2026-01-02T03:04:05.000006+00:00"),
		appendStep(recorded("m1", KindMessage, `{"role":"user","content":"修复 parseConfig"}`, "2026-01-02T03:04:06.000006+00:00"),
			recorded("c1", KindToolCall, `{"name":"bash"}`, "2026-01-02T03:04:07.000006+00:00"),
			recorded("r1", KindToolResult, `{"ok":true}`, ""),
			recorded("m2", KindMessage, `{"role":"assistant","content":"done"}`, "2026-01-02T03:04:08.000006+00:00")),
	},
	"phases": {
		anchorStep("a1", "session/start", "2026-01-02T03:04:05.000006+00:00"),
		appendStep(recorded("m1", KindMessage, `{"role":"user"}`, "2026-01-02T03:04:06.000006+00:00")),
		anchorStep("a2", "compact", "2026-01-02T03:05:05.000006+00:00"),
		appendStep(recorded("e1", "codex/odd", `{"x":[1,2]}`, "2026-01-02T03:05:06.000006+00:00")),
		anchorStep("a3", "审查", ""),
	},
	"entries before any anchor": {
		appendStep(recorded("m1", KindMessage, `{"role":"user"}`, "2026-01-02T03:04:06.000006+00:00")),
		anchorStep("a2", "compact", "2026-01-02T03:05:05.000006+00:00"),
		appendStep(recorded("m2", KindMessage, `{"role":"user"}`, "2026-01-02T03:05:06.000006+00:00")),
	},
	"all refused, then an anchor": {
		appendStep(recorded("bad", KindMessage, `[1]`, "2026-01-02T03:04:06.000006+00:00")),
		anchorStep("a1", "session/start", "2026-01-02T03:04:05.000006+00:00"),
		appendStep(recorded("m1", KindMessage, `{"role":"user"}`, "2026-01-02T03:04:07.000006+00:00")),
	},
	"refused": {
		anchorStep("a1", "session/start", "2026-01-02T03:04:05.000006+00:00"),
		appendStep(recorded("m1", KindMessage, `{"role":"user"}`, "2026-01-02T03:04:06.000006+00:00"),
			recorded("bad", KindMessage, `[1]`, "2026-01-02T03:04:06.000006+00:00"),
			recorded("big", KindMessage, `{"t":"`+strings.Repeat("x", 2048)+`"}`, "2026-01-02T03:04:06.000006+00:00"),
			recorded("m2", KindMessage, `{"role":"user"}`, "2026-01-02T03:04:07.000006+00:00")),
		anchorStep("a2", "bad name/", "2026-01-02T03:05:05.000006+00:00"),
		appendStep(recorded("m3", KindMessage, `{"role":"user"}`, "2026-01-02T03:05:06.000006+00:00")),
	},
}

// runSteps hands the steps to a Tape, or to a Builder of it that it then
// places; it returns the refusals, by entry id.
func runSteps(t *testing.T, tp *Tape, steps []buildStep, build bool) []string {
	t.Helper()
	refused, _ := runStepsWhole(t, tp, steps, build)
	return refused
}

// runStepsWhole is runSteps, and whether the Builder placed the tape
// whole (not through the Tape).
func runStepsWhole(t *testing.T, tp *Tape, steps []buildStep, build bool) ([]string, bool) {
	t.Helper()
	ctx := context.Background()
	var b *Builder
	if build {
		b = tp.NewBuilder()
	}
	var refused []string
	for _, s := range steps {
		if s.anchor != nil {
			var err error
			if build {
				err = b.HandoffRecorded(*s.anchor)
			} else {
				_, err = tp.HandoffRecorded(ctx, *s.anchor)
			}
			if Refused(err) {
				refused = append(refused, s.anchor.ID)
			} else if err != nil {
				t.Fatal(err)
			}
			continue
		}
		onRefused := func(i int, err error) error {
			if !Refused(err) {
				t.Errorf("entry %s: %v is not a refusal", s.entries[i].ID, err)
			}
			refused = append(refused, s.entries[i].ID)
			return nil
		}
		var err error
		if build {
			_, err = b.AppendRecordedEach(s.entries, onRefused)
		} else {
			_, err = tp.AppendRecordedEach(ctx, s.entries, onRefused)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if build {
		if err := b.Place(ctx); err != nil {
			t.Fatal(err)
		}
		return refused, b.whole
	}
	return refused, false
}

// bootstrapIDs are the id and date of a bootstrap anchor, which each
// workspace makes for itself.
var bootstrapIDs = regexp.MustCompile(`"(id|date)":"[^"]*"`)

// tapeFiles are the files under a tape's folder, by path, with the
// bootstrap anchors' ids and dates blanked; it fails on a leftover
// temporary name.
func tapeFiles(t *testing.T, ws *Workspace, name string) map[string]string {
	t.Helper()
	files := map[string]string{}
	root := filepath.Join(ws.Dir(), tapesDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), fileutil.TempPrefix) {
			t.Errorf("%s left behind", p)
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == AnchorFile && strings.Contains(string(data), bootstrapState) {
			data = bootstrapIDs.ReplaceAll(data, []byte(`"$1":"…"`))
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func smallWorkspace(t *testing.T) *Workspace {
	t.Helper()
	ws := newTestWorkspace(t)
	ws.config.MaxEntryBytes = 1024
	return ws
}

// TestBuilderWritesWhatTheTapeWould: a tape a Builder places holds the
// same files, byte for byte, as the handoffs and appends it was given
// would have made, and the same entries are refused.
func TestBuilderWritesWhatTheTapeWould(t *testing.T) {
	for name, steps := range builderCases {
		t.Run(name, func(t *testing.T) {
			built, through := smallWorkspace(t), smallWorkspace(t)
			refusedBuilt, whole := runStepsWhole(t, mustTape(t, built, "s"), steps, true)
			refusedThrough := runSteps(t, mustTape(t, through, "s"), steps, false)
			if !whole {
				t.Error("the Builder wrote through the Tape: the tape was not placed whole")
			}
			if !slices.Equal(refusedBuilt, refusedThrough) {
				t.Errorf("the Builder refused %v, the Tape %v", refusedBuilt, refusedThrough)
			}
			got, want := tapeFiles(t, built, "s"), tapeFiles(t, through, "s")
			if !maps.Equal(got, want) {
				t.Errorf("the Builder wrote\n%v\nthe Tape\n%v", got, want)
			}
			if len(got) == 0 {
				t.Error("nothing written")
			}
		})
	}
}

// TestBuilderWritesThroughATapeThatAppeared: a tape made after the
// Builder started (another writer's) is not replaced: what the Builder
// holds goes after what it has, as handoffs and appends.
func TestBuilderWritesThroughATapeThatAppeared(t *testing.T) {
	ctx := context.Background()
	ws := smallWorkspace(t)
	tp := mustTape(t, ws, "s")
	b := tp.NewBuilder()
	steps := builderCases["phases"]
	if err := b.HandoffRecorded(*steps[0].anchor); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AppendRecordedEach(steps[1].entries, func(int, error) error { return nil }); err != nil {
		t.Fatal(err)
	}
	other := mustTape(t, ws, "s")
	if _, err := other.Append(ctx, msg("another writer's")); err != nil {
		t.Fatal(err)
	}
	if err := b.Place(ctx); err != nil {
		t.Fatal(err)
	}
	entries, bad := readAll(t, tp)
	got := ids(entries)
	if len(bad) != 0 || len(got) != 4 || got[2] != "a1" || got[3] != "m1" {
		t.Errorf("the tape reads %v (bad %v); want the bootstrap, the other writer's entry, then a1 and m1", got, bad)
	}
	tapeFiles(t, ws, "s") // no temporary folder left
}

// TestBuilderRemovesWhatKilledBuildersLeft: the temporary tape folders
// that no Builder holds locked are removed when a Builder places a tape;
// one still locked (a Builder of another process at work) is not.
func TestBuilderRemovesWhatKilledBuildersLeft(t *testing.T) {
	ctx := context.Background()
	ws := smallWorkspace(t)
	if err := ws.mkdirAll(tapesDir); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(ws.Dir(), tapesDir, fileutil.TempPrefix+"dead")
	busy := filepath.Join(ws.Dir(), tapesDir, fileutil.TempPrefix+"busy")
	for _, dir := range []string{dead, busy} {
		if err := os.MkdirAll(filepath.Join(dir, "anchors", "001_x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := os.Open(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := fileutil.Lock(lock); err != nil {
		t.Fatal(err)
	}
	b := mustTape(t, ws, "s").NewBuilder()
	if _, err := b.AppendRecordedEach([]Entry{msg("hi")}, func(int, error) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := b.Place(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead Builder's folder: %v; want it removed", err)
	}
	if _, err := os.Stat(busy); err != nil {
		t.Errorf("the busy Builder's folder: %v; want it kept", err)
	}
}
