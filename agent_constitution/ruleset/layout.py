"""The names of the rule system's files, and the key of a segment's build state.

Every doit command creates the ruleset tasks, and creating them needs only these names: this module
imports nothing, so that task creation does not pay for pydantic, networkx or pygit2.
"""

from __future__ import annotations

MANIFEST = "rules.toml"
LOCKFILE = "rules.lock"
ROOT_SEGMENT = "."  # the segment of the repository root


def segment_key(path: str) -> str:
    """A segment's file name in `cache/resolved/`: "." → "_root", "a/b" → "a__b"."""
    return "_root" if path == ROOT_SEGMENT else path.replace("/", "__")
