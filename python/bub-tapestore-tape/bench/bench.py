"""Benchmarks of the store, for BENCHMARKS.md: append p50 at entries 10,
10,000 and 100,000 of one tape, and fetch_all of 10,000 entries, each with
a baseline run beside it (a bare flock'd O_APPEND write of the same line;
json.loads of every line of the same file).

    python3 python/bub-tapestore-tape/bench/bench.py [-runs 200]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

from bub_tapestore_tape import TapeEntry, TapeStore  # noqa: E402
from bub_tapestore_tape.query import TapeQuery as Query  # noqa: E402


def message(i: int) -> TapeEntry:
    return TapeEntry(0, "message", {"role": "user" if i % 2 else "assistant", "content": f"turn {i}: " + "lorem ipsum " * 20},
                     {}, "2026-11-28T10:00:00.000001+00:00")


def fill(store: TapeStore, tape: str, n: int) -> None:
    store.append(tape, TapeEntry(0, "anchor", {"name": "session/start", "state": {"owner": "human"}}, {}, "2026-11-28T10:00:00+00:00"))
    for i in range(1, n):
        if i % 1000 == 0:
            store.append(tape, TapeEntry(0, "anchor", {"name": f"turn/{i}"}, {}, "2026-11-28T10:00:00+00:00"))
        else:
            store.append(tape, message(i))


def bare_append(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, data)
    finally:
        os.close(fd)


def p50_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-runs", type=int, default=200)
    args = ap.parse_args()
    ws = os.path.join(tempfile.mkdtemp(prefix="tapestore-bench-"), ".tape")
    store = TapeStore(ws, tape_binary=None)
    line = (b'{"id":1,"kind":"message","payload":{"role":"user","content":"' + b"lorem ipsum " * 20 + b'"},"meta":{},"date":"x"}\n')
    bare = os.path.join(ws, "bare.jsonl")
    print("| entries on the tape | append p50 | bare flock'd write, same runs | ratio |")
    print("| --- | --- | --- | --- |")
    for n in (10, 10_000, 100_000):
        tape = f"bench-{n}"
        fill(store, tape, n)
        ours, base = [], []
        for i in range(args.runs):  # taking turns
            t0 = time.perf_counter()
            store.append(tape, message(i))
            t1 = time.perf_counter()
            bare_append(bare, line)
            t2 = time.perf_counter()
            ours.append(t1 - t0)
            base.append(t2 - t1)
        print(f"| {n:,} | {p50_us(ours):.1f} µs | {p50_us(base):.1f} µs | {p50_us(ours) / p50_us(base):.1f} |")
    tape = "bench-10000"
    fetch, parse = [], []
    folder = os.path.join(ws, "tapes", tape, "anchors")
    files = [os.path.join(folder, d, f) for d in sorted(os.listdir(folder)) for f in os.listdir(os.path.join(folder, d)) if f.endswith(".jsonl")]
    import json
    for _ in range(max(5, args.runs // 20)):
        t0 = time.perf_counter()
        got = list(store.fetch_all(Query(tape)))
        t1 = time.perf_counter()
        count = 0
        for path in files:
            with open(path, "rb") as f:
                for raw in f:
                    json.loads(raw)
                    count += 1
        t2 = time.perf_counter()
        fetch.append(t1 - t0)
        parse.append(t2 - t1)
    print(f"\nfetch_all of {len(got):,} entries: p50 {statistics.median(fetch) * 1e3:.1f} ms; "
          f"json.loads of its {count:,} lines, same runs: {statistics.median(parse) * 1e3:.1f} ms; "
          f"ratio {statistics.median(fetch) / statistics.median(parse):.2f}")
    cold = TapeStore(ws, tape_binary=None)
    t0 = time.perf_counter()
    cold.append("bench-100000", message(0))
    print(f"first append of a new store to the tape of 100,000 (it reads the current folder once): {(time.perf_counter() - t0) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
