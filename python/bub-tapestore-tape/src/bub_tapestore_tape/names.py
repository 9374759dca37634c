"""Tape names, anchor slugs and folder names, as docs/FORMAT.md section 2 says."""

from __future__ import annotations

import re
import unicodedata

MAX_NAME_BYTES = 120

# Other_Default_Ignorable_Code_Point (Unicode's PropList.txt), which
# unicodedata does not expose: characters shown as nothing, U+3164 HANGUL
# FILLER among them. Go's unicode package, which tape uses, has the same.
_IGNORABLE = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x2065, 0x2065),
    (0x3164, 0x3164), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0000),
    (0xE0002, 0xE001F), (0xE0080, 0xE00FF), (0xE01F0, 0xE0FFF),
)

_FOLDER = re.compile(r"^([0-9]+)_(.*)$", re.DOTALL)


class BadName(ValueError):
    """A tape name tape cannot store."""


def unsafe_char(c: str) -> str:
    """What c is if it has no place in a name people read, or ""."""
    cat = unicodedata.category(c)
    cp = ord(c)
    if cat == "Cc":
        return "a control character"
    if cat == "Cf":
        return "a format character (invisible, or changing how the text around it shows)"
    if cat in ("Zl", "Zp"):
        return "a line or paragraph separator"
    if cat == "Co":
        return "a private-use character"
    if any(lo <= cp <= hi for lo, hi in _IGNORABLE):
        return "a character shown as nothing"
    if cp == 0xFFFD:
        return "U+FFFD, which stands for bytes that were not UTF-8"
    return ""


def tape_name_problem(name: str) -> str:
    """Why name cannot be a tape (folder) name, or "" if it can."""
    if not isinstance(name, str):
        return "is not a string"
    if name == "":
        return "is empty"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    if size > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    if "/" in name or "\\" in name:
        return "contains a path separator"
    if name.startswith("."):
        return "starts with a dot"
    if name.strip() != name:
        return "starts or ends with a space"
    for c in name:
        if " " <= c < "\x7f":
            continue
        what = unsafe_char(c)
        if what:
            return f"contains U+{ord(c):04X}, {what}"
    return ""


def validate_tape_name(name: str) -> None:
    """Raise BadName, saying why, if name cannot be a tape name."""
    why = tape_name_problem(name)
    if why:
        raise BadName(f"tape name {name!r} {why}: tape stores each tape as a folder of that name; use another name")


def slug(name: str) -> str:
    """The file-safe part of an anchor's folder name: letters and digits of
    any script, '_' and '.' kept, runs of anything else one '-', '-' and '.'
    trimmed from both ends, at most 120 bytes; "anchor" if nothing is left."""
    out: list[str] = []
    size = 0
    dash = False
    for c in name:
        cat = unicodedata.category(c)
        keep = c in "_." or (c != "\ufffd" and (cat.startswith("L") or cat == "Nd"))
        if not keep:
            if not dash and out:
                out.append("-")
                size += 1
            dash = True
            continue
        n = len(c.encode("utf-8", "surrogatepass"))
        if size + n > MAX_NAME_BYTES:
            break
        out.append(c)
        size += n
        dash = False
    s = "".join(out).strip("-.")
    return s or "anchor"


def folder_name(seq: int, name: str) -> str:
    """The folder of the anchor with sequence number seq and name name."""
    return f"{seq:03d}_{slug(name)}"


def parse_folder_name(folder: str) -> tuple[int, str] | None:
    """(seq, slug) of an anchor folder's name, or None if it is no anchor
    folder: digits, '_', anything, not starting with a dot."""
    m = _FOLDER.match(folder)
    if m is None:
        return None
    return int(m.group(1)), m.group(2)
