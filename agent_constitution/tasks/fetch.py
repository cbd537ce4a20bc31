"""Fetch each source of rules.toml at its locked commit into the user-level cache (`fetch:<source>`).

A fetch is up to date while the source's entry in rules.toml is the same and the lock still pins what
the last fetch got (its commit, or a path source's content digest); a path source also depends on its
files.
"""

from __future__ import annotations

from agent_constitution.errors import UserError
from agent_constitution.readers import parse_toml, read_text, read_toml
from agent_constitution.ruleset.inputs import task_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.tasks.actions import reported

NAME = "fetch"
GROUPS = ("compile",)


def tasks(project):
    manifest = project.root / MANIFEST
    if not manifest.is_file():
        return
    try:
        sources = read_toml(manifest).get("sources", {})
    except UserError:
        sources = {}  # `doit lock` reports the broken manifest
    if not isinstance(sources, dict):
        sources = {}
    locked = _locked(project.root / LOCKFILE)
    for name, spec in sources.items():
        yield {
            "basename": NAME,
            "name": name,
            "doc": f"Fetch source {name} into the user-level cache",
            "actions": [(_fetch, [project.root, name, repr(spec)])],
            "uptodate": [_unchanged(repr(spec), locked.get(name))],
            "file_dep": task_inputs(project) if isinstance(spec, dict) and "path" in spec else [],
            "verbosity": 2,
        }


def _locked(lock) -> dict[str, str]:
    """Source name → the commit (or a path source's digest) the lock pins, read without the rule lists."""
    if not lock.is_file():
        return {}
    try:
        head = read_text(lock).partition("\n[[segment]]")[0]  # the lock's fixed layout
        entries = parse_toml(head, lock).get("source", [])
    except UserError:
        return {}  # `doit lock` reports the broken lock
    if not isinstance(entries, list):
        return {}
    return {
        entry.get("name"): entry.get("commit") or entry.get("digest") for entry in entries if isinstance(entry, dict)
    }


def _unchanged(spec: str, pinned: str | None):
    def check(task, values) -> bool:
        return pinned is not None and values.get("spec") == spec and values.get("got") == pinned

    return check


@reported
def _fetch(root, name, spec):
    from agent_constitution.ruleset.lock import read_lock
    from agent_constitution.ruleset.manifest import declare
    from agent_constitution.ruleset.models import Manifest, load
    from agent_constitution.ruleset.resolve import pinned_sources
    from agent_constitution.ruleset.sourceset import SourceSet

    manifest = load(Manifest, root / MANIFEST, MANIFEST)
    if name not in manifest.sources:
        raise UserError(f"no source named {name!r} in [sources]", file=MANIFEST)
    declared = declare(name, manifest.sources[name], root, MANIFEST)
    snapshot = SourceSet(root, pinned_sources(root, read_lock(root))).snapshot(declared)
    got = snapshot.commit or snapshot.digest
    print(f"{name}: {got}")
    return {"spec": spec, "got": got}  # doit keeps these values for the next up-to-date check
