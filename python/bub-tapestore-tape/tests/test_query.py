"""fetch_all selects what Bub's in-memory store selects, query by query."""

from __future__ import annotations

import itertools
import unittest

from support import InvalidInput, NotFound, Query, entry, new_store, reference

TAPE = "6b3f1c2a9d8e7f60__0a1b2c3d4e5f6a7b"


def session() -> list:
    """A session as Bub writes one: entries before any anchor, anchors with
    names used twice, handoff events, a spill, dates out of order, Chinese."""
    es = [entry("event", {"name": "boot"}, "2026-11-20T09:00:00+00:00")]
    day = 20
    for turn, name in enumerate(["session/start", "plan", "spill/abc-1", "plan", "审查", "session/start", "done"]):
        d = f"2026-11-{day + turn:02d}"
        es.append(entry("anchor", {"name": name, "state": {"turn": turn}}, f"{d}T10:00:00+00:00"))
        es.append(entry("event", {"name": "handoff", "data": {"name": name}}, f"{d}T10:00:00.5+00:00"))
        es.append(entry("message", {"role": "user", "content": f"第{turn}轮 Find the Error {turn}"}, f"{d}T10:00:01+00:00"))
        es.append(entry("tool_call", {"calls": [{"id": f"c{turn}", "function": {"name": "bash"}}]}, f"{d}T10:00:02"))
        es.append(entry("tool_result", {"results": [f"out {turn}"]}, f"{d} 10:00:03+08:00"))
        es.append(entry("message", {"role": "assistant", "content": f"answer {turn}"}, f"{d}T09:59:00+00:00"))
    return es


class QuerySemanticsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.store = new_store(self)
        self.written = session()
        for e in self.written:
            self.store.append(TAPE, e)
        self.stored = list(self.store.fetch_all(Query(TAPE)))

    def test_reads_back_in_order_with_ids(self) -> None:
        self.assertEqual([e.id for e in self.stored], list(range(1, len(self.written) + 1)))
        self.assertEqual([(e.kind, e.payload, e.date) for e in self.stored],
                         [(e.kind, e.payload, e.date) for e in self.written])

    def test_every_query_as_bub(self) -> None:
        names = ["session/start", "plan", "spill/abc-1", "审查", "done", "missing"]
        anchors = [None, "last"] + [("after", n) for n in names] + [("between", a, b) for a, b in itertools.product(names, repeat=2)]
        filters = [
            lambda q: q,
            lambda q: q.kinds("message"),
            lambda q: q.kinds("tool_result", "anchor"),
            lambda q: q.limit(2),
            lambda q: q.limit(0),
            lambda q: q.query("error"),
            lambda q: q.query("第3轮"),
            lambda q: q.query("ANSWER").kinds("message").limit(1),
            lambda q: q.between_dates("2026-11-21", "2026-11-23"),
            lambda q: q.between_dates("2026-11-21T10:00:01", "2026-11-22T02:00:03Z"),
            lambda q: q.between_dates("2026-11-25", "2026-11-21"),
            lambda q: q.between_dates("yesterday", "2026-11-21"),
        ]
        checked = 0
        for a, f in itertools.product(anchors, filters):
            q = Query(TAPE)
            if a == "last":
                q = q.last_anchor()
            elif isinstance(a, tuple) and a[0] == "after":
                q = q.after_anchor(a[1])
            elif isinstance(a, tuple):
                q = q.between_anchors(a[1], a[2])
            q = f(q)
            with self.subTest(query=q):
                try:
                    want = [e.id for e in reference(self.stored, q)]
                except (NotFound, InvalidInput) as exc:
                    with self.assertRaises(type(exc)):
                        self.store.fetch_all(q)  # raises at once, not when iterated
                    continue
                self.assertEqual([e.id for e in self.store.fetch_all(q)], want)
                checked += 1
        self.assertGreater(checked, 150)

    def test_precedence(self) -> None:
        q = Query(TAPE).after_anchor("plan").last_anchor().between_anchors("plan", "审查")
        self.assertEqual([e.id for e in self.store.fetch_all(q)], [e.id for e in reference(self.stored, q)])
        self.assertEqual(self.store.fetch_all(q).__class__.__name__, "generator")

    def test_missing_tape(self) -> None:
        self.assertEqual(list(self.store.fetch_all(Query("nobody"))), [])
        with self.assertRaises(NotFound):
            self.store.fetch_all(Query("nobody").last_anchor())


if __name__ == "__main__":
    unittest.main()
