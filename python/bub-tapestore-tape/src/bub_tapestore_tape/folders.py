"""A tape's anchor folders and their entries, in the order tape reads them
(docs/FORMAT.md section 5, Order)."""

from __future__ import annotations

import heapq
import os
from dataclasses import dataclass
from typing import Any, Iterator

from bub_tapestore_tape import lines, names

ANCHOR_FILE = "anchor.json"
# The entries Bub appends before its first anchor (its own tests append an
# event first) go to a folder of seq 0 without anchor.json, which has no
# anchor entry: the store writes no anchor Bub did not write.
PRE_ANCHOR_FOLDER = "000_bub"
_EARLIEST = -(1 << 80)


@dataclass(frozen=True)
class Folder:
    """An anchor folder found by listing."""

    seq: int
    name: str  # "002_plan"

    def sort_key(self) -> tuple[int, bytes]:
        return (self.seq, self.name.encode("utf-8", "surrogateescape"))


def list_folders(anchors: str) -> list[Folder]:
    """The anchor folders in anchors, in tape order; [] if there is none."""
    found = []
    try:
        entries = list(os.scandir(anchors))
    except FileNotFoundError:
        return []
    for e in entries:
        if e.name.startswith(".") or not e.is_dir(follow_symlinks=False):
            continue
        parsed = names.parse_folder_name(e.name)
        if parsed is not None:
            found.append(Folder(parsed[0], e.name))
    found.sort(key=Folder.sort_key)
    return found


def anchor_entry(anchors: str, folder: Folder) -> dict[str, Any] | None:
    """The anchor entry of folder: its anchor.json, or, when that is missing
    or unreadable, an anchor named by the folder's slug, as tape reads it;
    None for a folder of seq 0 without anchor.json (PRE_ANCHOR_FOLDER)."""
    path = os.path.join(anchors, folder.name, ANCHOR_FILE)
    try:
        with open(path, "rb") as f:
            data = f.read(lines.MAX_LINE_BYTES + 1)
    except FileNotFoundError:
        data = None
    except OSError:
        data = b""
    if data is None and folder.seq == 0:
        return None
    if data is not None:
        obj = lines.parse(data.rstrip(b"\n"))
        if obj is not None and obj.get("kind") == "anchor" and isinstance(obj.get("payload"), dict) \
                and isinstance(obj["payload"].get("name"), str):
            return obj
    parsed = names.parse_folder_name(folder.name)
    return {"kind": "anchor", "payload": {"name": parsed[1] if parsed and parsed[1] else folder.name}}


def jsonl_files(path: str) -> list[str]:
    """The *.jsonl files of the folder at path, by name, byte by byte."""
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return []
    files = [e.name for e in entries
             if e.name.endswith(".jsonl") and not e.name.startswith(".") and e.is_file(follow_symlinks=False)]
    files.sort(key=lambda n: n.encode("utf-8", "surrogateescape"))
    return files


def folder_entries(path: str) -> Iterator[dict[str, Any]]:
    """The entries of the folder at path but its anchor, in tape order: the
    files merged by effective time, ties by file name, then line."""
    files = jsonl_files(path)
    if len(files) == 1:  # the store's own folders: the file's order
        for line in _read(os.path.join(path, files[0])):
            yield line.obj
        return
    streams = [_keyed(os.path.join(path, name), i) for i, name in enumerate(files)]
    for _, _, _, obj in heapq.merge(*streams, key=lambda t: (t[0], t[1], t[2])):
        yield obj


def _read(path: str) -> Iterator[lines.Line]:
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        yield from lines.read_lines(f)


def _keyed(path: str, rank: int) -> Iterator[tuple[int, int, int, dict[str, Any]]]:
    """The lines of a file with their effective time: the latest date of the
    file up to each line."""
    eff = _EARLIEST
    for line in _read(path):
        t = lines.date_ns(line.obj.get("date"))
        if t is not None and t > eff:
            eff = t
        yield eff, rank, line.no, line.obj
