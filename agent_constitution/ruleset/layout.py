"""The names of the rule system's files, and the key of a segment's build state.

Every doit command creates the ruleset tasks, and creating them needs only these names: this module
imports only `agent_constitution.ids` (and with it `re`), so that task creation does not pay for
pydantic, networkx or pygit2.
"""

from __future__ import annotations

from agent_constitution.ids import CONTROL

MANIFEST = "rules.toml"
LOCKFILE = "rules.lock"
ROOT_SEGMENT = "."  # the segment of the repository root


def segment_key(path: str) -> str:
    """A segment's file name in `cache/resolved/`: "." → "_root", "a/b" → "a__b"."""
    return "_root" if path == ROOT_SEGMENT else path.replace("/", "__")


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
