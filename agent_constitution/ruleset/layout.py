"""Which folder can be a segment, checked before the manifest is validated; the rule system's file
names, from their home in `agent_constitution.layout`.

Every doit command creates the ruleset tasks, and creating them needs only this: this module imports
only `agent_constitution.ids` (and with it `re`) and the layout, so that task creation does not pay
for pydantic, networkx or pygit2.
"""

from __future__ import annotations

from agent_constitution.ids import CONTROL
from agent_constitution.layout import LOCKFILE, MANIFEST, ROOT_SEGMENT, segment_key

__all__ = ["LOCKFILE", "MANIFEST", "MAX_SEGMENT_PATH", "ROOT_SEGMENT", "segment_key", "segment_problem"]


# Longest segment path: its key plus ".json" must fit a file name (255 bytes on common file systems).
MAX_SEGMENT_PATH = 200


def segment_problem(path: str) -> str | None:
    """Why `path` cannot be a segment's folder (None when it can): a relative POSIX path inside the
    repository, without `.`/`..`/empty parts, backslashes or control characters, of at most
    MAX_SEGMENT_PATH bytes. Task creation uses it on manifests it has not validated yet."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        return "write a folder relative to the repository root, like 'services/api'"
    if CONTROL.search(path):
        return "a segment path cannot contain control characters (a NUL, newline or tab)"
    if len(path.encode("utf-8")) > MAX_SEGMENT_PATH:
        return f"a segment path is at most {MAX_SEGMENT_PATH} bytes long"
    return None
