"""Bub's query semantics (its InMemoryQueryMixin.fetch_all) on a tape's
folders: which entries a TapeQuery selects, in order.

A phase of a tape is an anchor folder, so the anchors a query names are
the anchors of folders (anchor.json): an entry of kind "anchor" inside a
*.jsonl file is an ordinary entry (docs/FORMAT.md section 4), which this
store never writes and Bub never sees written so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timezone
from typing import Any, Callable, Iterable, Iterator, Sequence

from bub_tapestore_tape.folders import Folder


@dataclass(frozen=True)
class TapeQuery:
    """Bub's TapeQuery, its fields and builders, for use without Bub
    (tests, benchmarks, scripts): fetch_all reads the same fields of Bub's."""

    tape: str
    _query: str | None = None
    _after_anchor: str | None = None
    _after_last: bool = False
    _between_anchors: tuple[str, str] | None = None
    _between_dates: tuple[str, str] | None = None
    _kinds: tuple[str, ...] = ()
    _limit: int | None = None

    def query(self, value: str) -> "TapeQuery":
        return replace(self, _query=value)

    def after_anchor(self, name: str) -> "TapeQuery":
        return replace(self, _after_anchor=name or None, _after_last=False)

    def last_anchor(self) -> "TapeQuery":
        return replace(self, _after_anchor=None, _after_last=True)

    def between_anchors(self, start: str, end: str) -> "TapeQuery":
        return replace(self, _between_anchors=(start, end))

    def between_dates(self, start: str, end: str) -> "TapeQuery":
        return replace(self, _between_dates=(start, end))

    def kinds(self, *kinds: str) -> "TapeQuery":
        return replace(self, _kinds=kinds)

    def limit(self, value: int) -> "TapeQuery":
        return replace(self, _limit=value)


class NotFound(LookupError):
    """An anchor a query names is not on the tape (Bub's NOT_FOUND)."""


class InvalidInput(ValueError):
    """A query or an entry the store cannot take (Bub's INVALID_INPUT)."""


@dataclass(frozen=True)
class Span:
    """The entries a query's anchors select: from folder start (after its
    anchor entry if skip_anchor) to before folder end's anchor entry."""

    start: int
    skip_anchor: bool
    end: int | None  # None: to the end of the tape


def span(query: Any, folders: Sequence[Folder], anchor_name: Callable[[int], str | None]) -> Span:
    """The span of query over folders; anchor_name(i) is the name of folder
    i's anchor, None if it has none. between_anchors wins over last_anchor,
    which wins over after_anchor, as in Bub."""
    between = getattr(query, "_between_anchors", None)
    after = getattr(query, "_after_anchor", None)
    if between is not None:
        start_name, end_name = between
        i = _last(folders, anchor_name, start_name)
        if i < 0:
            raise NotFound(f"Anchor '{start_name}' was not found.")
        j = next((k for k in range(i + 1, len(folders)) if anchor_name(k) == end_name), -1)
        if j < 0:
            raise NotFound(f"Anchor '{end_name}' was not found.")
        return Span(i, True, j)
    if getattr(query, "_after_last", False):
        i = next((k for k in range(len(folders) - 1, -1, -1) if anchor_name(k) is not None), -1)
        if i < 0:
            raise NotFound("No anchors found in tape.")
        return Span(i, True, None)
    if after is not None:
        i = _last(folders, anchor_name, after)
        if i < 0:
            raise NotFound(f"Anchor '{after}' was not found.")
        return Span(i, True, None)
    return Span(0, False, None)


def _last(folders: Sequence[Folder], anchor_name: Callable[[int], str | None], name: str) -> int:
    return next((k for k in range(len(folders) - 1, -1, -1) if anchor_name(k) == name), -1)


def date_bounds(query: Any) -> tuple[datetime, datetime] | None:
    """between_dates as Bub reads it: inclusive; a date alone is the start
    or the end of that day; a time without a zone is UTC."""
    between = getattr(query, "_between_dates", None)
    if between is None:
        return None
    start, end = (_boundary(between[0], is_end=False), _boundary(between[1], is_end=True))
    if start > end:
        raise InvalidInput("Start date must be earlier than or equal to end date.")
    return start, end


def _boundary(value: Any, *, is_end: bool) -> datetime:
    if isinstance(value, date) and not isinstance(value, datetime):
        value = value.isoformat()
    if isinstance(value, datetime):
        value = value.isoformat()
    if not isinstance(value, str):
        raise InvalidInput(f"Invalid ISO date or datetime: '{value}'.")
    if "T" not in value and " " not in value:
        try:
            day = date.fromisoformat(value)
        except ValueError:
            pass
        else:
            return datetime.combine(day, time.max if is_end else time.min, tzinfo=timezone.utc)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        try:
            day = date.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInput(f"Invalid ISO date or datetime: '{value}'.") from exc
        parsed = datetime.combine(day, time.max if is_end else time.min, tzinfo=timezone.utc)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def in_dates(entry_date: Any, bounds: tuple[datetime, datetime]) -> bool:
    """Whether an entry's date is within bounds; an entry without a date
    Python reads is in no range (Bub's in-memory store would raise)."""
    try:
        t = _boundary(entry_date, is_end=False)
    except InvalidInput:
        return False
    return bounds[0] <= t <= bounds[1]


def matches_text(entry: dict[str, Any], needle: str) -> bool:
    """Bub's in-memory text match: the needle, case-folded, in the JSON of
    the entry's kind, date, payload and meta. Unlike Bub's, the JSON keeps
    non-ASCII text as it is, so that 你好 finds 你好 (Bub's escapes it)."""
    haystack = json.dumps(
        {"kind": entry.get("kind"), "date": entry.get("date"), "payload": entry.get("payload"), "meta": entry.get("meta")},
        sort_keys=True, default=str, ensure_ascii=False,
    ).casefold()
    return needle.casefold() in haystack


def filtered(entries: Iterable[dict[str, Any]], bounds: tuple[datetime, datetime] | None,
             text: Callable[[dict[str, Any]], bool] | None, kinds: tuple[str, ...],
             limit: int | None) -> Iterator[dict[str, Any]]:
    """entries within bounds (date_bounds), matching text, of kinds, up to
    limit, as Bub's in-memory store filters them."""
    if limit is not None and limit <= 0:
        return
    n = 0
    for e in entries:  # the cheapest test first: a text match encodes the entry
        if kinds and e.get("kind") not in kinds:
            continue
        if bounds is not None and not in_dates(e.get("date"), bounds):
            continue
        if text is not None and not text(e):
            continue
        yield e
        n += 1
        if limit is not None and n >= limit:
            return
