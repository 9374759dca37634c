package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// VersionCmd is `tape version`.
type VersionCmd struct {
	JSON bool `help:"Print one JSON object: version, revision, time, modified, go."`
}

func (c *VersionCmd) Help() string {
	return `Prints the version of tape: a release's version (go install ...@v0.4.1),
else "(devel)" and, when it was built with go build in a git checkout, the
commit it was built from, that commit's date, and "modified" if the work
tree had changes. go run and go test builds carry no commit.

Example:
  tape version --json | jq -r .revision`
}

func (c *VersionCmd) Run(env *Env) error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	v := versionOf(info)
	if c.JSON {
		return newJSONLines(env.Stdout).write(v)
	}
	if _, err := fmt.Fprintln(env.Stdout, v.line()); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// versionRecord is what the build knows of itself; its JSON field names
// are a contract.
type versionRecord struct {
	Version  string  `json:"version"`  // the module's version, or "(devel)"
	Revision *string `json:"revision"` // the commit (vcs.revision); null when unknown
	Time     *string `json:"time"`     // the commit's date (vcs.time, RFC 3339); null when unknown
	Modified bool    `json:"modified"` // the work tree had changes (vcs.modified)
	Go       string  `json:"go"`       // the Go version that built it
}

// versionOf reads the build info Go embeds (nil when there is none).
func versionOf(info *debug.BuildInfo) versionRecord {
	v := versionRecord{Version: "(devel)"}
	if info == nil {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	v.Go = info.GoVersion
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = &s.Value
		case "vcs.time":
			v.Time = &s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// line is the human form: "tape v0.4.1", or "tape (devel) commit
// 1a2b3c4d5e6f 2026-11-22T10:04:05Z, modified" for a checkout's build.
func (v versionRecord) line() string {
	parts := []string{"tape", v.Version}
	if v.Revision != nil {
		parts = append(parts, "commit", (*v.Revision)[:min(12, len(*v.Revision))])
		if v.Time != nil {
			parts = append(parts, *v.Time)
		}
	}
	line := strings.Join(parts, " ")
	if v.Revision != nil && v.Modified {
		line += ", modified"
	}
	return line
}
