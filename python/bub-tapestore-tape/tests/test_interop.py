"""tape reads what the store writes, and the store reads what tape writes,
with the tape binary built from the same commit (support.tape_binary)."""

from __future__ import annotations

import json
import os
import unittest

from support import Query, TapeStore, entry, new_store, run_tape, tape_binary

T = "5d41402abc4b2a76__b9141b2d7c6e8a4f"


def bub_context(entries) -> list[dict]:
    """Bub's default context (bub.builtin.context._select_messages), as
    written from its behaviour: anchors as assistant notes, messages as
    they are, tool calls as an assistant message, each result a tool
    message paired with the call at its position."""
    messages: list[dict] = []
    pending: list[dict] = []
    for e in entries:
        if e.kind == "anchor":
            messages.append({"role": "assistant", "content": f"[Anchor created: {e.payload.get('name')}]: "
                             + json.dumps(e.payload.get("state"), ensure_ascii=False)})
        elif e.kind == "message":
            messages.append(dict(e.payload))
        elif e.kind == "tool_call":
            pending = [dict(c) for c in e.payload.get("calls") or [] if isinstance(c, dict)]
            if pending:
                messages.append({"role": "assistant", "content": "", "tool_calls": pending})
        elif e.kind == "tool_result":
            for i, r in enumerate(e.payload.get("results") or []):
                m = {"role": "tool", "content": r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)}
                if i < len(pending):
                    if pending[i].get("id"):
                        m["tool_call_id"] = pending[i]["id"]
                    name = (pending[i].get("function") or {}).get("name")
                    if name:
                        m["name"] = name
                messages.append(m)
            pending = []
    return messages


def write_session(store: TapeStore) -> None:
    """Two turns as Bub writes them, with a handoff and a spilled output."""
    d = "2026-11-28T10:00:%02d.000001+00:00"
    store.append(T, entry("anchor", {"name": "session/start", "state": {"owner": "human"}}, d % 0))
    store.append(T, entry("message", {"role": "user", "content": "列出文件 and find the flaky test"}, d % 1))
    store.append(T, entry("tool_call", {"calls": [{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"ls\"}"}}]}, d % 2))
    store.append(T, entry("tool_result", {"results": ["main.go\nflaky_test.go"]}, d % 3))
    store.append(T, entry("anchor", {"name": "spill/9f8e-0", "state": {"chunk": 0}}, d % 4))
    store.append(T, entry("tool_result", {"results": ["x" * 16384]}, d % 4))
    store.append(T, entry("anchor", {"name": "summary", "state": {"summary": "found flaky_test.go"}}, d % 5))
    store.append(T, entry("event", {"name": "handoff", "data": {"name": "summary", "state": {"summary": "found flaky_test.go"}}}, d % 5))
    store.append(T, entry("message", {"role": "user", "content": "fix it"}, d % 6))
    store.append(T, entry("tool_call", {"calls": [{"id": "call_2", "type": "function", "function": {"name": "edit", "arguments": "{}"}}]}, d % 7))
    store.append(T, entry("tool_result", {"results": [{"ok": True}]}, d % 8))
    store.append(T, entry("message", {"role": "assistant", "content": "修好了"}, d % 9))
    store.append(T, entry("event", {"name": "run", "data": {"status": "ok", "usage": {"input_tokens": 10, "output_tokens": 3}}}, d % 9))


class TapeReadsTheStoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        tape_binary()

    def setUp(self) -> None:
        self.store = new_store(self)
        write_session(self.store)
        self.ws = self.store.workspace
        self.entries = list(self.store.fetch_all(Query(T)))

    def test_log(self) -> None:
        out = run_tape(self.ws, "log", "--json", "--all", "--tape", T).stdout
        logged = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([(e["id"], e["kind"], e["payload"], e["date"]) for e in logged],
                         [(str(e.id), e.kind, e.payload, e.date) for e in self.entries])

    def test_context_is_bubs(self) -> None:
        out = json.loads(run_tape(self.ws, "context", "--json", "--tape", T).stdout)
        self.assertEqual(out, bub_context(self.store.fetch_all(Query(T).last_anchor())))

    def test_search_doctor_and_usage(self) -> None:
        hits = [json.loads(line) for line in run_tape(self.ws, "search", "--json", "--tape", T, "列出文件").stdout.splitlines()]
        self.assertEqual([h["id"] for h in hits], ["2"])
        self.assertEqual(run_tape(self.ws, "doctor").returncode, 0)
        usage = json.loads(run_tape(self.ws, "usage", "--json", "--tape", T).stdout)
        self.assertIn("10", json.dumps(usage))

    def test_text_query_through_tape_search(self) -> None:
        run_tape(self.ws, "reindex")  # an index: the store asks tape search
        store = TapeStore(self.ws, tape_binary=tape_binary())
        self.assertEqual([e.id for e in store.fetch_all(Query(T).query("flaky"))], [2, 4, 7, 8])  # the summary's state too
        # Words, not a substring: only tape search finds both in entry 4.
        self.assertEqual([e.id for e in store.fetch_all(Query(T).query("flaky main"))], [4])
        self.assertEqual([e.id for e in TapeStore(self.ws, tape_binary=None).fetch_all(Query(T).query("flaky main"))], [])
        self.assertEqual([e.id for e in store.fetch_all(Query(T).query("flaky").last_anchor())], [8])
        self.assertEqual([e.id for e in store.fetch_all(Query(T).query("修好了"))], [12])


class BeforeTheFirstAnchorTest(unittest.TestCase):
    """Entries Bub appends before any anchor (its tests do) go to 000_bub,
    which tape reads as no anchor: tape shows none that Bub did not write."""

    def test_no_anchor_appears(self) -> None:
        store = new_store(self)
        ws = store.workspace
        store.append(T, entry("event", {"name": "boot"}, "2026-11-28T10:00:00+00:00"))
        store.append(T, entry("message", {"role": "user", "content": "先于锚点"}, "2026-11-28T10:00:01+00:00"))
        logged = [json.loads(line) for line in run_tape(ws, "log", "--json", "--all", "--tape", T).stdout.splitlines()]
        self.assertEqual([(e["id"], e["kind"]) for e in logged], [("1", "event"), ("2", "message")])
        out = json.loads(run_tape(ws, "context", "--json", "--tape", T).stdout)
        self.assertEqual(out, bub_context(store.fetch_all(Query(T))))
        store.append(T, entry("anchor", {"name": "session/start", "state": {"owner": "human"}}, "2026-11-28T10:00:02+00:00"))
        store.append(T, entry("message", {"role": "user", "content": "after"}, "2026-11-28T10:00:03+00:00"))
        logged = [json.loads(line) for line in run_tape(ws, "log", "--json", "--all", "--tape", T).stdout.splitlines()]
        self.assertEqual([e["id"] for e in logged], [str(e.id) for e in store.fetch_all(Query(T))])
        out = json.loads(run_tape(ws, "context", "--json", "--tape", T).stdout)
        self.assertEqual(out, bub_context(store.fetch_all(Query(T).last_anchor())))
        info = json.loads(run_tape(ws, "info", "--json", "--tape", T).stdout)
        self.assertEqual((info["anchors"], info["last_anchor"]), (1, "session/start"))


