"""The lock stage: make `rules.lock` from a resolution and keep it, and the typed resolution, in step.

The lock is proportional to what was chosen (format in docs/rules.md): each enabled rule is recorded
once (`[rules]`: ref → revision and digest), each segment as its delta over its parent, the nearest
enclosing segment (`added`, `excluded`, and the `choices` it decides). A path source records no
content digest: its rules' entries pin what was locked of it, so editing one rule changes one line.

`lock_model(resolution)` builds the `Lockfile` and `lock_text(resolution)` its canonical text (the
file format, its reader and writer, are `ruleset.lockfile`).

`sync_lock(project_root, locked=…, cache=…)` is the lock stage: it resolves once, with every locked
source kept at its commit (a source moves only when its request in `rules.toml` changed), writes the
lock when its bytes differ, and, given the project's cache, writes the typed resolution the later
stages read (`write_documents`). With `locked=True` (the default when the environment sets CI, see
`ruleset.locked`) it fails instead of changing the lock, like `uv sync --locked`; a version 1 lock
that records the same resolution passes a locked run unchanged. A locked run also holds every git
source's locked commit against what its request names now (`ruleset.verify`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.fsio import remove, write_atomic, write_if_changed
from agent_constitution.readers import read_text
from agent_constitution.ruleset.agent_edition import agent_edition
from agent_constitution.ruleset.locked import locked_run
from agent_constitution.ruleset.lockfile import lock_file_text, read_lock, records_same, review_digest, why_stale
from agent_constitution.wiring import command
from agent_constitution.ruleset.manifest import portable_location
from agent_constitution.ruleset.models import (
    LockedConstitution,
    LockedManifest,
    LockedRule,
    LockedSegment,
    LockedSource,
    Lockfile,
)
from agent_constitution.ruleset.resolve import LOCKFILE, Resolution, documents, resolve
from agent_constitution.ruleset.resolved import FOLDER, INDEX, AgentEdition, Index, index_path, parent_segment, resolved_path
from agent_constitution.ruleset.verify import same_digests, verify_lock


def lock_model(resolution: Resolution) -> Lockfile:
    world, effective, constitution = resolution.world, resolution.effective, resolution.constitution
    sources = []
    for key, item in sorted(resolution.fetched.items(), key=lambda kv: world.names[kv[0]]):
        sources.append(LockedSource(
            name=world.names[key],
            **portable_location(item.declared, resolution.project_root),
            version=item.version,
            commit=item.snapshot.commit,
            digest=item.snapshot.digest if item.snapshot.commit is not None else None,
        ))
    keys = {name: key for key, name in world.names.items()}
    enabled = {(keys[rule.source], rule.id): rule for segment in resolution.segments for rule in segment.rules}
    rules = {  # source name, then tree order, like each segment's rules
        world.show(node): LockedRule(revision=enabled[node].revision, digest=world.sources[node[0]].rule_digest(node[1]))
        for node in sorted(enabled, key=world.position)
    }
    full = {segment.path: tuple(f"{rule.source}:{rule.id}" for rule in segment.rules) for segment in resolution.segments}
    choices = {path: {world.show((g.source, g.node)): world.show((a.source, a.node)) for g, a in selection.choices.items()}
               for path, selection in effective.segments.items()}
    segments = []
    for path, refs in full.items():
        parent = parent_segment(path, list(full))
        above = set(full[parent]) if parent is not None else set()
        decided = choices[parent] if parent is not None else {}
        segments.append(LockedSegment(
            path=path,
            added=tuple(ref for ref in refs if ref not in above),
            excluded=tuple(ref for ref in full[parent] if ref not in set(refs)) if parent is not None else (),
            choices={group: alternative for group, alternative in choices[path].items() if decided.get(group) != alternative},
        ))
    return Lockfile(
        version=2,
        manifest=LockedManifest(inputs=effective.inputs, digest=effective.digest(), review=review_digest(
            {name: group.model_dump(mode="json") for name, group in effective.settings.review.items()})),
        constitution=LockedConstitution(
            source=constitution.source, commit=constitution.commit, edition=constitution.edition,
            revision=constitution.revision, digest=constitution.digest,
        ),
        source=tuple(sources),
        rules=rules,
        segment=tuple(segments),
    )


def lock_text(resolution: Resolution, program: str = "doit") -> str:
    return lock_file_text(lock_model(resolution), program)


def sync_lock(
    project_root: Path,
    *,
    locked: bool | None = None,
    move: frozenset[str] = frozenset(),
    tier: str = "repo",
    because: str = "--locked was given",
    cache: Path | None = None,
    policy: Callable[[Resolution], str | None] | None = None,
) -> tuple[Resolution, bool]:
    """Resolve against the lock and bring the lock in step; returns the resolution and whether it wrote.

    `tier="user"` is for the user-level manifest (see `agent_constitution.compile.user`): its packages
    take user-tier rules. `because` says why a locked run may not write (the refusal names it).
    `cache`: the project's cache folder, where the typed resolution is written for the later stages.
    `policy`: holds the resolution to the organisation policy in force and returns its digest, which
    the lock records (`policy.gate.locked_policy`, passed by the lock task: the policy sits above the
    ruleset, which does not import it).
    """
    if locked is None:
        locked, because = locked_run()
    current = read_lock(project_root)
    resolution = resolve(project_root, current, move, tier)
    same_digests(current, resolution)
    model = _under_policy(lock_model(resolution), policy(resolution) if policy is not None else None)
    text = lock_file_text(model, command(project_root))
    path = project_root / LOCKFILE
    old = read_text(path, LOCKFILE) if path.exists() else None
    # A version 1 lock recording this resolution passes a locked run as it is (CI keeps passing
    # until someone runs `doit lock`, which writes version 2).
    same = old == text or (locked and current is not None and records_same(current, model))
    if not same:
        if locked:
            reason = "does not exist" if old is None else why_stale(current, model)
            raise OutOfDate(
                f"the lockfile needs to be updated, but {because}: {LOCKFILE} {reason}",
                file=LOCKFILE,
                fix="run `doit lock` and commit rules.lock",
            )
        write_if_changed(path, text, within=project_root)
    elif locked:
        verify_lock(resolution, because)
    if cache is not None:
        write_documents(cache, resolution, current if same else model)
    return resolution, not same


def _under_policy(model: Lockfile, digest: str | None) -> Lockfile:
    """The lock with the digest of the organisation policy it was made under (none: as it is)."""
    if digest is None:
        return model
    return model.model_copy(update={"manifest": model.manifest.model_copy(update={"policy": digest})})


def resolve_documents(project_root: Path, cache: Path) -> Resolution:
    """The lock stage without the lock: resolve against `rules.lock` as it is (stale or missing) and
    write the documents only. For `doit check` run before the lock stage has run on these inputs; in a
    locked run (CI set) the lock's commits are verified as the lock stage verifies them."""
    current = read_lock(project_root)
    resolution = resolve(project_root, current)
    same_digests(current, resolution)
    locked, because = locked_run()
    if locked and current is not None:
        verify_lock(resolution, because)
    write_documents(cache, resolution, current)
    return resolution


