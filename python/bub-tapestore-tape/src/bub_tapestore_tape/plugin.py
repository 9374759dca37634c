"""What Bub loads through its `bub` entry point: the provide_tape_store
hook, giving a TapeStore on the tape workspace named by TAPE_DIR, else
BUB_TAPESTORE_TAPE_DIR, else <Bub's home>/tape (~/.bub/tape).

This module imports Bub; the store itself does not. Errors reach Bub as
its own BubError (NOT_FOUND for a missing anchor, INVALID_INPUT for a bad
query, name or entry), and entries as its own TapeEntry.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

import bub
from bub import hookimpl

from bub_tapestore_tape.names import BadName
from bub_tapestore_tape.query import InvalidInput, NotFound
from bub_tapestore_tape.store import TapeStore

SETTING = "BUB_TAPESTORE_TAPE_DIR"


class BubTapeStore(TapeStore):
    """TapeStore speaking Bub's types."""

    def __init__(self, workspace: str | os.PathLike[str]) -> None:
        from bub.tape import TapeEntry

        super().__init__(workspace, entry_type=TapeEntry)

    def fetch_all(self, query: Any) -> Iterable[Any]:
        with _bub_errors():
            return super().fetch_all(query)

    def append(self, tape: str, entry: Any) -> None:
        with _bub_errors():
            super().append(tape, entry)

    def reset(self, tape: str) -> None:
        with _bub_errors():
            super().reset(tape)


@contextmanager
def _bub_errors() -> Iterator[None]:
    """Raise the store's errors as Bub's."""
    from bub.errors import BubError, ErrorKind

    try:
        yield
    except NotFound as exc:
        raise BubError(ErrorKind.NOT_FOUND, str(exc)) from exc
    except (InvalidInput, BadName) as exc:
        raise BubError(ErrorKind.INVALID_INPUT, str(exc)) from exc


def workspace() -> str:
    """TAPE_DIR, else BUB_TAPESTORE_TAPE_DIR, else <Bub's home>/tape."""
    home = getattr(bub, "home", None)
    default = str(Path(home) / "tape") if home is not None else None
    return os.environ.get("TAPE_DIR") or os.environ.get(SETTING) or default or os.path.expanduser("~/.bub/tape")


@hookimpl
def provide_tape_store() -> TapeStore:
    return BubTapeStore(workspace())
