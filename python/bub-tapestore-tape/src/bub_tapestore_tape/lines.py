"""Reading tape's JSONL lines as docs/FORMAT.md section 5 says: leniently.

A line that cannot be read is skipped (tape reports it as a bad line and
`tape doctor` names it); a last line without its newline is in progress
and not read yet; a torn line, one a dead writer left and the next ended
with `<torn>`, is read without the mark if it is whole JSON, else skipped.
"""

from __future__ import annotations

import calendar
import json
import re
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator

MAX_LINE_BYTES = 64 << 20
TORN = b"<torn>"
BOM = b"\xef\xbb\xbf"

_DATE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?)?$"
)


def date_ns(s: Any) -> int | None:
    """The time of an entry's date in ns since the epoch, or None if it has
    none tape reads: RFC 3339, or Python's isoformat() with or without a
    zone and with T or a space; a date without a zone is UTC."""
    if not isinstance(s, str):
        return None
    m = _DATE.match(s)
    if m is None:
        return None
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if m.group(4) is None:
        hour = minute = second = 0
    else:
        hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]
            and hour < 24 and minute < 60 and second < 60):
        return None
    frac = (m.group(7) or "").ljust(9, "0")
    ns = calendar.timegm((year, month, day, hour, minute, second)) * 1_000_000_000 + int(frac or 0)
    zone = m.group(8)
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        ns -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60) * 1_000_000_000
    return ns


@dataclass
class Line:
    """One entry read from a file: its place and its fields."""

    no: int            # 1-based line number in its file
    end: int           # the offset just past its newline
    obj: dict[str, Any]  # the entry: kind, payload, and what else the line holds


def parse(raw: bytes) -> dict[str, Any] | None:
    """The entry of one line (without its newline), or None for a line that
    is blank, torn or bad."""
    if raw.startswith(BOM):
        raw = raw[len(BOM):]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if not raw.strip(b" \t\r"):
        return None
    if len(raw) > MAX_LINE_BYTES:
        return None
    if raw.endswith(TORN):
        raw = raw[: -len(TORN)]
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    kind = obj.get("kind")
    if "kind" not in obj:
        role = obj.get("role")
        if isinstance(role, str) and role:
            return {"kind": "message", "payload": obj}  # a bare chat message: no id, no date
        return None
    if not isinstance(kind, str) or kind == "":
        return None
    return obj


def read_lines(f: BinaryIO, start: int = 0, line_no: int = 0) -> Iterator[Line]:
    """The entries of f from offset start, which is line_no lines in, up to
    its last newline. No line is held in memory beyond MAX_LINE_BYTES: a
    longer one is a bad line, read past in pieces."""
    f.seek(start)
    offset = start
    while True:
        raw = f.readline(MAX_LINE_BYTES + 2)  # the longest line, its \r\n, and one byte to tell
        if not raw.endswith(b"\n"):
            if len(raw) <= MAX_LINE_BYTES + 1:
                return  # the end, or a last line in progress: read once its newline is there
            skipped = _skip_line(f)
            if skipped < 0:
                return
            line_no += 1
            offset += len(raw) + skipped
            continue
        line_no += 1
        offset += len(raw)
        obj = parse(raw[:-1])
        if obj is not None:
            yield Line(line_no, offset, obj)


def _skip_line(f: BinaryIO) -> int:
    """Read past the rest of an over-long line: the bytes up to and with its
    newline, or -1 if the file ends first (the line is still in progress)."""
    n = 0
    while True:
        piece = f.readline(1 << 20)
        n += len(piece)
        if piece.endswith(b"\n"):
            return n
        if not piece:
            return -1
