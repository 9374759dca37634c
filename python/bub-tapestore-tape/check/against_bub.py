"""The store against Bub's own code, from a checkout of bubbuild/bub (not
part of the test suite: it needs Bub's source and Python 3.12, as Bub does).

    python3.12 python/bub-tapestore-tape/check/against_bub.py BUB_CHECKOUT [--seeds 300] [--tape-bin tape]

1. Queries: random tapes appended to Bub's InMemoryTapeStore and to this
   store alike, then random queries built with Bub's TapeQuery; each answer
   (entries, or the kind of BubError) must be the one Bub's
   InMemoryQueryMixin gives.
2. A session: Bub's Tape, ForkTapeStore (turns merged back, one
   discarded), handoff, context=False, reset, and its default context
   selector, on both stores: entries, read_messages, info and anchors must
   be equal; then `tape context` and `tape log` of what the store wrote
   must give Bub's messages and ids.

Bub's package is loaded without its framework (bub/__init__.py imports
the agent, its providers and channels), and the few libraries the store
and tape modules import (loguru, rapidfuzz, pydantic) are stood in for
when absent: the modules checked are Bub's, as written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

STANDINS = {
    "loguru/__init__.py": "class _Quiet:\n    def __getattr__(self, name):\n        return lambda *a, **k: None\n\n\nlogger = _Quiet()\n",
    "rapidfuzz/__init__.py": "class fuzz:\n    WRatio = None\n\n\nclass process:\n    @staticmethod\n    def extractOne(*a, **k):\n        return None\n",
    "pydantic/__init__.py": "class BaseModel:\n    pass\n",
    "typing_extensions.py": "from typing import *  # noqa\nTypeIs = TypeGuard  # noqa: F405\n",
}


def load_bub(checkout: Path, scratch: Path) -> None:
    """Make `import bub.store` load checkout's modules without bub/__init__."""
    pkg = scratch / "bub"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        f"__path__ = [{str(checkout / 'src' / 'bub')!r}]\n"
        "def hookimpl(f=None, **kw):\n    return f if f is not None else (lambda g: g)\n")
    for name, text in STANDINS.items():
        module = name.split("/")[0].removesuffix(".py")
        try:
            __import__(module)
        except ImportError:
            path = scratch / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
    sys.path[:0] = [str(scratch), str(Path(__file__).resolve().parent.parent / "src")]


# 1. Queries.

NAMES = ["session/start", "plan", "spill/ab/chunk/0", "审查", "plan", "done"]
WORDS = ["alpha", "Beta", "flaky", "kind", "date", "修好了", "ls", "meta", "x"]


def rand_date(r: random.Random) -> str:
    day = r.choice(["2026-11-27", "2026-11-28", "2026-11-29"])
    t = f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"
    return r.choice([f"{day}T{t}+00:00", f"{day}T{t}.123456+08:00", f"{day}T{t}Z", f"{day}T{t}"])


