"""The last id of a tape, kept between appends so that an append costs the
same at entry 10 and at entry 100,000.

Ids are assigned under the tape's lock, so the state is revalidated there:
one stat of the anchors folder (a folder made, renamed or removed changes
its mtime and link count), and the sizes of the files of the current (last)
folder, the only one writers append to. What other writers added is read
from where the state last read to; a tape new to the store, reset, or with
folders removed is read again from its newest folder back to the first
that holds an integer id.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from bub_tapestore_tape import folders, lines


def int_id(v: Any) -> int | None:
    """An entry's id as Bub's integer, if it is one: an integer, or its
    decimal text (tape import bub writes "42")."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isascii() and v.lstrip("-").isdigit() and len(v) < 20:
        return int(v)
    return None


@dataclass
class TapeState:
    """What the store knows of a tape's files, as of its last look."""

    dir_key: tuple[int, int, int] | None = None  # the anchors folder's (ino, mtime_ns, nlink)
    seen: set[str] = field(default_factory=set)  # its folders' names
    last: folders.Folder | None = None  # the current anchor folder
    read_to: dict[str, tuple[int, int]] = field(default_factory=dict)  # last's files: (offset, lines) read
    last_id: int = 0

    def clear(self) -> None:
        """Forget the tape: its anchors folder is gone or another."""
        self.dir_key, self.seen, self.last, self.read_to, self.last_id = None, set(), None, {}, 0

    def refresh(self, anchors: str) -> None:
        """Bring the state up to date with the files; the caller holds the
        tape's lock."""
        try:
            st = os.stat(anchors)
        except FileNotFoundError:
            self.clear()
            return
        key = (st.st_ino, st.st_mtime_ns, st.st_nlink)
        if key == self.dir_key:
            self._read_on(anchors)
            return
        listed = folders.list_folders(anchors)
        names = {f.name for f in listed}
        if self.dir_key is None or st.st_ino != self.dir_key[0] or not self.seen <= names:
            self.clear()
            self._last_id_of(anchors, listed)
            new = []
        else:
            self._read_on(anchors)
            new = [f for f in listed if f.name not in self.seen]
        for f in new:  # each read whole: its anchor, then its files
            self.last, self.read_to = f, {}
            anchor = folders.anchor_entry(anchors, f)
            if anchor is not None:
                self._see(anchor.get("id"))
            self._read_on(anchors)
        self.seen, self.dir_key = names, key
        current = listed[-1] if listed else None
        if current != self.last:  # not one of the new folders: read it whole
            self.last, self.read_to = current, {}
            self._read_on(anchors)

    def _last_id_of(self, anchors: str, listed: list[folders.Folder]) -> None:
        """Find the tape's last id, reading folders from the newest back to
        the first that holds an integer id: ids are assigned in the order
        lines are written, each in the current folder, so the newest is
        there, and a store new to a tape of 100,000 entries reads one
        folder, not all of them."""
        for f in reversed(listed):
            self.last, self.read_to = f, {}
            anchor = folders.anchor_entry(anchors, f)
            if anchor is not None:
                self._see(anchor.get("id"))
            self._read_on(anchors)
            if self.last_id:
                return

    def _read_on(self, anchors: str) -> None:
        """Read what the current folder's files gained since the last look."""
        if self.last is None:
            return
        path = os.path.join(anchors, self.last.name)
        for name in folders.jsonl_files(path):
            file = os.path.join(path, name)
            try:
                size = os.stat(file).st_size
            except FileNotFoundError:
                continue
            offset, line_no = self.read_to.get(name, (0, 0))
            if size == offset:
                continue
            if size < offset:  # edited by hand: read it again
                offset, line_no = 0, 0
            with open(file, "rb") as f:
                for line in lines.read_lines(f, offset, line_no):
                    self._see(line.obj.get("id"))
                    offset, line_no = line.end, line.no
            self.read_to[name] = (offset, line_no)

    def _see(self, v: Any) -> None:
        n = int_id(v)
        if n is not None and n > self.last_id:
            self.last_id = n

    def wrote(self, name: str, before: int, after: int, new_id: int) -> None:
        """Note an append of the store's own to file name of the current
        folder, from size before to after."""
        self.last_id = max(self.last_id, new_id)
        offset, line_no = self.read_to.get(name, (0, 0))
        if offset == before:
            self.read_to[name] = (after, line_no + 1)