def _edition(resolution: Resolution) -> AgentEdition:
    try:
        return agent_edition(resolution.constitution.root, resolution.constitution.commit)
    except UserError as error:  # compile reports it; the lock and the checks do not read the text
        return AgentEdition.unreadable(error)


def write_documents(cache: Path, resolution: Resolution, lock: Lockfile | None) -> None:
    """Write each segment's typed resolution where it changed, drop those of segments gone, and stamp
    the index (rewritten every time: its age says when the documents were last brought in step).
    `lock`: what `rules.lock` now holds (None: there is none), whose sources the index lists."""
    found = documents(resolution)
    for path, document in found.items():
        write_if_changed(resolved_path(cache, path), document.to_json(), within=cache)
    keep = {resolved_path(cache, path).name for path in found} | {INDEX}
    folder = cache / FOLDER
    for stale in sorted(folder.glob("*.json")):
        if stale.name not in keep:
            remove(stale, within=cache)
    settings = resolution.effective.settings
    index = Index(
        segments=tuple(found),
        review={name: group.model_dump(mode="json") for name, group in settings.review.items()},
        waive=tuple({"rule": entry.rule, "paths": list(entry.paths), "reason": entry.reason,
                     "until": None if entry.until is None else entry.until.isoformat()} for entry in settings.waive),
        constitution=_edition(resolution),
        compile=settings.compile.model_dump(mode="json", by_alias=True),
        locked=tuple((source.name, source.url, source.commit) for source in lock.source) if lock is not None else (),
    )
    write_atomic(index_path(cache), index.to_json(), within=cache)
