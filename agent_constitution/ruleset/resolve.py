"""Resolve a project's manifest: `resolve(project_root, lock=None, move=frozenset()) -> Resolution`.

Reads `rules.toml` (and its bases), fetches every source at one version (`SourceSet`; with a lock,
sources stay at their locked commits unless their request changed or they are in `move`), checks the
constitution binding, then resolves each segment (`select`). The result is frozen: the effective
manifest, the loaded sources (`world`, `fetched`), the constitution in force, and one
`ResolvedSegment` per segment ("." first).

`resolved_json(resolution, segment)` is what the `resolve:<segment>` task writes to
`cache/resolved/<segment-key>.json` (`segment_key`: "." → "_root", "a/b" → "a__b"); the compile
stage reads it. Schema (JSON object, keys in this order):

    {
      "version": 1,
      "segment": ".",                                   # the segment path
      "constitution": {"source": "ac", "edition": "2026-10", "revision": "0.1",
                       "commit": "<hex or sha256:… for a plain folder>",
                       "root": "<absolute path of constitution/<edition>/>"},
      "sources": {"ac": {"key": "<normalized url or folder>", "commit": "<hex>|null",
                         "digest": "sha256:…", "root": "<absolute path of the source tree>",
                         "trust": true}},               # trust: the manifest trusts its code
      "rules": [{"source": "ac", "id": 42, "revision": 1, "why": "selected"}, …],
      "warnings": ["…"]
    }

`rules` are in source-name order, then parent-tree order; `why` is `selected`, `required-by
name:id` or `package name:node`. Load a source's tree with `load_source(Path(root))`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from agent_constitution.errors import UserError
from agent_constitution.ruleset.graph import World
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST, segment_key
from agent_constitution.ruleset.manifest import Effective, load_manifest, source_key, unique_name
from agent_constitution.ruleset.models import Lockfile
from agent_constitution.ruleset.select import Request, ResolvedSegment, select
from agent_constitution.ruleset.sourceset import Fetched, Pinned, SourceSet

# LOCKFILE, MANIFEST and segment_key are defined in `layout` (cheap to import) and re-exported here.
__all__ = [
    "LOCKFILE", "MANIFEST", "Constitution", "Resolution", "pinned_sources", "resolve", "resolved_json", "segment_key",
]


@dataclass(frozen=True)
class Constitution:
    source: str  # name
    key: str
    commit: str  # git commit, or the content digest of a plain folder
    edition: str
    revision: str
    digest: str  # of constitution/<edition>/
    root: Path


@dataclass(frozen=True)
class Resolution:
    project_root: Path
    effective: Effective
    world: World
    fetched: Mapping[str, Fetched]
    constitution: Constitution
    segments: tuple[ResolvedSegment, ...]

    def segment(self, path: str) -> ResolvedSegment:
        return next(segment for segment in self.segments if segment.path == path)


def resolve(
    project_root: Path, lock: Lockfile | None = None, move: frozenset[str] = frozenset(), tier: str = "repo"
) -> Resolution:
    """`move`: names of sources (as the lock names them) allowed to leave their locked commit."""
    pinned, moving = _pinned(project_root, lock, move)
    sources = SourceSet(project_root, pinned, moving)
    effective = load_manifest(project_root / MANIFEST, project_root, sources.open_root)
    fetched = sources.load(effective.sources)
    world = World(
        sources=MappingProxyType({key: item.source for key, item in fetched.items()}),
        names=MappingProxyType(_names(effective, fetched)),
        dependencies=MappingProxyType({key: sources.dependency_keys(key) for key in fetched}),
    )
    constitution = _constitution(effective, fetched, world)
    pin = effective.constitution
    note = ""
    if len({revision for _, revision in pin.pinned_by}) > 1:
        listed = " and ".join(f"{revision} in {file}" for file, revision in pin.pinned_by)
        note = f" (the newer of {listed})"
    segments = tuple(
        select(
            world,
            Request(
                path=path,
                selection=selection,
                strict=effective.strict,
                tiers=effective.tiers,
                tier=tier,
                revision=pin.revision,
                revision_note=note,
                file=effective.inputs[0],
            ),
        )
        for path, selection in effective.segments.items()
    )
    return Resolution(project_root, effective, world, MappingProxyType(fetched), constitution, segments)


def resolved_json(resolution: Resolution, path: str) -> str:
    segment = resolution.segment(path)
    world, constitution = resolution.world, resolution.constitution
    data = {
        "version": 1,
        "segment": segment.path,
        "constitution": {
            "source": constitution.source,
            "edition": constitution.edition,
            "revision": constitution.revision,
            "commit": constitution.commit,
            "root": str(constitution.root),
        },
        "sources": {
            world.names[key]: {
                "key": key,
                "commit": item.snapshot.commit,
                "digest": item.snapshot.digest,
                "root": str(item.snapshot.root),
                "trust": key in resolution.effective.trusted,
            }
            for key, item in sorted(resolution.fetched.items(), key=lambda kv: world.names[kv[0]])
        },
        "rules": [
            {"source": rule.source, "id": rule.id, "revision": rule.revision, "why": rule.why} for rule in segment.rules
        ],
        "warnings": list(segment.warnings),
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def pinned_sources(project_root: Path, lock: Lockfile | None) -> dict[str, Pinned]:
    """Source key → what the lock records for it (the request it was locked for, and the commit)."""
    pinned: dict[str, Pinned] = {}
    for source in lock.source if lock is not None else ():
        requested = next(((k, getattr(source, k)) for k in ("tag", "branch", "rev") if getattr(source, k)), None)
        pinned[source_key(source.url, source.path, project_root)] = Pinned(requested, source.commit)
    return pinned


def _pinned(project_root: Path, lock: Lockfile | None, move: frozenset[str]) -> tuple[dict[str, Pinned], frozenset[str]]:
    pinned = pinned_sources(project_root, lock)
    if lock is None:
        return pinned, frozenset()
    known = {source.name for source in lock.source}
    for name in sorted(move - known):
        raise UserError(
            f"the lock has no source named {name!r}",
            file=LOCKFILE,
            fix=f"name one of: {', '.join(sorted(known))}",
        )
    moving = {source_key(s.url, s.path, project_root) for s in lock.source if s.name in move}
    return pinned, frozenset(moving)


def _names(effective: Effective, fetched: Mapping[str, Fetched]) -> dict[str, str]:
    names = dict(effective.names)
    for key in sorted(fetched, key=lambda k: (fetched[k].declared.name, k)):
        if key not in names:
            names[key] = unique_name(fetched[key].declared.name, set(names.values()))
    return names


def _constitution(effective: Effective, fetched: Mapping[str, Fetched], world: World) -> Constitution:
    pin = effective.constitution
    item = fetched[pin.source]
    root = item.snapshot.root / "constitution" / pin.edition
    if not root.is_dir():
        raise UserError(
            f"source {world.names[pin.source]} publishes no constitution edition {pin.edition}"
            f" (constitution/{pin.edition}/ is missing)",
            file=effective.inputs[0],
            field="constitution.edition",
            fix="bind an edition the source publishes, or follow a version of the source that has it",
        )
    return Constitution(
        source=world.names[pin.source],
        key=pin.source,
        commit=item.snapshot.commit or item.snapshot.digest,
        edition=pin.edition,
        revision=pin.revision,
        digest=_folder_digest(root),
        root=root,
    )


def _folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + digest.hexdigest()
