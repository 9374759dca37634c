"""Writers SIGKILLed at any point of an append or a handoff: what is left
reads as whole entries with ids 1..N, tape reads the same, and an index
kept while it happened answers as one rebuilt."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import unittest

from support import PACKAGE, Query, new_store, run_tape, tape_binary

WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from bub_tapestore_tape import TapeStore, TapeEntry
    store = TapeStore(sys.argv[2], tape_binary=None)
    seed = int(sys.argv[3])
    for i in range(100000):
        tape = f"t{(seed + i) % 3}"
        if i % 7 == 6:
            store.append(tape, TapeEntry(0, "anchor", {"name": f"w{seed}/{i}"}, {}, "2026-11-28T10:00:00Z"))
        else:
            store.append(tape, TapeEntry(0, "message", {"role": "user", "content": f"w{seed} {i} " + "字" * (i * 131 % 20000)}, {}, "2026-11-28T10:00:00Z"))
""")

ROUNDS = 8


class KilledWritersTest(unittest.TestCase):
    def test_sigkill(self) -> None:
        store = new_store(self)
        ws = store.workspace
        rng = random.Random(32)
        run_tape(ws, "reindex")  # an index kept by catch-ups while writers die
        for r in range(ROUNDS):
            procs = [subprocess.Popen([sys.executable, "-c", WRITER, os.path.join(PACKAGE, "src"), ws, str(r * 3 + k)])
                     for k in range(3)]
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not any(os.listdir(os.path.join(ws, "tapes"))):
                time.sleep(0.01)  # not a wait for a result: the writers' start, then a random moment
            time.sleep(rng.uniform(0.05, 0.3))
            for p in procs:
                p.send_signal(signal.SIGKILL)
                p.wait()
            run_tape(ws, "tapes")  # a catch-up between rounds
        for tape in store.list_tapes():
            got = list(store.fetch_all(Query(tape)))
            self.assertEqual([e.id for e in got], list(range(1, len(got) + 1)), tape)
            logged = [json.loads(line) for line in run_tape(ws, "log", "--json", "--all", "--tape", tape).stdout.splitlines()]
            self.assertEqual([e["id"] for e in logged], [str(e.id) for e in got], tape)
        kept = run_tape(ws, "search", "--json", "--all-tapes", "--limit", "100000", "字").stdout
        run_tape(ws, "reindex", "--full")
        rebuilt = run_tape(ws, "search", "--json", "--all-tapes", "--limit", "100000", "字").stdout
        self.assertEqual(sorted(kept.splitlines()), sorted(rebuilt.splitlines()))
        self.assertGreater(len(kept.splitlines()), 10)


if __name__ == "__main__":
    unittest.main()