def spill(store: TapeStore, tape: str, handle: str, text: str, date: str) -> int:
    """A tool result spilled as Bub's SpillStore.spill_tool_result writes it
    (bub.builtin.spill): to the sidecar tape, an anchor and a tool_result
    per 16 KiB of UTF-8, then a manifest anchor and event. The chunks."""
    data, chunks = text.encode("utf-8"), []
    start = 0
    while start < len(data):
        end = min(start + 16384, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:  # not inside a character
            end -= 1
        chunks.append(data[start:end].decode("utf-8"))
        start = end
    for i, chunk in enumerate(chunks):
        store.append(tape, entry("anchor", {"name": f"spill/{handle}/chunk/{i}", "state": None}, date))
        store.append(tape, entry("tool_result", {"results": [chunk]}, date, spill_handle=handle, spill_chunk=i))
    store.append(tape, entry("anchor", {"name": f"spill/{handle}/manifest", "state": None}, date))
    store.append(tape, entry("event", {"name": "spill.manifest", "data": {"handle": handle, "chunks": len(chunks)}}, date, spill_handle=handle))
    return len(chunks)


class SidecarSpillTest(unittest.TestCase):
    """Bub (from August 2026) spills large tool output to a sidecar tape and
    reads it back by anchor, a page of chunks at a time."""

    def test_spill_reads_back_as_bub_reads_it(self) -> None:
        store = new_store(self)
        sidecar = T + "__sidecar__spill"
        text = "第一行 output\n" * 9000  # 17 bytes a line: 153,000 bytes, chunks cut inside no character
        n = spill(store, sidecar, "h1", text, "2026-11-28T10:00:00+00:00")
        spill(store, sidecar, "h2", "another", "2026-11-28T10:00:01+00:00")
        [manifest] = store.fetch_all(Query(sidecar).after_anchor("spill/h1/manifest").kinds("event").limit(1))
        self.assertEqual(manifest.payload["data"]["chunks"], n)
        pages, cursor = [], 0
        while cursor < n:  # SpillStore.read: at most 4 chunks a call
            count = min(4, n - cursor)
            got = list(store.fetch_all(Query(sidecar).after_anchor(f"spill/h1/chunk/{cursor}").kinds("tool_result").limit(count)))
            self.assertEqual([e.meta["spill_chunk"] for e in got], list(range(cursor, cursor + count)))
            pages += [e.payload["results"][0] for e in got]
            cursor += count
        self.assertEqual("".join(pages), text)
        self.assertEqual(store.list_tapes(), [])  # a sidecar is no session tape
        listed = [json.loads(line)["name"] for line in run_tape(store.workspace, "tapes", "--json").stdout.splitlines()]
        self.assertIn(sidecar, listed)  # tape shows every tape
        hits = run_tape(store.workspace, "search", "--json", "--tape", sidecar, "第一行").stdout.splitlines()
        self.assertEqual(len(hits), n)


class StoreReadsTapeTest(unittest.TestCase):
    def test_what_tape_append_and_handoff_wrote(self) -> None:
        store = new_store(self)
        ws = store.workspace
        run_tape(ws, "append", "--tape", "t1", "--kind", "message", '{"role":"user","content":"hi from tape"}')
        run_tape(ws, "handoff", "--tape", "t1", "review", "--state", '{"branch":"fix-42"}')
        run_tape(ws, "append", "--tape", "t1", "--kind", "event", '{"name":"run","data":{"status":"ok"}}')
        logged = [json.loads(line) for line in run_tape(ws, "log", "--json", "--all", "--tape", "t1").stdout.splitlines()]
        got = list(store.fetch_all(Query("t1")))
        self.assertEqual([(e.kind, e.payload, e.date) for e in got], [(e["kind"], e["payload"], e["date"]) for e in logged])
        self.assertEqual([e.payload for e in store.fetch_all(Query("t1").after_anchor("review"))], [{"name": "run", "data": {"status": "ok"}}])
        store.append("t1", entry("message", {"role": "user", "content": "from Bub"}, "2026-11-28T10:00:00Z"))
        # tape's ids are ULIDs: Bub's count from 1. (Where it sorts among
        # tape's entries depends on its date against the clock's: not asked.)
        self.assertEqual([e.id for e in store.fetch_all(Query("t1")) if e.payload.get("content") == "from Bub"], [1])
        self.assertEqual(run_tape(ws, "doctor").returncode, 0)
        self.assertIn("from Bub", run_tape(ws, "log", "--tape", "t1").stdout)


if __name__ == "__main__":
    unittest.main()
