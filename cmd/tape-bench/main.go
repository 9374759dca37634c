// Command tape-bench produces the figures of BENCHMARKS.md: it generates
// corpora, and times the tape binary against baselines run beside it
// (native SQLite through Python, ripgrep, tape version, another tape
// binary).
//
//	go run ./cmd/tape-bench gen -entries 100000 -out /tmp/c100k
//	go run ./cmd/tape-bench gen -tapes 10000 -out /tmp/many10k     # sessions, one tape each
//	go run ./cmd/tape-bench rebuild -dir /tmp/c100k -tape ./bin/tape
//	go run ./cmd/tape-bench native -dir /tmp/c100k
//	go run ./cmd/tape-bench search -dir /tmp/c100k -tape ./bin/tape
//	go run ./cmd/tape-bench many -dir /tmp/many10k -tape ./bin/tape -runs 30 [-vs BIN2 -vs-dir DIR2]
//	go run ./cmd/tape-bench mcp -dir /tmp/c1m -tape ./bin/tape -runs 20 [-watch=false]
//	go run ./cmd/tape-bench serve -dir /tmp/t10k -tape ./bin/tape -runs 30
//	go run ./cmd/tape-bench transcripts -mb 500 -out /tmp/claude500
//	go run ./cmd/tape-bench import -src /tmp/claude500 -tape ./bin/tape -ccusage /tmp/ccu/node_modules/.bin/ccusage
//	go run ./cmd/tape-bench pg -dir /tmp/many28k -tape ./bin/tape -runs 20 [-url postgres://...]
//	go run ./cmd/tape-bench home -out /tmp/home -copies 400    # every source's golden transcripts, copied
//	go run ./cmd/tape-bench sources -home /tmp/home -tape ./bin/tape -runs 5
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tape-bench gen|ui|screens|rebuild|native|search|catchup|views|usage|usage-gen|many|mcp|serve|transcripts|copies|import|pg|home|sources [flags]")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"gen": gen, "ui": uiBench, "screens": screens, "rebuild": rebuild, "native": native, "search": search, "catchup": catchup, "views": viewsBench, "usage": usageBench, "usage-gen": usageGen,
		"many": many, "mcp": mcpBench, "serve": serveBench, "transcripts": transcripts, "copies": copies, "import": importBench,
		"pg": pgBench, "home": home, "sources": sourcesBench,
	}
	run, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "tape-bench: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "tape-bench: %v\n", err)
		os.Exit(1)
	}
}

func flags(name string) *flag.FlagSet { return flag.NewFlagSet(name, flag.ExitOnError) }

// workspaceFlags are the flags of the commands that run tape on a corpus.
func workspaceFlags(fs *flag.FlagSet) (dir, bin *string) {
	return fs.String("dir", "", "the project folder holding .tape/"), fs.String("tape", "./bin/tape", "the tape binary")
}

// absolute makes a path absolute: the commands run in the corpus folder.
func absolute(path *string) {
	if abs, err := filepath.Abs(*path); err == nil {
		*path = abs
	}
}
