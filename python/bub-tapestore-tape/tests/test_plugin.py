"""plugin.py, as Bub loads it: with a stand-in for the parts of Bub it
uses (hookimpl, home, TapeEntry, BubError), since Bub is not installed
here; the store itself must import without Bub."""

from __future__ import annotations

import enum
import importlib
import os
import sys
import types
import unittest
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support import Query, entry, new_store


class ErrorKind(enum.Enum):
    INVALID_INPUT = "invalid_input"
    NOT_FOUND = "not_found"


class BubError(Exception):
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class BubTapeEntry:
    id: int
    kind: str
    payload: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    date: str = ""


def fake_bub(home: str) -> dict[str, types.ModuleType]:
    bub = types.ModuleType("bub")
    bub.hookimpl = lambda f: f  # type: ignore[attr-defined]
    bub.home = Path(home)  # type: ignore[attr-defined]
    tape = types.ModuleType("bub.tape")
    tape.TapeEntry = BubTapeEntry  # type: ignore[attr-defined]
    errors = types.ModuleType("bub.errors")
    errors.BubError, errors.ErrorKind = BubError, ErrorKind  # type: ignore[attr-defined]
    return {"bub": bub, "bub.tape": tape, "bub.errors": errors}


class PluginTest(unittest.TestCase):
    def setUp(self) -> None:
        self.assertNotIn("bub", sys.modules)
        importlib.import_module("bub_tapestore_tape.store")
        self.assertNotIn("bub", sys.modules, "the store imported Bub")
        self.home = os.path.dirname(new_store(self).workspace)
        for name, mod in fake_bub(self.home).items():
            sys.modules[name] = mod
            self.addCleanup(sys.modules.pop, name, None)
        sys.modules.pop("bub_tapestore_tape.plugin", None)
        self.plugin = importlib.import_module("bub_tapestore_tape.plugin")
        self.addCleanup(sys.modules.pop, "bub_tapestore_tape.plugin", None)

    def test_store_in_bub_home(self) -> None:
        env = {k: os.environ.pop(k) for k in ("TAPE_DIR", "BUB_TAPESTORE_TAPE_DIR") if k in os.environ}
        self.addCleanup(os.environ.update, env)
        store = self.plugin.provide_tape_store()
        self.assertEqual(store.workspace, os.path.join(self.home, "tape"))
        store.append("s__1", entry("anchor", {"name": "session/start"}, "2026-11-28T10:00:00Z"))
        [got] = store.fetch_all(Query("s__1"))
        self.assertIsInstance(got, BubTapeEntry)
        with self.assertRaises(BubError) as missing:
            store.fetch_all(Query("s__1").after_anchor("nope"))
        self.assertEqual(missing.exception.kind, ErrorKind.NOT_FOUND)
        with self.assertRaises(BubError) as bad:
            store.append("a/b", entry("event", {}, "x"))
        self.assertEqual(bad.exception.kind, ErrorKind.INVALID_INPUT)

    def test_tape_dir_first(self) -> None:
        os.environ["BUB_TAPESTORE_TAPE_DIR"] = os.path.join(self.home, "setting")
        self.addCleanup(os.environ.pop, "BUB_TAPESTORE_TAPE_DIR", None)
        self.assertEqual(self.plugin.workspace(), os.path.join(self.home, "setting"))
        os.environ["TAPE_DIR"] = os.path.join(self.home, "env")
        self.addCleanup(os.environ.pop, "TAPE_DIR", None)
        self.assertEqual(self.plugin.workspace(), os.path.join(self.home, "env"))


if __name__ == "__main__":
    unittest.main()
