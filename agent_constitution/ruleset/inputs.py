"""The files a lock and a resolution depend on, found cheaply when doit creates its tasks.

`manifest_files(project_root)` follows `rules.toml` and its local bases (a base inside a git source is
covered by the commit the lock pins); `manifest_inputs(project_root)` adds every file of every path
source's content (`rules/`, `constitution/`, `manifests/`): what the lock is computed from. Tasks
after the lock depend on the manifests and the lock only, since the lock records the digest of every
source's content. Neither fails: a manifest they cannot read is still listed, and the task that
reads it reports the problem.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from agent_constitution.ruleset.resolve import MANIFEST
from agent_constitution.sources.digest import CONTENT

__all__ = ["MANIFEST", "manifest_files", "manifest_inputs"]


def manifest_files(project_root: Path) -> list[str]:
    return _walk(project_root, content=False)


def manifest_inputs(project_root: Path) -> list[str]:
    return _walk(project_root, content=True)


def _walk(project_root: Path, content: bool) -> list[str]:
    found: list[Path] = []
    manifest = project_root / MANIFEST
    seen: set[Path] = set()
    while manifest.is_file() and manifest not in seen:
        seen.add(manifest)
        found.append(manifest)
        data = _read(manifest)
        sources = data.get("sources") if isinstance(data.get("sources"), dict) else {}
        for spec in sources.values():
            if content and isinstance(spec, dict) and isinstance(spec.get("path"), str):
                found.extend(_content(manifest.parent / spec["path"]))
        extends = data.get("extends")
        if not isinstance(extends, str):
            break
        name, colon, _ = extends.partition(":")
        if colon and name in sources:
            break
        manifest = (manifest.parent / extends).resolve()
    return sorted({str(path) for path in found})


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _content(folder: Path) -> list[Path]:
    files: list[Path] = []
    for top in CONTENT:
        base = folder / top
        if base.is_dir():
            files.extend(
                path for path in base.rglob("*")
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
            )
    return files
