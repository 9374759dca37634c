"""Writing a tape's files as docs/FORMAT.md section 6 says: one write of a
whole line under the file's flock, a torn line ended first, folders 0700
and files 0600, a new anchor built under a dot name and renamed."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import shutil
from contextlib import contextmanager
from typing import Any, Iterator

from bub_tapestore_tape import lines, names

DIR_MODE = 0o700
FILE_MODE = 0o600


def mkdirs(path: str) -> None:
    """Make path and the parents it lacks, private, each parent fsynced
    after a folder is made in it."""
    missing = []
    p = os.path.abspath(path)
    while not os.path.isdir(p) and p != os.path.dirname(p):
        missing.append(p)
        p = os.path.dirname(p)
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue
        fsync_dir(os.path.dirname(d))


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def flocked(path: str) -> Iterator[int]:
    """Hold an exclusive flock on the folder at path: a tape's lock."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # closing releases the lock


def append_line(path: str, data: bytes, sync: bool) -> tuple[int, int]:
    """Append data, one whole line, to the file at path under its flock,
    ending a torn last line first. It returns the file's size before and
    after. A short write is taken back while the lock is held."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = lines.TORN + b"\n" + data
        n = os.write(fd, data)
        if n != len(data):
            os.ftruncate(fd, size)
            raise OSError(errno.ENOSPC, f"short write to {path}: {n} of {len(data)} bytes; nothing was kept")
        if sync:
            os.fsync(fd)
        return size, size + n
    finally:
        os.close(fd)


def make_anchor(anchors: str, seq: int, name: str, data: bytes) -> str:
    """Make the anchor folder <seq>_<slug> (the next free seq from seq) in
    anchors with data as its anchor.json, under a dot name first, and
    return its name. The caller holds the tape's lock."""
    for left in os.listdir(anchors):
        if left.startswith(".tmp-"):  # a killed handoff's: no handoff runs but ours
            shutil.rmtree(os.path.join(anchors, left), ignore_errors=True)
    tmp = os.path.join(anchors, ".tmp-" + secrets.token_hex(8))
    os.mkdir(tmp, DIR_MODE)
    try:
        fd = os.open(os.path.join(tmp, "anchor.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(tmp)
        while True:
            folder = names.folder_name(seq, name)
            target = os.path.join(anchors, folder)
            if not os.path.lexists(target):
                os.rename(tmp, target)
                break
            seq += 1
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(anchors)
    return folder


def entry_json(obj: dict[str, Any]) -> str:
    """A line of the store: the entry as Bub's FileTapeStore writes it, on
    one line, UTF-8 kept; NaN and infinities refused (they are not JSON)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
