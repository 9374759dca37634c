"""Two scripted multi-turn sessions, as Bub writes them, interleaved on one
workspace: bootstrap anchors, turns appended in bursts, handoffs, spills
(in the tape, as Bub did before August 2026, and to a sidecar tape, as it
does since), and a reset. After every step the store answers as the
reference over what was appended, and tape reads the same entries."""

from __future__ import annotations

import json
import unittest

from support import Query, TapeEntry, entry, new_store, reference, run_tape, tape_binary
from test_interop import bub_context, spill

A = "1f3870be274f6c49__b7a31e5b1f5e1a4c"
B = "1f3870be274f6c49__9e107d9d372bb682"


class Session:
    """One Bub session: what it appended since its last reset."""

    def __init__(self, store, tape: str, hour: int) -> None:
        self.store, self.tape, self.hour, self.n, self.appended = store, tape, hour, 0, []

    def date(self) -> str:
        self.n += 1
        return f"2026-11-28T{self.hour:02d}:{self.n // 60:02d}:{self.n % 60:02d}.000001+08:00"

    def add(self, kind: str, payload: dict, **meta) -> None:
        e = entry(kind, payload, self.date(), **meta)
        self.store.append(self.tape, e)
        self.appended.append(TapeEntry(len(self.appended) + 1, e.kind, e.payload, e.meta, e.date))

    def bootstrap(self) -> None:
        self.add("anchor", {"name": "session/start", "state": {"owner": "human"}})

    def turn(self, i: int, text: str, spill_in_tape: bool = False) -> None:
        # One burst, as a fork merged back: dates may run backwards within it.
        self.add("message", {"role": "user", "content": f"第{i}轮 {text}"}, run_id=f"r{i}")
        self.add("tool_call", {"calls": [{"id": f"call_{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}, run_id=f"r{i}")
        if spill_in_tape:
            self.add("anchor", {"name": f"spill/h{i}-0", "state": {"chunk": 0}})
            self.add("tool_result", {"results": ["y" * 16384]}, run_id=f"r{i}")
        self.add("tool_result", {"results": [f"output {i} {text}"]}, run_id=f"r{i}")
        self.add("message", {"role": "assistant", "content": f"done {i} 好"}, run_id=f"r{i}")
        self.add("event", {"name": "run", "data": {"status": "ok", "usage": {"input_tokens": 10 * i, "output_tokens": i}}}, run_id=f"r{i}")

    def handoff(self, name: str, summary: str) -> None:
        self.add("anchor", {"name": name, "state": {"summary": summary}})
        self.add("event", {"name": "handoff", "data": {"name": name, "state": {"summary": summary}}})

    def reset(self) -> None:
        self.store.reset(self.tape)
        self.appended = []


class ScriptedSessionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        tape_binary()

    def check(self, s: Session) -> None:
        queries = [Query(s.tape), Query(s.tape).last_anchor(), Query(s.tape).kinds("message", "tool_result"),
                   Query(s.tape).after_anchor("session/start").limit(3), Query(s.tape).between_dates("2026-11-28", "2026-11-28")]
        names = [e.payload["name"] for e in s.appended if e.kind == "anchor"]
        if len(names) > 1:
            queries.append(Query(s.tape).between_anchors(names[0], names[-1]))
        for q in queries:
            self.assertEqual(list(s.store.fetch_all(q)), reference(s.appended, q), q)
        logged = [json.loads(line) for line in run_tape(s.store.workspace, "log", "--json", "--all", "--tape", s.tape).stdout.splitlines()]
        self.assertEqual([(e["id"], e["kind"]) for e in logged], [(str(e.id), e.kind) for e in s.appended])
        if names:
            ctx = json.loads(run_tape(s.store.workspace, "context", "--json", "--tape", s.tape).stdout)
            self.assertEqual(ctx, bub_context(reference(s.appended, Query(s.tape).last_anchor())))

    def test_two_sessions(self) -> None:
        store = new_store(self)
        a, b = Session(store, A, 9), Session(store, B, 17)
        a.bootstrap()
        b.add("event", {"name": "boot"})  # before its first anchor, as Bub's tests do
        b.bootstrap()
        for i in range(1, 4):
            a.turn(i, "find the flaky test", spill_in_tape=i == 2)
            b.turn(i, "审查 the diff")
            if i == 2:
                a.handoff("summary", "found flaky_test.go")
                spill(store, B + "__sidecar__spill", f"h{i}", "长输出 " * 6000, b.date())
            self.check(a)
            self.check(b)
        b.reset()
        self.assertEqual(list(store.fetch_all(Query(B))), [])
        b.bootstrap()
        b.turn(4, "after the reset")
        b.handoff("next", "重置之后")
        for s in (a, b):
            self.check(s)
        self.assertEqual([e.id for e in store.fetch_all(Query(B))], list(range(1, len(b.appended) + 1)))
        self.assertEqual(store.list_tapes(), sorted([A, B]))
        self.assertEqual(run_tape(store.workspace, "doctor").returncode, 0)


if __name__ == "__main__":
    unittest.main()
