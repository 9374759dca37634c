"""TapeStore: Bub's tape store (list_tapes, reset, fetch_all, append) on a
tape workspace (the .tape folder), as docs/FORMAT.md says tape's files are.

- append writes one line per entry into the current anchor folder's
  bub.jsonl, under the file's flock; an entry of kind "anchor" becomes a new
  anchor folder, as `tape handoff` makes one. Ids 1, 2, 3, ... are assigned
  per tape under the tape's lock and kept on the line, so that tape and Bub
  see the same id. Every entry of a folder goes to one file, so the folder
  reads back in the order Bub appended it, whatever its dates (a file is
  read in its line order).
- reset moves the tape's anchors to .tape/archive/ as `tape reset
  --archive` does, and writes nothing else: the tape reads back empty, and
  nothing is lost.
- fetch_all selects as Bub's InMemoryQueryMixin does (query.py), reading
  the folders the query needs and no more, and yields entries as it reads.

It is safe for concurrent use by threads (Bub's AsyncTapeStoreAdapter calls
it from worker threads) and by processes (the locks are flocks).
"""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from bub_tapestore_tape import files, folders, names, query, search
from bub_tapestore_tape.ids import TapeState, int_id
from bub_tapestore_tape.query import InvalidInput, NotFound

STORE_FILE = "bub.jsonl"
# Bub names a session's sidecar tapes "<tape>__sidecar__<name>" (bub.sidecars).
SIDECAR_MARKER = "__sidecar__"
DEFAULT_CONFIG = {"version": 1, "default_tape": "main", "sync": "none", "max_entry_bytes": 16 << 20, "watch": "auto"}

__all__ = ["TapeStore", "TapeEntry", "NotFound", "InvalidInput"]

# How many folders' anchor entries a store keeps read (fetch_all names
# anchors; a spill makes an anchor per 16 KiB of tool output).
ANCHORS_KEPT = 4096


@dataclass(frozen=True)
class TapeEntry:
    """Bub's TapeEntry, for use without Bub: the store gives Bub's own when
    the plugin makes it (entry_type)."""

    id: int
    kind: str
    payload: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    date: str = ""