def rand_entry(r: random.Random, TapeEntry: Any) -> Any:
    k, d = r.random(), rand_date(r)
    if k < 0.15:
        return TapeEntry(0, "anchor", {"name": r.choice(NAMES), "state": {"n": r.randint(0, 3)}}, {}, d)
    if k < 0.45:
        return TapeEntry(0, "message", {"role": r.choice(["user", "assistant"]), "content": " ".join(r.choices(WORDS, k=3))}, {}, d)
    if k < 0.6:
        return TapeEntry(0, "tool_call", {"calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}, {}, d)
    if k < 0.75:
        return TapeEntry(0, "tool_result", {"results": [" ".join(r.choices(WORDS, k=2))]}, {"run_id": "r"}, d)
    return TapeEntry(0, "event", {"name": r.choice(["run", "handoff", "step"]), "data": {"w": r.choice(WORDS)}}, {}, d)


def rand_query(r: random.Random, q: Any) -> Any:
    for _ in range(r.randint(0, 4)):
        c = r.randint(0, 6)
        if c == 0:
            q = q.after_anchor(r.choice(NAMES + ["missing", ""]))
        elif c == 1:
            q = q.last_anchor()
        elif c == 2:
            q = q.between_anchors(r.choice(NAMES + ["missing"]), r.choice(NAMES + ["missing"]))
        elif c == 3:
            a, b = sorted([rand_date(r), rand_date(r)]) if r.random() < 0.8 else (rand_date(r), rand_date(r))
            a, b = a[:10] if r.random() < 0.2 else a, b[:10] if r.random() < 0.4 else b
            q = q.between_dates("not a date" if r.random() < 0.05 else a, b)
        elif c == 4:
            q = q.kinds(*r.sample(["message", "tool_call", "tool_result", "event", "anchor"], r.randint(1, 2)))
        elif c == 5:
            q = q.limit(r.randint(0, 6))
        else:  # ASCII: Bub's in-memory match escapes non-ASCII (decision 0084)
            q = q.query(r.choice([w for w in WORDS if w.isascii()] + ["KIND", "alpha beta", "role"]))
    return q


def check_queries(seeds: int, workspace: str) -> int:
    from bub.errors import BubError
    from bub.store import InMemoryTapeStore, TapeQuery
    from bub.tape import TapeEntry
    from bub_tapestore_tape.plugin import BubTapeStore

    def answer(store: Any, q: Any) -> Any:
        try:
            return [(e.id, e.kind, e.payload, e.meta, e.date) for e in store.fetch_all(q)]
        except BubError as exc:
            return ("error", exc.kind)

    differ = asked = errors = found = 0
    for seed in range(seeds):
        r = random.Random(seed)
        ref, ours, tape = InMemoryTapeStore(), BubTapeStore(os.path.join(workspace, f"q{seed}")), "abc__def"
        ours._tape_binary = None  # the in-memory match; tape search is checked by the tests
        for _ in range(r.randint(0, 40)):
            e = rand_entry(r, TapeEntry)
            ref.append(tape, e)
            ours.append(tape, e)
            if r.random() < 0.03:
                ref.reset(tape)
                ours.reset(tape)
        for _ in range(60):
            q = rand_query(r, TapeQuery(tape=tape, store=ref))
            want, got = answer(ref, q), answer(ours, q)
            asked += 1
            errors += isinstance(want, tuple)
            found += len(want) if isinstance(want, list) else 0
            if want != got:
                differ += 1
                if differ <= 5:
                    print(f"seed {seed}: {q}\n  Bub:   {want}\n  store: {got}")
    print(f"queries: {asked} asked, {differ} differ (Bub raised for {errors}; {found} entries found)")
    return differ


# 2. A session.

async def session(tape: Any) -> None:
    await tape.ensure_bootstrap_anchor()
    for turn in range(3):
        async with tape.fork_tape(merge_back=True) as t:
            await t.record_chat(run_id=f"r{turn}", system_prompt="你是助手" if turn == 0 else None,
                                new_messages=[{"role": "user", "content": f"第{turn}轮: find the flaky test"}],
                                response_text=None,
                                tool_calls=[{"id": f"call_{turn}", "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"ls\"}"}}],
                                tool_results=["main.go\nflaky_test.go"], model="m",
                                usage={"prompt_tokens": 10 + turn, "completion_tokens": 3})
            await t.record_chat(run_id=f"r{turn}b", system_prompt=None, new_messages=[], response_text=f"done {turn} 好")
        if turn == 1:
            await tape.handoff(name="summary", state={"summary": "found flaky_test.go"})
    async with tape.fork_tape(merge_back=False) as t:
        await t.append_event("discarded", {})
    await tape.append_event("hidden", {}, context=False)


async def drive(store: Any, project: Path) -> dict[str, Any]:
    from bub.builtin.context import default_tape_context
    from bub.store import AsyncTapeStoreAdapter
    from bub.tape import Tape

    tape = Tape(project / "archive", AsyncTapeStoreAdapter(store), default_tape_context()).session_tape("s-1", project)
    await session(tape)
    out: dict[str, Any] = {
        "entries": [(e.id, e.kind, e.payload, e.meta) for e in await tape.store.fetch_all(tape.query())],
        "messages": await tape.read_messages(), "info": await tape.info(), "anchors": await tape.anchors()}
    await tape.reset(archive=False)
    out["after reset"] = [(e.id, e.kind, e.payload) for e in await tape.store.fetch_all(tape.query())]
    return out


def check_session(tape_bin: str, workspace: str) -> int:
    from bub.store import InMemoryTapeStore
    from bub_tapestore_tape.plugin import BubTapeStore

    project, tape_dir = Path(workspace), os.path.join(workspace, ".tape")
    want = asyncio.run(drive(InMemoryTapeStore(), project))
    got = asyncio.run(drive(BubTapeStore(tape_dir), project))
    failed = [k for k in want if want[k] != got[k]]
    for k in failed:
        print(f"session: {k} differs\n  Bub:   {want[k]}\n  store: {got[k]}")
    # The tape as it was before Bub's reset, which the store archived.
    [kept] = os.listdir(os.path.join(tape_dir, "archive"))
    os.makedirs(os.path.join(tape_dir, "tapes", "kept"))
    os.rename(os.path.join(tape_dir, "archive", kept), os.path.join(tape_dir, "tapes", "kept", "anchors"))
    env = dict(os.environ, TAPE_DIR=tape_dir, TAPE_WATCH="off")

    def tape(*args: str) -> str:
        return subprocess.run([tape_bin, *args, "--tape", "kept"], env=env, capture_output=True, text=True, check=True).stdout

    if json.loads(tape("context", "--json")) != want["messages"]:
        failed.append("tape context")
        print(f"session: tape context differs from Bub's read_messages\n  tape: {tape('context', '--json')}")
    if [json.loads(line)["id"] for line in tape("log", "--all", "--json").splitlines()] != [str(e[0]) for e in want["entries"]]:
        failed.append("tape log")
        print("session: tape log's ids differ from Bub's")
    print(f"session: {len(want['entries'])} entries, {len(want['messages'])} context messages; "
          f"{'all equal' if not failed else 'differ: ' + ', '.join(failed)}")
    return len(failed)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bub", type=Path, help="a checkout of bubbuild/bub")
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--tape-bin", default="tape")
    args = ap.parse_args()
    if sys.version_info < (3, 12):
        sys.exit("Bub's source needs Python 3.12 or later")
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as ws2:
        load_bub(args.bub.resolve(), Path(scratch))
        bad = check_queries(args.seeds, ws) + check_session(args.tape_bin, ws2)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
