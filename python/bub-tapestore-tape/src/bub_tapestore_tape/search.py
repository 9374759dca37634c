"""A text query through `tape search`, when there is a tape binary and the
workspace has an index: the same words, phrases and Chinese text that
`tape search` finds, from the index instead of a scan of the tape."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

# tape search wants a positive --limit; this is more than any tape holds
# that a Bub session would query by text.
ALL_HITS = 1_000_000

# How long a search may take before the store scans instead: an index that
# is being built answers after it is.
TIMEOUT_SECONDS = 30


def matching_ids(workspace: str, tape: str, text: str, binary: str | None) -> set[str] | None:
    """The ids of tape's entries that `tape search` finds for text, or None
    when it cannot be asked (no binary, no index, or it failed), and the
    caller matches text itself."""
    if not binary or not os.path.exists(os.path.join(workspace, "index.db")):
        return None
    exe = shutil.which(binary)
    if exe is None:
        return None
    env = dict(os.environ, TAPE_DIR=workspace, TAPE_WATCH="off", NO_COLOR="1")
    try:
        # --all-words: the entries that hold the text, not those that hold
        # some of its words (the relaxed pass); a tape without the flag
        # fails, and the caller scans.
        done = subprocess.run([exe, "search", "--json", "--all-words", "--tape", tape, "--limit", str(ALL_HITS), "--", text],
                              env=env, capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode == 1 and not done.stdout:
        return set()  # nothing matched, as grep says
    if done.returncode != 0:
        return None
    ids: set[str] = set()
    for raw in done.stdout.splitlines():
        try:
            hit = json.loads(raw)
        except ValueError:
            return None
        if isinstance(hit, dict) and hit.get("id") is not None:
            ids.add(str(hit["id"]))
    return ids
