package main

import (
	"runtime/debug"
	"testing"
)

// buildInfo is the build info Go embeds in a binary, as tests make it.
func buildInfo(version string, settings ...string) *debug.BuildInfo {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/tape-dev/tape", Version: version}}
	for i := 0; i+1 < len(settings); i += 2 {
		info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return info
}

// TestVersionLine holds tape version to what the build knows of itself:
// a release's version, else the commit it was built from, with its date
// and whether the work tree had changes.
func TestVersionLine(t *testing.T) {
	t.Parallel()
	const rev = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "tape (devel)"},
		{"go run: no version control", buildInfo("(devel)"), "tape (devel)"},
		{"go install of a release", buildInfo("v0.4.1"), "tape v0.4.1"},
		{"built in a checkout", buildInfo("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-22T10:04:05Z", "vcs.modified", "false"),
			"tape (devel) commit 1a2b3c4d5e6f 2026-11-22T10:04:05Z"},
		{"built in a checkout with changes", buildInfo("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-22T10:04:05Z", "vcs.modified", "true"),
			"tape (devel) commit 1a2b3c4d5e6f 2026-11-22T10:04:05Z, modified"},
		{"a pseudo-version Go made from the checkout", buildInfo("v0.4.2-0.20261122100405-1a2b3c4d5e6f+dirty", "vcs.revision", rev, "vcs.time", "2026-11-22T10:04:05Z", "vcs.modified", "true"),
			"tape v0.4.2-0.20261122100405-1a2b3c4d5e6f+dirty commit 1a2b3c4d5e6f 2026-11-22T10:04:05Z, modified"},
		{"a revision without a date", buildInfo("", "vcs.revision", "abc123"), "tape (devel) commit abc123"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(tc.info).line(); got != tc.want {
				t.Errorf("tape version = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVersionJSON checks the fields of tape version --json: null for what
// the build does not know.
func TestVersionJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := jsonRecords(t, mustRun(t, dir, "version", "--json"))
	if len(recs) != 1 {
		t.Fatalf("tape version --json printed %d objects", len(recs))
	}
	for _, k := range []string{"version", "revision", "time", "modified", "go"} {
		if _, ok := recs[0][k]; !ok {
			t.Errorf("tape version --json has no %q: %v", k, recs[0])
		}
	}
	v := versionOf(buildInfo("(devel)", "vcs.revision", "abc", "vcs.time", "2026-11-22T10:04:05Z"))
	if *v.Revision != "abc" || *v.Time != "2026-11-22T10:04:05Z" || v.Modified || v.Go != "go1.26.0" {
		t.Errorf("versionOf = %+v", v)
	}
}
