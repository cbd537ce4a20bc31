"""The files a lock and a resolution depend on, found cheaply when doit creates its tasks.

`manifest_files(project_root)` follows `rules.toml` and its local bases (a base inside a git source is
covered by the commit the lock pins); `manifest_inputs(project_root)` adds every file of every path
source's content (`rules/`, `constitution/`, `manifests/`): what the lock is computed from. Tasks
after the lock depend on the manifests and the lock only, since the lock records the digest of every
source's content. Neither fails: a manifest they cannot read is still listed, and the task that
reads it reports the problem.

`task_inputs(project)` is `manifest_inputs` listed once per `Project` (one doit run): the lock
task's up-to-date check signs the status of these files (`input_statuses`, then
`tasks.lock.inputs_signature`), and the lock stage's short way compares them (`ruleset.relock`).

Every doit command imports this module, so it imports the standard library, `layout` and the
manifest outline only.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.ruleset.outline import outline
from agent_constitution.ruleset.resolved import index_path, read_index
from agent_constitution.sources.digest import CONTENT

__all__ = ["MANIFEST", "Status", "file_status", "fresh_index", "input_statuses", "manifest_files", "manifest_inputs",
           "task_inputs"]

_last: tuple[object, list[str]] | None = None  # (the project of this run, its inputs)

Status = tuple[int, int, int, int] | None  # size, modification and change times (ns), inode; None: missing


def file_status(path: Path | str) -> Status:
    """What tells an edit, a touch, a replacement or a removal of the file at `path`."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def input_statuses(files: list[str]) -> dict[str, Status]:
    """Each file the lock is computed from (the manifests and each path source's content) → its status."""
    return {path: file_status(path) for path in files}


def manifest_files(project_root: Path) -> list[str]:
    return _walk(project_root, content=False)


def manifest_inputs(project_root: Path) -> list[str]:
    return _walk(project_root, content=True)


def task_inputs(project) -> list[str]:
    """`manifest_inputs(project.root)`, listed once per `Project` object (one doit run)."""
    global _last
    if _last is None or _last[0] is not project:
        _last = (project, manifest_inputs(project.root))
    return _last[1]


def fresh_index(project_root: Path, inputs: list[str] | None = None):
    """The resolution's index (`ruleset.resolved.Index`) while it is at least as new as the lock and
    every file the lock is computed from (`inputs`, by default `manifest_inputs`), else None."""
    from agent_constitution.project import Project  # lazy: the Stop hook loads this module, not project (0.6 ms)

    cache = Project(project_root).cache
    try:
        stamp = index_path(cache).stat().st_mtime_ns
    except OSError:
        return None
    newest = 0
    for path in [*(manifest_inputs(project_root) if inputs is None else inputs), str(project_root / LOCKFILE)]:
        status = file_status(path)
        newest = max(newest, status[1] if status is not None else 0)
    return read_index(cache) if stamp >= newest else None


def _walk(project_root: Path, content: bool) -> list[str]:
    found: list[str] = []
    manifest = project_root / MANIFEST
    seen: set[Path] = set()
    while manifest.is_file() and manifest not in seen:
        seen.add(manifest)
        found.append(str(manifest))
        found_outline = outline(manifest)
        sources = found_outline.sources
        for spec in sources.values():
            if content and isinstance(spec, dict) and isinstance(spec.get("path"), str):
                found.extend(_content(manifest.parent / spec["path"]))
        extends = found_outline.extends
        if extends is None:
            break
        name, colon, _ = extends.partition(":")
        if colon and name in sources:
            break
        manifest = (manifest.parent / extends).resolve()
    return sorted(set(found))


def _content(folder: Path) -> list[str]:
    # os.walk, not Path.rglob + is_file: one scandir per folder instead of a stat per path (about
    # 3 ms instead of 50 ms for 5,000 rule files).
    files: list[str] = []
    for top in CONTENT:
        for here, dirs, names in os.walk(folder / top):
            dirs[:] = [name for name in dirs if name != "__pycache__"]
            files.extend(os.path.join(here, name) for name in names if not name.endswith(".pyc"))
    return files
