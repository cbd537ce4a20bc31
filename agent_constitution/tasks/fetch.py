"""Fetch each git source of rules.toml at its locked commit into the user-level cache (`fetch:<source>`).

A fetch is up to date while the source's entry in rules.toml is the same and the resolution still
pins the commit the last fetch got (read from the root segment's document, lazily: `doit list`
never reads it). A path source is a folder of the repository: nothing to fetch, so its task says
where it is and runs again only when its entry changes.
"""

from __future__ import annotations

from agent_constitution import console
from agent_constitution.errors import UserError
from agent_constitution.ruleset.layout import MANIFEST, ROOT_SEGMENT
from agent_constitution.ruleset.outline import outline
from agent_constitution.ruleset.resolved import read_resolved, resolved_path
from agent_constitution.tasks.actions import reported

NAME = "fetch"
GROUPS = ("compile",)


def tasks(project):
    manifest = project.root / MANIFEST
    if not manifest.is_file():
        return
    for name, spec in outline(manifest).sources.items():
        folder = isinstance(spec, dict) and "path" in spec
        yield {
            "basename": NAME,
            "name": name,
            "doc": f"Fetch source {name} into the user-level cache",
            "actions": [(_fetch, [project.root, name, repr(spec)])],
            "uptodate": [_unchanged(repr(spec), None if folder else resolved_path(project.cache, ROOT_SEGMENT), name)],
            "verbosity": 2,
        }


def _unchanged(spec: str, document, name: str):
    def check(task, values) -> bool:
        if values.get("spec") != spec:
            return False
        if document is None:
            return True  # a folder: the same entry is the same folder
        try:
            source = read_resolved(document).sources.get(name)
        except UserError:
            return False
        return source is not None and values.get("got") == source.commit

    return check


@reported
def _fetch(root, name, spec):
    from agent_constitution.ruleset.lockfile import read_lock  # lazy: action only (pydantic: 75 ms)
    from agent_constitution.ruleset.manifest import declare  # lazy: action only (pydantic: 80 ms)
    from agent_constitution.ruleset.models import Manifest, load  # lazy: action only (pydantic: 75 ms)
    from agent_constitution.ruleset.resolve import pinned_sources  # lazy: action only (resolvelib, pygit2: 129 ms)
    from agent_constitution.ruleset.sourceset import SourceSet  # lazy: action only (pygit2: 125 ms)

    manifest = load(Manifest, root / MANIFEST, MANIFEST)
    if name not in manifest.sources:
        raise UserError(f"no source named {name!r} in [sources]", file=MANIFEST)
    declared = declare(name, manifest.sources[name], root, MANIFEST)
    if declared.spec.path is not None:
        console.detail(f"{name}: folder {declared.spec.path}")
        return {"spec": spec}
    snapshot = SourceSet(root, pinned_sources(root, read_lock(root))).snapshot(declared)
    console.say(f"{name}: {snapshot.commit}")
    return {"spec": spec, "got": snapshot.commit}  # doit keeps these values for the next up-to-date check
