"""Resolve the rules each segment enables into cache/resolved/<segment-key>.json (`resolve:<segment>`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from doit.exceptions import TaskFailed

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.readers import read_bytes, read_toml
from agent_constitution.ruleset.inputs import manifest_files
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST, ROOT_SEGMENT, segment_key, segment_problem
from agent_constitution.tasks.actions import reported

NAME = "resolve"
GROUPS = ("compile",)

# Every segment task of one run reads the same lock: resolve once per lock content.
_memo: dict = {}


def tasks(project):
    manifest = project.root / MANIFEST
    if not manifest.is_file():
        return
    try:
        data = read_toml(manifest)
    except UserError:
        data = {}  # `doit lock` reports the broken manifest
    listed = data.get("segment", [])
    # A path the manifest's schema refuses gets no task (`doit lock` reports it).
    segments = [ROOT_SEGMENT] + [
        s["path"] for s in (listed if isinstance(listed, list) else [])
        if isinstance(s, dict) and isinstance(s.get("path"), str) and segment_problem(s["path"]) is None
    ]
    # The lock records every source's digest: an edited rule changes the lock, not only its file.
    inputs = [*manifest_files(project.root), str(project.root / LOCKFILE)]
    for path in segments:
        target = project.cache / "resolved" / f"{segment_key(path)}.json"
        yield {
            "basename": NAME,
            "name": path,
            "doc": f"Resolve the rules of segment {path}",
            "actions": [(_resolve, [project.root, path, target, project.cache])],
            "file_dep": inputs,
            "task_dep": ["lock"],
            "targets": [str(target)],
            # The user cache may have been deleted or altered since: then resolve (and fetch) again.
            "uptodate": [(_cached, [target])],
            "clean": True,
        }


def _cached(task, values, target) -> bool:
    """Every git source the resolution names is still in the user cache as it was resolved."""
    from agent_constitution.sources.cache import intact

    try:
        sources = json.loads(target.read_text(encoding="utf-8"))["sources"].values()
        return all(
            Path(item["root"]).is_dir() if item["commit"] is None
            else intact(item["key"], item["commit"], item["digest"], item["root"])
            for item in sources
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


@reported
def _resolve(root, path, target, cache):
    from agent_constitution.ruleset.lock import sync_lock
    from agent_constitution.ruleset.resolve import resolved_json

    lock = read_bytes(root / LOCKFILE, LOCKFILE) if (root / LOCKFILE).exists() else b""
    resolution = _memo.get((root, lock))
    if resolution is None:
        resolution = sync_lock(root, locked=True, because="resolving never writes it (`doit lock` does)")[0]
        _memo.clear()
        _memo[(root, lock)] = resolution
    try:
        segment = resolution.segment(path)
    except StopIteration:
        return TaskFailed(f"segment {path} is not in {MANIFEST}")
    for warning in segment.warnings:
        print(f"warning: {path}: {warning}", file=sys.stderr)
    write_if_changed(target, resolved_json(resolution, path), within=cache)
    return None
