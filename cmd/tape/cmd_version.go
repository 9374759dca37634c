package main

import (
	"fmt"
	"runtime/debug"
)

// VersionCmd is `tape version`.
type VersionCmd struct{}

func (c *VersionCmd) Run(env *Env) error {
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	_, err := fmt.Fprintf(env.Stdout, "tape %s\n", version)
	return err
}
