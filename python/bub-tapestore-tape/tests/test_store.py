"""append, reset and list_tapes on the folders, as docs/FORMAT.md says."""

from __future__ import annotations

import json
import os
import stat
import unittest
from unittest import mock

from support import InvalidInput, Query, TapeStore, entry, new_store

from bub_tapestore_tape import lines
from bub_tapestore_tape.names import BadName, slug

T = "0123456789abcdef__fedcba9876543210"


def lines_of(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


class AppendTest(unittest.TestCase):
    def setUp(self) -> None:
        self.store = new_store(self)
        self.anchors = os.path.join(self.store.workspace, "tapes", T, "anchors")

    def test_first_entry_makes_no_anchor(self) -> None:
        self.store.append(T, entry("event", {"name": "x"}, "2026-11-28T10:00:00+00:00"))
        self.assertEqual(os.listdir(self.anchors), ["000_bub"])
        self.assertEqual(os.listdir(os.path.join(self.anchors, "000_bub")), ["bub.jsonl"])
        got = list(self.store.fetch_all(Query(T)))
        self.assertEqual([(e.id, e.kind) for e in got], [(1, "event")])

    def test_anchor_is_a_folder_and_ids_are_on_the_lines(self) -> None:
        self.store.append(T, entry("anchor", {"name": "session/start", "state": {"owner": "human"}}, "2026-11-28T10:00:00+00:00"))
        self.store.append(T, entry("message", {"role": "user", "content": "你好"}, "2026-11-28T10:00:01+00:00"))
        self.store.append(T, entry("anchor", {"name": "审查/第一步"}, "2026-11-28T10:00:02+00:00"))
        self.store.append(T, entry("event", {"name": "handoff", "data": {"name": "审查/第一步"}}, "2026-11-28T10:00:02+00:00"))
        self.assertEqual(sorted(os.listdir(self.anchors)), ["001_session-start", "002_审查-第一步"])
        with open(os.path.join(self.anchors, "001_session-start", "anchor.json"), encoding="utf-8") as f:
            self.assertEqual(json.loads(f.read()), {"id": 1, "kind": "anchor", "payload": {"name": "session/start", "state": {"owner": "human"}},
                                                    "meta": {}, "date": "2026-11-28T10:00:00+00:00"})
        self.assertEqual([e["id"] for e in lines_of(os.path.join(self.anchors, "001_session-start", "bub.jsonl"))], [2])
        self.assertEqual([e["id"] for e in lines_of(os.path.join(self.anchors, "002_审查-第一步", "bub.jsonl"))], [4])

    def test_order_is_the_order_appended_whatever_the_dates(self) -> None:
        dates = ["2026-11-28T10:00:05Z", "2026-11-28T10:00:01Z", "2026-11-27T23:00:00+00:00", "2026-11-28 10:00:09"]
        for i, d in enumerate(dates):
            self.store.append(T, entry("message", {"role": "user", "content": str(i)}, d))
        self.assertEqual([e.payload["content"] for e in self.store.fetch_all(Query(T))], ["0", "1", "2", "3"])
        self.assertEqual([e.date for e in self.store.fetch_all(Query(T))], dates)

    def test_private_files(self) -> None:
        self.store.append(T, entry("anchor", {"name": "a"}, "2026-11-28T10:00:00Z"))
        self.store.append(T, entry("message", {"role": "user", "content": "secret"}, "2026-11-28T10:00:01Z"))
        for root, dirs, files in os.walk(self.store.workspace):
            for d in dirs:
                self.assertEqual(stat.S_IMODE(os.stat(os.path.join(root, d)).st_mode), 0o700, d)
            for f in files:
                self.assertEqual(stat.S_IMODE(os.stat(os.path.join(root, f)).st_mode), 0o600, f)

    def test_torn_line_ended_and_skipped(self) -> None:
        self.store.append(T, entry("message", {"role": "user", "content": "one"}, "2026-11-28T10:00:00Z"))
        path = os.path.join(self.anchors, "000_bub", "bub.jsonl")
        with open(path, "ab") as f:
            f.write(b'{"id":99,"kind":"message","payl')  # a writer died mid-line
        self.store.append(T, entry("message", {"role": "user", "content": "two"}, "2026-11-28T10:00:01Z"))
        with open(path, "rb") as f:
            self.assertIn(b'"payl<torn>\n{"id":2,', f.read())
        self.assertEqual([(e.id, e.payload["content"]) for e in self.store.fetch_all(Query(T))], [(1, "one"), (2, "two")])

    def test_other_writers_lines_count(self) -> None:
        other = TapeStore(self.store.workspace, tape_binary=None)  # another process, as far as the caches go
        for i in range(6):
            (self.store if i % 2 else other).append(T, entry("message", {"role": "user", "content": str(i)}, "2026-11-28T10:00:00Z"))
            if i == 3:
                other.append(T, entry("anchor", {"name": "mid"}, "2026-11-28T10:00:00Z"))
        self.assertEqual([e.id for e in self.store.fetch_all(Query(T))], list(range(1, 8)))

    def test_ids_continue_after_lines_tape_wrote(self) -> None:
        os.makedirs(os.path.join(self.anchors, "001_session-start"), mode=0o700)
        with open(os.path.join(self.anchors, "001_session-start", "events.jsonl"), "w") as f:
            f.write('{"id":"41","kind":"event","payload":{"name":"imported"}}\n')
            f.write('{"id":"01JDQ4ZC1V7M4Y8S5Q2P0T9K3A","kind":"event","payload":{"name":"tape"}}\n')
        self.store.append(T, entry("event", {"name": "next"}, "2026-11-28T10:00:00Z"))
        self.assertEqual([e.id for e in self.store.fetch_all(Query(T))], [0, 41, 0, 42])

    def test_new_store_finds_the_last_id_behind_a_folder_without_one(self) -> None:
        for i in range(3):
            self.store.append(T, entry("anchor", {"name": f"a{i}"}, "2026-11-28T10:00:00Z"))
            self.store.append(T, entry("message", {"role": "user", "content": str(i)}, "2026-11-28T10:00:00Z"))
        os.mkdir(os.path.join(self.anchors, "004_by-hand"), 0o700)  # as tape handoff: no integer id in it
        fresh = TapeStore(self.store.workspace, tape_binary=None)
        fresh.append(T, entry("message", {"role": "user", "content": "next"}, "2026-11-28T10:00:00Z"))
        self.assertEqual([e.id for e in fresh.fetch_all(Query(T))], [1, 2, 3, 4, 5, 6, 0, 7])

    def test_bad_input_refused(self) -> None:
        cases = {
            "empty tape name": lambda: self.store.append("", entry("event", {}, "x")),
            "slash": lambda: self.store.append("a/b", entry("event", {}, "x")),
            "dot": lambda: self.store.append("..", entry("event", {}, "x")),
            "bidi": lambda: self.store.append("a\u202eb", entry("event", {}, "x")),
            "long": lambda: self.store.append("x" * 121, entry("event", {}, "x")),
        }
        for name, call in cases.items():
            with self.subTest(name), self.assertRaises(BadName):
                call()
        for name, e in {
            "NaN": entry("event", {"v": float("nan")}, "x"),
            "object": entry("event", {"v": object()}, "x"),
            "anchor without a name": entry("anchor", {"state": {}}, "x"),
            "no kind": entry("", {}, "x"),
        }.items():
            with self.subTest(name), self.assertRaises(InvalidInput):
                self.store.append(T, e)
        self.assertEqual(list(self.store.fetch_all(Query(T))), [])

    def test_max_entry_bytes(self) -> None:
        with open(os.path.join(self.store.workspace, "config.json"), "w") as f:
            json.dump({"max_entry_bytes": 200}, f)
        small = TapeStore(self.store.workspace, tape_binary=None)
        small.append(T, entry("message", {"role": "user", "content": "ok"}, "2026-11-28T10:00:00Z"))
        with self.assertRaisesRegex(InvalidInput, "max_entry_bytes"):
            small.append(T, entry("message", {"role": "user", "content": "x" * 300}, "2026-11-28T10:00:00Z"))

    def test_slug(self) -> None:
        for name, want in {"session/start": "session-start", "审查/第一步": "审查-第一步", "../../etc": "etc",
                           "spill/3f2a-0": "spill-3f2a-0", "": "anchor", "!!": "anchor", "a  b": "a-b"}.items():
            self.assertEqual(slug(name), want, name)


class ReadTest(unittest.TestCase):
    def test_an_over_long_line_is_skipped_in_pieces(self) -> None:
        store = new_store(self)
        store.append(T, entry("message", {"role": "user", "content": "one"}, "2026-11-28T10:00:00Z"))
        path = os.path.join(store.workspace, "tapes", T, "anchors", "000_bub", "bub.jsonl")
        with open(path, "ab") as f:
            f.write(b'{"id":7,"kind":"message","payload":{"content":"' + b"x" * 5000 + b'"}}\n')
        store.append(T, entry("message", {"role": "user", "content": "two"}, "2026-11-28T10:00:01Z"))
        with mock.patch.object(lines, "MAX_LINE_BYTES", 1000):
            got = [(e.id, e.payload["content"]) for e in TapeStore(store.workspace, tape_binary=None).fetch_all(Query(T))]
        self.assertEqual(got, [(1, "one"), (8, "two")])

    def test_entries_are_bubs_to_change(self) -> None:
        store = new_store(self)
        store.append(T, entry("anchor", {"name": "a", "state": {"k": 1}}, "2026-11-28T10:00:00Z"))
        [first] = store.fetch_all(Query(T))
        first.payload["name"] = "changed"  # ForkTapeStore redacts payloads in place
        [again] = store.fetch_all(Query(T))
        self.assertEqual(again.payload["name"], "a")


class ResetTest(unittest.TestCase):
    def test_reset_reads_back_empty_and_keeps_the_old_anchors(self) -> None:
        store = new_store(self)
        store.append(T, entry("anchor", {"name": "session/start"}, "2026-11-28T10:00:00Z"))
        store.append(T, entry("message", {"role": "user", "content": "before"}, "2026-11-28T10:00:01Z"))
        self.assertEqual(store.list_tapes(), [T])
        store.reset(T)
        self.assertEqual(list(store.fetch_all(Query(T))), [])
        self.assertEqual(store.list_tapes(), [])
        archive = os.path.join(store.workspace, "archive")
        [kept] = os.listdir(archive)
        self.assertTrue(kept.startswith(T + "-"))
        self.assertEqual(sorted(os.listdir(os.path.join(archive, kept, "001_session-start"))), ["anchor.json", "bub.jsonl"])
        store.append(T, entry("anchor", {"name": "session/start"}, "2026-11-28T11:00:00Z"))
        store.append(T, entry("message", {"role": "user", "content": "after"}, "2026-11-28T11:00:01Z"))
        self.assertEqual([(e.id, e.kind) for e in store.fetch_all(Query(T))], [(1, "anchor"), (2, "message")])
        store.reset(T)
        self.assertEqual(len(os.listdir(archive)), 2)  # a second reset in the same second: -2

    def test_reset_of_no_tape(self) -> None:
        store = new_store(self)
        store.reset("never-written")
        self.assertEqual(store.list_tapes(), [])


class ListAndReadTest(unittest.TestCase):
    def test_sidecar_tapes_are_not_listed(self) -> None:
        # Bub spills large tool output to "<tape>__sidecar__spill", and its
        # FileTapeStore lists session tapes only.
        store = new_store(self)
        store.append(T, entry("event", {"name": "main"}, "2026-11-28T10:00:00Z"))
        store.append(T + "__sidecar__spill", entry("event", {"name": "spill"}, "2026-11-28T10:00:01Z"))
        self.assertEqual(store.list_tapes(), [T])
        self.assertEqual([e.payload["name"] for e in store.read(T + "__sidecar__spill")], ["spill"])

    def test_read_is_every_entry_or_none(self) -> None:
        store = new_store(self)
        self.assertIsNone(store.read(T))
        store.append(T, entry("event", {"name": "first"}, "2026-11-28T10:00:00Z"))
        store.append(T, entry("anchor", {"name": "session/start"}, "2026-11-28T10:00:01Z"))
        store.append(T, entry("event", {"name": "second"}, "2026-11-28T10:00:02Z"))
        self.assertEqual([(e.id, e.kind) for e in store.read(T)], [(1, "event"), (2, "anchor"), (3, "event")])
        store.reset(T)
        self.assertIsNone(store.read(T))


class WorkspaceTest(unittest.TestCase):
    def test_made_with_its_parents(self) -> None:
        parent = os.path.dirname(new_store(self).workspace)
        store = TapeStore(os.path.join(parent, "home", ".bub", "tape"), tape_binary=None)
        store.append(T, entry("event", {"name": "x"}, "2026-11-28T10:00:00Z"))
        self.assertEqual(store.list_tapes(), [T])
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(parent, "home")).st_mode), 0o700)

    def test_made_as_tape_init_makes_it(self) -> None:
        store = new_store(self)
        with open(os.path.join(store.workspace, "config.json")) as f:
            config = json.load(f)
        self.assertEqual(config["version"], 1)
        self.assertEqual(config["default_tape"], "main")
        self.assertTrue(os.path.isdir(os.path.join(store.workspace, "tapes")))


if __name__ == "__main__":
    unittest.main()
