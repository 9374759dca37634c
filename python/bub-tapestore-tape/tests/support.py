"""What the tests share: Bub's query object and the reference semantics,
written here from Bub's documented behaviour (its InMemoryQueryMixin), a
store in a temporary workspace, and the tape binary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import date, datetime, time, timezone
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(PACKAGE))
sys.path.insert(0, os.path.join(PACKAGE, "src"))

from bub_tapestore_tape import TapeEntry, TapeStore  # noqa: E402
from bub_tapestore_tape.query import InvalidInput, NotFound, TapeQuery as Query  # noqa: E402


def reference(entries: list[TapeEntry], q: Query) -> list[TapeEntry]:
    """What Bub's in-memory store answers: the behaviour issue 32 states."""
    def anchor_index(name: str | None, forward: bool, start: int = 0) -> int:
        rng = range(start, len(entries)) if forward else range(len(entries) - 1, start - 1, -1)
        for i in rng:
            if entries[i].kind == "anchor" and (name is None or entries[i].payload.get("name") == name):
                return i
        return -1

    start, end = 0, None
    if q._between_anchors is not None:
        a, b = q._between_anchors
        i = anchor_index(a, False)
        if i < 0:
            raise NotFound(a)
        j = anchor_index(b, True, i + 1)
        if j < 0:
            raise NotFound(b)
        start = min(i + 1, len(entries))
        end = min(max(start, j), len(entries))
    elif q._after_last:
        i = anchor_index(None, False)
        if i < 0:
            raise NotFound("no anchors")
        start = min(i + 1, len(entries))
    elif q._after_anchor is not None:
        i = anchor_index(q._after_anchor, False)
        if i < 0:
            raise NotFound(q._after_anchor)
        start = min(i + 1, len(entries))
    out = entries[start:end]
    if q._between_dates is not None:
        lo, hi = boundary(q._between_dates[0], False), boundary(q._between_dates[1], True)
        if lo > hi:
            raise InvalidInput("start after end")
        out = [e for e in out if lo <= boundary(e.date, False) <= hi]
    if q._query:
        needle = q._query.casefold()
        out = [e for e in out if needle in json.dumps(
            {"kind": e.kind, "date": e.date, "payload": e.payload, "meta": e.meta},
            sort_keys=True, default=str, ensure_ascii=False).casefold()]
    if q._kinds:
        out = [e for e in out if e.kind in q._kinds]
    if q._limit is not None:
        out = out[: q._limit]
    return out


def boundary(value: str, is_end: bool) -> datetime:
    if "T" not in value and " " not in value:
        try:
            return datetime.combine(date.fromisoformat(value), time.max if is_end else time.min, tzinfo=timezone.utc)
        except ValueError:
            pass
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        try:
            d = date.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInput(value) from exc
        parsed = datetime.combine(d, time.max if is_end else time.min, tzinfo=timezone.utc)
    return parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed.astimezone(timezone.utc)


def new_store(test: Any, **kw: Any) -> TapeStore:
    """A store on a new workspace, removed when test ends."""
    d = tempfile.mkdtemp(prefix="tapestore-")
    test.addCleanup(shutil.rmtree, d, True)
    kw.setdefault("tape_binary", None)
    return TapeStore(os.path.join(d, ".tape"), **kw)


def entry(kind: str, payload: dict[str, Any], date: str, **meta: Any) -> TapeEntry:
    return TapeEntry(0, kind, payload, dict(meta), date)


_BINARY: list[str] = []


def tape_binary() -> str:
    """The tape binary: $TAPE_BIN (.ci/run builds it from the same commit),
    else one built now from this repository with go."""
    if _BINARY:
        return _BINARY[0]
    path = os.environ.get("TAPE_BIN")
    if not path:
        out = tempfile.mkdtemp(prefix="tape-bin-")
        path = os.path.join(out, "tape")
        subprocess.run(["go", "build", "-o", path, "./cmd/tape"], cwd=REPO, check=True)
    _BINARY.append(path)
    return path


def run_tape(ws: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TAPE_DIR=ws, TAPE_WATCH="off", NO_COLOR="1")
    return subprocess.run([tape_binary(), *args], env=env, capture_output=True, text=True, check=check)
