"""A Bub tape store on tape's folders.

Bub (the agent framework) keeps each session as a tape of entries. This
package keeps them as a tape workspace does (docs/FORMAT.md in the tape
repository): one folder per anchor, JSONL lines appended under flock, so
that `tape search`, `tape serve`, `tape mcp` and `tape sync` read every
session Bub writes, live, with no import.

The store (store.TapeStore) uses the standard library only and does not
import Bub; plugin.py is what Bub loads through its `bub` entry point.
"""

from bub_tapestore_tape.store import TapeStore, TapeEntry, NotFound, InvalidInput

__all__ = ["TapeStore", "TapeEntry", "NotFound", "InvalidInput"]