class TapeStore:
    """A Bub TapeStore on the tape workspace at workspace (a .tape folder),
    made as `tape init` makes one if it is not there."""

    def __init__(self, workspace: str | os.PathLike[str], *, entry_type: Callable[..., Any] = TapeEntry,
                 tape_binary: str | None = "tape") -> None:
        self.workspace = os.path.abspath(os.fspath(workspace))
        self._entry_type = entry_type
        self._tape_binary = tape_binary
        self._tapes_dir = os.path.join(self.workspace, "tapes")
        self._init_workspace()
        config = self._config()
        self._sync = config.get("sync") == "always"
        limit = config.get("max_entry_bytes")
        self._max_line = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else DEFAULT_CONFIG["max_entry_bytes"]
        self._mu = threading.Lock()  # guards the two maps below
        self._locks: dict[str, threading.Lock] = {}
        self._states: dict[str, TapeState] = {}
        self._anchors: dict[tuple[int, str], dict[str, Any] | None] = {}  # (anchors ino, folder) -> its anchor

    # Bub's TapeStore.

    def list_tapes(self) -> list[str]:
        """The tapes that hold anchors folders, by name, but a session's
        sidecar tapes ("<tape>__sidecar__<name>", where Bub spills large
        tool output), which Bub's own FileTapeStore leaves out too."""
        try:
            found = os.listdir(self._tapes_dir)
        except FileNotFoundError:
            return []
        return sorted(n for n in found if not names.tape_name_problem(n) and SIDECAR_MARKER not in n
                      and os.path.isdir(os.path.join(self._tapes_dir, n, "anchors")))

    def read(self, tape: str) -> list[Any] | None:
        """Every entry of tape, None for a tape with no entries folder, as
        Bub's FileTapeStore.read and InMemoryTapeStore.read answer."""
        names.validate_tape_name(tape)
        if not os.path.isdir(os.path.join(self._tapes_dir, tape, "anchors")):
            return None
        return list(self.fetch_all(query.TapeQuery(tape)))

    def reset(self, tape: str) -> None:
        """Empty tape: its anchors go to .tape/archive/<tape>-<time>/."""
        names.validate_tape_name(tape)
        tape_dir = os.path.join(self._tapes_dir, tape)
        if not os.path.isdir(tape_dir):
            return
        with self._tape_lock(tape):
            anchors = os.path.join(tape_dir, "anchors")
            if os.path.isdir(anchors):
                archive = os.path.join(self.workspace, "archive")
                files.mkdirs(archive)
                target = _free_name(os.path.join(archive, tape + "-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())))
                os.rename(anchors, target)
                files.fsync_dir(tape_dir)
                files.fsync_dir(archive)
            self._state(tape).clear()

    def append(self, tape: str, entry: Any) -> None:
        """Append entry to tape; its id is the tape's next, whatever
        entry.id says."""
        names.validate_tape_name(tape)
        kind, payload, meta, date = _fields(entry)
        tape_dir = os.path.join(self._tapes_dir, tape)
        files.mkdirs(tape_dir)
        with self._tape_lock(tape):
            anchors = os.path.join(tape_dir, "anchors")
            state = self._state(tape)
            state.refresh(anchors)
            new_id = state.last_id + 1
            try:
                line = files.entry_json({"id": new_id, "kind": kind, "payload": payload, "meta": meta, "date": date})
                data = (line + "\n").encode("utf-8")
            except (TypeError, ValueError) as exc:  # UnicodeEncodeError too: a lone surrogate
                raise InvalidInput(f"entry of kind {kind} is not JSON: {exc}") from exc
            if len(data) > self._max_line:
                raise InvalidInput(f"entry of {len(data)} bytes is longer than max_entry_bytes ({self._max_line}) in {self.workspace}/config.json")
            if kind == "anchor":
                files.mkdirs(anchors)
                files.make_anchor(anchors, state.last.seq + 1 if state.last else 1, payload["name"], data)
                state.refresh(anchors)
                return
            if state.last is None:  # a tape with no folder yet: before Bub's first anchor
                files.mkdirs(os.path.join(anchors, folders.PRE_ANCHOR_FOLDER))
                state.refresh(anchors)
            assert state.last is not None
            before, after = files.append_line(os.path.join(anchors, state.last.name, STORE_FILE), data, self._sync)
            state.wrote(STORE_FILE, before, after, new_id)

    def fetch_all(self, q: Any) -> Iterable[Any]:
        """The entries q selects, as Bub's InMemoryQueryMixin selects them.
        A missing anchor or a bad date range raises now; the entries come as
        they are read."""
        tape = q.tape
        names.validate_tape_name(tape)
        anchors = os.path.join(self._tapes_dir, tape, "anchors")
        listed = folders.list_folders(anchors)
        anchor_of = self._anchor_reader(anchors, listed)
        sel = query.span(q, listed, lambda i: _anchor_name(anchor_of(i)))
        bounds = query.date_bounds(q)
        text = self._text_filter(tape, getattr(q, "_query", None))
        kinds = tuple(getattr(q, "_kinds", ()) or ())
        entries = self._entries(anchors, listed, sel, anchor_of)
        return (self._entry(e) for e in query.filtered(entries, bounds, text, kinds, getattr(q, "_limit", None)))

    # Reading.

    def _entries(self, anchors: str, listed: list[folders.Folder], sel: query.Span,
                 anchor_of: Callable[[int], dict[str, Any] | None]) -> Iterator[dict[str, Any]]:
        end = len(listed) if sel.end is None else sel.end
        for i in range(sel.start, end):
            anchor = anchor_of(i)
            if anchor is not None and not (i == sel.start and sel.skip_anchor):
                yield anchor
            yield from folders.folder_entries(os.path.join(anchors, listed[i].name))

    def _anchor_reader(self, anchors: str, listed: list[folders.Folder]) -> Callable[[int], dict[str, Any] | None]:
        """anchor_of(i), the anchor entry of listed[i], read once per folder
        while the store keeps it (ANCHORS_KEPT): anchor.json is written once."""
        try:
            ino = os.stat(anchors).st_ino
        except FileNotFoundError:
            ino = 0

        def anchor_of(i: int) -> dict[str, Any] | None:
            key = (ino, listed[i].name)
            with self._mu:
                if key in self._anchors:
                    return self._anchors[key]
            a = folders.anchor_entry(anchors, listed[i])
            with self._mu:
                if len(self._anchors) >= ANCHORS_KEPT:
                    self._anchors.clear()
                self._anchors[key] = a
            return a
        return anchor_of

    def _text_filter(self, tape: str, text: Any) -> Callable[[dict[str, Any]], bool] | None:
        if not text:
            return None
        hits = search.matching_ids(self.workspace, tape, str(text), self._tape_binary)
        if hits is None:
            needle = str(text)
            return lambda e: query.matches_text(e, needle)
        return lambda e: str(e.get("id")) in hits

    def _entry(self, e: dict[str, Any]) -> Any:
        """Bub's entry of e, with dicts of its own: anchors are kept read, and
        Bub's stores change what they are given (ForkTapeStore redacts)."""
        payload, meta, date = e.get("payload"), e.get("meta"), e.get("date")
        return self._entry_type(int_id(e.get("id")) or 0, e["kind"], dict(payload) if isinstance(payload, dict) else {},
                                dict(meta) if isinstance(meta, dict) else {}, date if isinstance(date, str) else "")

    # Locks and state.

    @contextmanager
    def _tape_lock(self, tape: str) -> Iterator[None]:
        """Hold the tape's lock: a thread lock in this process, and the
        flock on the tape's folder that tape's own writers take."""
        with self._thread_lock(tape), files.flocked(os.path.join(self._tapes_dir, tape)):
            yield

    def _thread_lock(self, tape: str) -> threading.Lock:
        with self._mu:
            return self._locks.setdefault(tape, threading.Lock())

    def _state(self, tape: str) -> TapeState:
        with self._mu:
            return self._states.setdefault(tape, TapeState())

    # The workspace.

    def _init_workspace(self) -> None:
        files.mkdirs(self._tapes_dir)
        config = os.path.join(self.workspace, "config.json")
        if os.path.exists(config):
            return
        tmp = config + ".tmp-" + str(os.getpid())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, files.FILE_MODE)
        try:
            os.write(fd, (json.dumps(DEFAULT_CONFIG, indent=2) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, config)
        files.fsync_dir(self.workspace)

    def _config(self) -> dict[str, Any]:
        try:
            with open(os.path.join(self.workspace, "config.json"), "rb") as f:
                c = json.loads(f.read(1 << 20))
        except (OSError, ValueError):
            return {}
        return c if isinstance(c, dict) else {}


def _fields(entry: Any) -> tuple[str, dict[str, Any], dict[str, Any], str]:
    kind, payload, meta, date = (getattr(entry, a, None) for a in ("kind", "payload", "meta", "date"))
    if not isinstance(kind, str) or not kind:
        raise InvalidInput(f"entry kind {kind!r}: want a non-empty string")
    if not isinstance(payload, dict):
        raise InvalidInput(f"entry payload of kind {kind}: want a dict, got {type(payload).__name__}")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise InvalidInput(f"entry meta of kind {kind}: want a dict, got {type(meta).__name__}")
    if kind == "anchor" and not isinstance(payload.get("name"), str):
        raise InvalidInput("an anchor entry needs payload.name, a string")
    if not isinstance(date, str):
        date = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "+00:00" if date is None else str(date)
    return kind, payload, meta, date


def _anchor_name(anchor: dict[str, Any] | None) -> str | None:
    if anchor is None:
        return None
    p = anchor.get("payload")
    return p.get("name") if isinstance(p, dict) and isinstance(p.get("name"), str) else ""


def _free_name(path: str) -> str:
    """path, or path-2, path-3, ... the first that is not there."""
    n, candidate = 1, path
    while os.path.lexists(candidate):
        n += 1
        candidate = f"{path}-{n}"
    return candidate
