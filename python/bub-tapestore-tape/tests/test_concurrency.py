"""Processes and threads appending and handing off at once: no torn line,
and ids exactly 1..N on each tape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import unittest

from support import PACKAGE, Query, new_store

WRITER = textwrap.dedent("""
    import sys, threading
    sys.path.insert(0, sys.argv[1])
    from bub_tapestore_tape import TapeStore, TapeEntry
    store = TapeStore(sys.argv[2], tape_binary=None)
    proc, n = int(sys.argv[3]), int(sys.argv[4])
    def work(thread):
        for i in range(n):
            tape = "shared" if i % 2 else f"tape-{thread % 2}"
            if i % 10 == 9:
                store.append(tape, TapeEntry(0, "anchor", {"name": f"p{proc}/t{thread}/{i}"}, {}, "2026-11-28T10:00:00Z"))
                store.append(tape, TapeEntry(0, "event", {"name": "handoff"}, {}, "2026-11-28T10:00:00Z"))
            else:
                text = f"p{proc} t{thread} i{i} " + "长" * (i * 97 % 9000)
                store.append(tape, TapeEntry(0, "message", {"role": "user", "content": text}, {}, "2026-11-28T10:00:00Z"))
    threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    for t in threads: t.start()
    for t in threads: t.join()
""")

PROCESSES, PER_THREAD = 4, 40


class ConcurrencyTest(unittest.TestCase):
    def test_processes_and_threads(self) -> None:
        store = new_store(self)
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, os.path.join(PACKAGE, "src"), store.workspace, str(p), str(PER_THREAD)])
                 for p in range(PROCESSES)]
        for p in procs:
            self.assertEqual(p.wait(timeout=120), 0)
        total = 0
        for tape in store.list_tapes():
            entries = list(store.fetch_all(Query(tape)))
            self.assertEqual([e.id for e in entries], list(range(1, len(entries) + 1)), tape)
            total += len(entries)
        # every append of every writer, each anchor with its handoff event
        self.assertEqual(total, PROCESSES * 3 * (PER_THREAD + PER_THREAD // 10))
        for root, _, files in os.walk(os.path.join(store.workspace, "tapes")):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    for no, line in enumerate(f, 1):
                        self.assertTrue(line.endswith(b"\n"), f"{name}:{no}")
                        json.loads(line)  # no torn or glued line


if __name__ == "__main__":
    unittest.main()
