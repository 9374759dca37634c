package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tape-dev/tape/testkit/pgtest"
)

// pgBench times the team index on PostgreSQL (issue 22) as whole
// processes, beside the local index in the same run:
//
//   - a first sync of the workspace into an empty database (entries/s),
//     beside a full rebuild of the local index (tape reindex --full);
//   - a sync with nothing new, beside a catch-up with nothing new (tape
//     reindex) and tape version;
//   - search --remote over the queries of tape-bench search, beside the
//     same queries on the local index (search --all-tapes), taking turns;
//   - tapes and usage --by model, --remote and local.
//
// Without -url it starts a PostgreSQL server of its own (package pgtest)
// with its fsyncs on, as a real server runs, on loopback. With -watch (the
// default), a tape watch runs beside the reads and the syncs with nothing
// new, as one started on demand does on a user's machine: the local
// reads, and the sync's own catch-up, sync with it.
func pgBench(args []string) error {
	fs := flags("pg")
	dir, bin := workspaceFlags(fs)
	url := fs.String("url", "", "the server's database (default: a server started for the run, its fsyncs on)")
	runs := fs.Int("runs", 20, "runs of each query and of the syncs with nothing new")
	first := fs.Bool("first", true, "time the first sync and the local rebuild (-url's database must be empty)")
	watch := fs.Bool("watch", true, "run tape watch beside the reads and the syncs with nothing new")
	fs.Parse(args)
	if err := prepare(dir, bin); err != nil {
		return err
	}
	if *url == "" {
		srv, err := pgtest.Start(context.Background(), pgtest.Options{Durable: true})
		if err != nil {
			return err
		}
		defer srv.Stop()
		db, err := srv.CreateDB(context.Background(), "bench")
		if err != nil {
			return err
		}
		*url = srv.URL(db)
		fmt.Printf("pg: a server of its own in %s (fsync on), database %s\n", srv.Dir, db)
	}
	if *first {
		if err := firstSync(*dir, *bin, *url); err != nil {
			return err
		}
	}
	if *watch {
		stop, err := startWatch(*dir, *bin)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := nothingNew(*dir, *bin, *url, *runs); err != nil {
		return err
	}
	return remoteReads(*dir, *bin, *url, *runs)
}

// firstSync times the first sync, and the local rebuild of the same files.
func firstSync(dir, bin, url string) error {
	var out bytes.Buffer
	d, err := timeOutput(dir, &out, bin, "sync", url, "--json")
	if err != nil {
		return err
	}
	var st struct {
		Entries, BadLines int
		Bytes             int64
		Tapes             int
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		return fmt.Errorf("tape sync --json: %w: %s", err, out.String())
	}
	rebuild, err := timeCmd(dir, bin, "reindex", "--full")
	if err != nil {
		return err
	}
	fmt.Printf("first sync: %d entries, %.1f MB of lines, %d tapes in %.1f s: %.0f entries/s; local rebuild (reindex --full) %.1f s: %.0f entries/s; ratio %.2f\n",
		st.Entries, float64(st.Bytes)/1e6, st.Tapes, d.Seconds(), float64(st.Entries)/d.Seconds(), rebuild.Seconds(),
		float64(st.Entries)/rebuild.Seconds(), d.Seconds()/rebuild.Seconds())
	return nil
}

// nothingNew times syncs and catch-ups that find nothing to do.
func nothingNew(dir, bin, url string, runs int) error {
	var syncs, catchups, versions []time.Duration
	for run := range runs {
		steps := []func() error{
			func() error { d, err := timeCmd(dir, bin, "sync", url); syncs = append(syncs, d); return err },
			func() error { d, err := timeCmd(dir, bin, "reindex"); catchups = append(catchups, d); return err },
			func() error { d, err := timeCmd(dir, bin, "version"); versions = append(versions, d); return err },
		}
		for i := range steps {
			if err := steps[(i+run)%len(steps)](); err != nil {
				return err
			}
		}
	}
	fmt.Printf("nothing new (%d runs): tape sync p50 %.1f ms, p95 %.1f ms; tape reindex p50 %.1f ms; tape version p50 %.1f ms\n",
		runs, ms(pct(syncs, 50)), ms(pct(syncs, 95)), ms(pct(catchups, 50)), ms(pct(versions, 50)))
	return nil
}

// remoteReads times the reads of --remote beside the same reads of the
// local index.
func remoteReads(dir, bin, url string, runs int) error {
	var remote, local []time.Duration
	for _, q := range searchQueries() {
		var qr, ql []time.Duration
		for run := range runs {
			r := func() error {
				d, err := timeOutput(dir, io.Discard, bin, "search", "--remote", url, "--json", q)
				qr = append(qr, d)
				return err
			}
			l := func() error {
				d, err := timeOutput(dir, io.Discard, bin, "search", "--all-tapes", "--json", q)
				ql = append(ql, d)
				return err
			}
			if run%2 == 1 {
				r, l = l, r
			}
			if err := r(); err != nil {
				return fmt.Errorf("search %s: %w", q, err)
			}
			if err := l(); err != nil {
				return fmt.Errorf("search %s: %w", q, err)
			}
		}
		fmt.Printf("  %-22s --remote p50 %6.1f ms   local p50 %6.1f ms\n", q, ms(pct(qr, 50)), ms(pct(ql, 50)))
		remote, local = append(remote, qr...), append(local, ql...)
	}
	fmt.Printf("search (%d queries x %d runs): --remote p50 %.1f ms, p95 %.1f ms; local p50 %.1f ms, p95 %.1f ms\n",
		len(searchQueries()), runs, ms(pct(remote, 50)), ms(pct(remote, 95)), ms(pct(local, 50)), ms(pct(local, 95)))
	for _, c := range [][]string{{"tapes", "--json"}, {"usage", "--by", "model", "--json"}} {
		var rt, lt []time.Duration
		for range runs {
			d, err := timeOutput(dir, io.Discard, bin, append([]string{c[0], "--remote", url}, c[1:]...)...)
			if err != nil {
				return err
			}
			rt = append(rt, d)
			args := c
			if c[0] == "usage" {
				args = append([]string{"usage", "--all-tapes"}, c[1:]...)
			}
			if d, err = timeOutput(dir, io.Discard, bin, args...); err != nil {
				return err
			}
			lt = append(lt, d)
		}
		fmt.Printf("%s: --remote p50 %.1f ms, p95 %.1f ms; local p50 %.1f ms\n", strings.Join(c, " "), ms(pct(rt, 50)), ms(pct(rt, 95)), ms(pct(lt, 50)))
	}
	return nil
}
