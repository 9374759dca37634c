package projector

import (
	"context"
	"os"
	"testing"

	"github.com/tape-dev/tape/internal/fts5"
	tapelog "github.com/tape-dev/tape/log"
)

func diagnose(t *testing.T, p *Projector) *Diagnosis {
	t.Helper()
	d, err := p.Doctor(context.Background(), Watched{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func problemsOf(d *Diagnosis, check string) []tapelog.Problem {
	var found []tapelog.Problem
	for _, p := range d.Problems {
		if p.Check == check {
			found = append(found, p)
		}
	}
	return found
}

// Doctor names the files a killed build left, unless a pass runs.
func TestDoctorReportsAKilledBuild(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	appendMsg(t, ws, "main", "okapi")
	p := openProjector(t, ws)
	catchUp(t, p)
	if err := os.WriteFile(ws.Abs(fts5.BuildFile(1)), []byte("words"), 0o600); err != nil {
		t.Fatal(err)
	}
	left := problemsOf(diagnose(t, p), tapelog.CheckTempFile)
	if len(left) != 1 || left[0].Path != fts5.BuildFile(1) {
		t.Errorf("temp_file problems = %+v; want %s", left, fts5.BuildFile(1))
	}
	held := openProjector(t, ws)
	if err := held.withLock(context.Background(), 0, func() error {
		if got := problemsOf(diagnose(t, p), tapelog.CheckTempFile); len(got) != 0 {
			t.Errorf("temp_file problems while a pass holds the index = %+v; want none: it may be building", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
