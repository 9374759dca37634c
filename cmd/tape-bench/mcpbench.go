package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpBench times a search tool call over an open `tape mcp` session (the
// Go SDK's client over stdio, the round trip an agent pays), beside the
// same query as a whole `tape search --all-tapes --json` process, in the
// same rounds, taking turns to go first. Both read the index made fresh:
// with -watch (the default) a `tape watch` runs beside them and both sync
// with it, as an agent's machine has one started on demand; without, each
// catches up itself (TAPE_WATCH=off for both).
func mcpBench(args []string) error {
	fs := flags("mcp")
	dir, bin := workspaceFlags(fs)
	runs := fs.Int("runs", 20, "runs of each query")
	watch := fs.Bool("watch", true, "run tape watch beside them, which both sync with")
	fs.Parse(args)
	if err := prepare(dir, bin); err != nil {
		return err
	}
	if *watch {
		stop, err := startWatch(*dir, *bin)
		if err != nil {
			return err
		}
		defer stop()
	}
	ctx := context.Background()
	server := exec.Command(*bin, "mcp")
	server.Dir, server.Stderr = *dir, os.Stderr
	session, err := sdk.NewClient(&sdk.Implementation{Name: "tape-bench", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: server}, nil)
	if err != nil {
		return fmt.Errorf("start tape mcp: %w", err)
	}
	defer session.Close()
	call := func(q string) (time.Duration, error) {
		start := time.Now()
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "all_tapes": true}})
		d := time.Since(start)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return d, err
	}
	if _, err := call("warm"); err != nil { // the session's first read opens the index
		return err
	}
	var callTimes, procTimes, versionTimes []time.Duration
	for _, q := range searchQueries() {
		var qc, qp []time.Duration
		for run := range *runs {
			timeCall := func() error {
				d, err := call(q)
				qc = append(qc, d)
				return err
			}
			timeProc := func() error {
				d, err := timeOutput(*dir, io.Discard, *bin, "search", "--all-tapes", "--json", q)
				qp = append(qp, d)
				return err
			}
			first, second := timeCall, timeProc
			if run%2 == 1 {
				first, second = timeProc, timeCall
			}
			if err := first(); err != nil {
				return fmt.Errorf("search %s: %w", q, err)
			}
			if err := second(); err != nil {
				return fmt.Errorf("search %s: %w", q, err)
			}
		}
		d, err := timeCmd(*dir, *bin, "version")
		if err != nil {
			return err
		}
		versionTimes = append(versionTimes, d)
		fmt.Printf("  %-22s MCP call p50 %6.1f ms   tape search p50 %6.1f ms\n", q, ms(pct(qc, 50)), ms(pct(qp, 50)))
		callTimes, procTimes = append(callTimes, qc...), append(procTimes, qp...)
	}
	fmt.Printf("mcp: %d queries x %d runs, watcher %v: search tool call p50 %.1f ms, p95 %.1f ms; tape search process p50 %.1f ms, p95 %.1f ms; tape version p50 %.1f ms\n",
		len(searchQueries()), *runs, *watch, ms(pct(callTimes, 50)), ms(pct(callTimes, 95)), ms(pct(procTimes, 50)), ms(pct(procTimes, 95)), ms(pct(versionTimes, 50)))
	return listResources(ctx, session)
}

// listResources times resources/list, page by page, to the end: every
// tape and anchor of the workspace.
func listResources(ctx context.Context, session *sdk.ClientSession) error {
	var pages []time.Duration
	resources := 0
	start := time.Now()
	for cursor := ""; ; {
		t := time.Now()
		res, err := session.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		pages = append(pages, time.Since(t))
		resources += len(res.Resources)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	fmt.Printf("resources/list: %d resources in %d pages, %.1f ms in all; a page p50 %.1f ms, p95 %.1f ms\n",
		resources, len(pages), ms(time.Since(start)), ms(pct(pages, 50)), ms(pct(pages, 95)))
	return nil
}
