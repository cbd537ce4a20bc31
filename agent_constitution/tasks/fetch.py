"""Fetch each source of rules.toml at its locked commit into the user-level cache (`fetch:<source>`)."""

from __future__ import annotations

import tomllib

from doit.exceptions import TaskFailed
from doit.tools import config_changed

from agent_constitution.errors import UserError
from agent_constitution.ruleset.inputs import MANIFEST, manifest_inputs

NAME = "fetch"
GROUPS = ("compile",)


def tasks(project):
    from agent_constitution.ruleset.resolve import LOCKFILE

    manifest = project.root / MANIFEST
    if not manifest.is_file():
        return
    try:
        sources = tomllib.loads(manifest.read_text(encoding="utf-8")).get("sources", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        sources = {}  # `doit lock` reports the broken manifest
    lock = project.root / LOCKFILE
    locked = lock.read_text(encoding="utf-8") if lock.is_file() else ""
    for name, spec in sources.items():
        yield {
            "basename": NAME,
            "name": name,
            "doc": f"Fetch source {name} into the user-level cache",
            "actions": [(_fetch, [project.root, name])],
            "uptodate": [config_changed({"spec": repr(spec), "lock": locked})],
            "file_dep": manifest_inputs(project.root) if isinstance(spec, dict) and "path" in spec else [],
            "verbosity": 2,
        }


def _fetch(root, name):
    from agent_constitution.ruleset.lock import read_lock
    from agent_constitution.ruleset.manifest import declare
    from agent_constitution.ruleset.models import Manifest, load
    from agent_constitution.ruleset.resolve import pinned_sources
    from agent_constitution.ruleset.sourceset import SourceSet

    try:
        manifest = load(Manifest, root / MANIFEST, MANIFEST)
        if name not in manifest.sources:
            raise UserError(f"no source named {name!r} in [sources]", file=MANIFEST)
        declared = declare(name, manifest.sources[name], root, MANIFEST)
        snapshot = SourceSet(root, pinned_sources(root, read_lock(root))).snapshot(declared)
    except UserError as error:
        return TaskFailed(str(error))
    print(f"{name}: {snapshot.commit or snapshot.digest}")
    return None
