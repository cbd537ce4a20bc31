"""The outline of a manifest that doit task creation needs, read leniently: `outline(path)`.

Every doit command creates the tasks, before anything validates `rules.toml`, so task creation must
not fail on a broken manifest: the `lock` task reads it with the strict models and reports what is
wrong. The outline keeps only what names the tasks, and drops what it cannot use: the sources (raw
entries, by name), the segment paths ("." first, then each `[[segment]] path` a segment can have),
the `[compile]` table and `extends`. It is read once per file version (memoized by modification
time and size): the lock, fetch, resolve and agents families of one run share it.

Standard library only, with `layout` and the readers: task creation must not pay for pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.readers import read_toml
from agent_constitution.ruleset.layout import ROOT_SEGMENT, segment_problem


@dataclass(frozen=True)
class Outline:
    sources: Mapping[str, object] = field(default_factory=dict)  # name → the entry as written
    segments: tuple[str, ...] = (ROOT_SEGMENT,)
    compile: Mapping[str, object] = field(default_factory=dict)
    extends: str | None = None


def outline(manifest: Path) -> Outline:
    try:
        status = manifest.stat()
    except OSError:
        return Outline()
    return _outline(manifest, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=64)
def _outline(manifest: Path, mtime: int, size: int) -> Outline:
    try:
        data = read_toml(manifest)
    except UserError:
        return Outline()
    sources = data.get("sources")
    table = data.get("compile")
    listed = data.get("segment")
    extends = data.get("extends")
    return Outline(
        sources=dict(sources) if isinstance(sources, dict) else {},
        segments=(ROOT_SEGMENT, *(
            s["path"] for s in (listed if isinstance(listed, list) else [])
            if isinstance(s, dict) and isinstance(s.get("path"), str) and segment_problem(s["path"]) is None
        )),
        compile=dict(table) if isinstance(table, dict) else {},
        extends=extends if isinstance(extends, str) else None,
    )
