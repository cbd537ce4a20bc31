"""Resolve a project's manifest: `resolve(project_root, lock=None, move=frozenset()) -> Resolution`.

Reads `rules.toml` (and its bases), fetches every source at one version (`SourceSet`; with a lock,
sources stay at their locked commits unless their request changed or they are in `move`), checks the
constitution binding, then resolves each segment (`select`). The result is frozen: the effective
manifest, the loaded sources (`world`, `fetched`), the constitution in force, and one
`ResolvedSegment` per segment ("." first).

`documents(resolution)` is the typed resolution the later stages read: one `Resolved` per segment
(`agent_constitution.ruleset.resolved`, schema there), each rule with its digest, text and metadata,
each source with its aliases, so that no later stage resolves or parses a rule file again. The lock
stage writes them to `cache/resolved/` (`agent_constitution.ruleset.lock.write_documents`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from agent_constitution import ids
from agent_constitution.errors import UserError
from agent_constitution.ruleset.graph import World
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST, segment_key
from agent_constitution.ruleset.manifest import Effective, load_manifest, source_key, unique_name
from agent_constitution.readers import read_toml
from agent_constitution.ruleset.models import Lockfile, revision_key
from agent_constitution.ruleset.resolved import (
    VERSION,
    Resolved,
    ResolvedConstitution,
    ResolvedNode,
    ResolvedRule,
    ResolvedSkill,
    ResolvedSource,
    parent_segment,
)
from agent_constitution.ruleset.personal import refuse_personal
from agent_constitution.ruleset.select import Request, ResolvedSegment, select
from agent_constitution.ruleset.sourceset import Fetched, Pinned, SourceSet
from agent_constitution.sources import fetch
from agent_constitution.sources.digest import files_digest

# LOCKFILE, MANIFEST and segment_key are defined in `layout` (cheap to import) and re-exported here.
__all__ = [
    "LOCKFILE", "MANIFEST", "PUBLISHED", "Constitution", "Resolution", "documents", "pinned_sources",
    "resolve", "segment_key",
]


# `resolve(..., constitution=PUBLISHED)` binds whatever revision the source's commit publishes.
PUBLISHED = "published"


@dataclass(frozen=True)
class Constitution:
    source: str  # name
    key: str
    commit: str  # git commit (for a plain folder, of the repository it is in when read from its history), or the edition's digest
    edition: str
    revision: str  # the revision bound: the one constitution/<edition>/index.toml at `commit` publishes
    digest: str  # of constitution/<edition>/
    root: Path
    # What the source publishes at the commit its rules are read from; another revision than
    # `revision` when the rules moved on and the bound text was kept at the locked commit.
    source_publishes: str = ""
    source_commit: str = ""

    def held_back(self) -> str | None:
        """The note for a constitution kept at its locked commit while its source moved, else None."""
        if not self.source_publishes or revision_key(self.source_publishes) == revision_key(self.revision):
            return None
        at = "(a folder)" if self.source_commit.startswith("sha256:") else f"at {self.source_commit[:12]}"
        return (
            f"constitution kept at revision {self.revision} (commit {self.commit[:12]}); source {self.source} {at}"
            f" publishes revision {self.source_publishes}: `doit upgrade --constitution`"
            " moves the binding and shows what changed"
        )


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
    project_root: Path,
    lock: Lockfile | None = None,
    move: frozenset[str] = frozenset(),
    tier: str = "repo",
    constitution: str | None = None,
    manifest_text: str | None = None,
) -> Resolution:
    """`move`: names of sources (as the lock names them) allowed to leave their locked commit.

    `constitution`: None binds the manifest's pin; a revision (or `PUBLISHED`) binds that revision
    instead, read at the source's commit, and leaves the rules' constitution ranges unchecked: what
    `upgrade --constitution` plans with, listing every rule whose range excludes the new revision.
    """
    pinned, moving = _pinned(project_root, lock, move)
    sources = SourceSet(project_root, pinned, moving)
    effective = load_manifest(project_root / MANIFEST, project_root, sources.open_root, manifest_text)
    if tier == "repo":
        refuse_personal(effective.settings, effective.inputs[0])
    fetched = sources.load(effective.sources)
    world = World(
        sources=MappingProxyType({key: item.source for key, item in fetched.items()}),
        names=MappingProxyType(_names(effective, fetched)),
        dependencies=MappingProxyType({key: sources.dependency_keys(key) for key in fetched}),
    )
    bound = _constitution(effective, fetched, world, lock, constitution)
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
                revision=bound.revision if constitution is None else None,
                revision_note=note,
                file=effective.inputs[0],
            ),
        )
        for path, selection in effective.segments.items()
    )
    return Resolution(project_root, effective, world, MappingProxyType(fetched), bound, segments)


def documents(resolution: Resolution) -> dict[str, Resolved]:
    """Segment path → its typed resolution, in manifest order ("." first)."""
    world, constitution = resolution.world, resolution.constitution
    keys = {name: key for key, name in world.names.items()}
    sources = {}
    for key, item in sorted(resolution.fetched.items(), key=lambda kv: world.names[kv[0]]):
        aliases = {alias: world.names[target] for alias, target in world.dependencies[key].items() if target in world.names}
        sources[world.names[key]] = ResolvedSource(
            key=key,
            commit=item.snapshot.commit,
            # A plain folder's content digest changes with any edit in it: recorded per rule instead.
            digest=item.snapshot.digest if item.snapshot.commit is not None else None,
            root=str(item.snapshot.root),
            trust=key in resolution.effective.trusted,
            version=item.version,
            language=item.source.config.languages[0],
            aliases=dict(sorted(aliases.items())),
            nodes=_nodes(item.source),
            skills={name: ResolvedSkill(tuple(skill.implements), item.source.skill_digest(name))
                    for name, skill in sorted(item.source.skills.items())},
        )
    bound = ResolvedConstitution(
        constitution.source, constitution.edition, constitution.revision, constitution.commit, str(constitution.root)
    )
    made: dict[tuple[str, int], ResolvedRule] = {}

    def entry(rule) -> ResolvedRule:
        node = (keys[rule.source], rule.id)
        if node not in made:
            source = world.sources[node[0]]
            made[node] = ResolvedRule.of(rule.source, source.rules[rule.id], source.rule_digest(rule.id))
        return replace(made[node], why=rule.why)

    paths = [segment.path for segment in resolution.segments]
    return {
        segment.path: Resolved(
            version=VERSION,
            segment=segment.path,
            parent=parent_segment(segment.path, paths),
            constitution=bound,
            sources=sources,
            rules=tuple(entry(rule) for rule in segment.rules),
            warnings=segment.warnings,
        )
        for segment in resolution.segments
    }


def _nodes(source) -> tuple[ResolvedNode, ...]:
    """The source's domains in source.toml order, then its groups in tree order (so each node's
    groups keep their source.toml order)."""
    tables = [(node, None, source.config.domains[node]) for node in source.domains]
    tables += [(node, group.parent, group) for node, group in source.groups.items()]
    return tuple(ResolvedNode(id=node, parent=parent, title=dict(table.title)) for node, parent, table in tables)


def pinned_sources(project_root: Path, lock: Lockfile | None) -> dict[str, Pinned]:
    """Source key → what the lock records for it (the request it was locked for, and the commit)."""
    pinned: dict[str, Pinned] = {}
    for source in lock.source if lock is not None else ():
        requested = next(((k, getattr(source, k)) for k in ("tag", "branch", "rev") if getattr(source, k)), None)
        if source.range is not None:
            requested = ("version", source.range)
        pinned[source_key(source.url, source.path, project_root)] = Pinned(
            requested, source.commit, source.version, source.name
        )
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


def _constitution(
    effective: Effective, fetched: Mapping[str, Fetched], world: World, lock: Lockfile | None, rebind: str | None
) -> Constitution:
    """The constitution in force: the pinned revision, read where it is published.

    The source's commit (the one its rules are read from) must publish the pinned revision. When it
    publishes another one because the source moved on (upgrade, or a new tag) and the lock binds the
    same revision at an older commit, the text stays at that commit: a manifest pinned to a revision
    does not change when the constitution is amended (seed 000); moving it is `upgrade --constitution`.
    """
    pin = effective.constitution
    item = fetched[pin.source]
    name = world.names[pin.source]
    # A plain folder has no commit: the binding is pinned by the edition's own digest (see `_bound`),
    # so an edit elsewhere in the folder leaves the lock's [constitution] as it was; unless the pinned
    # revision is read from the history of the repository the folder is in (then that commit).
    here = item.snapshot.commit
    at = f"at commit {here[:12]}" if here else "(a folder)"
    published = _published(item.snapshot.root, pin.edition, name, effective.inputs[0])
    wanted = pin.revision if rebind is None else published if rebind == PUBLISHED else rebind
    if revision_key(published) == revision_key(wanted):
        return _bound(name, pin.source, here, pin.edition, published, item.snapshot.root, published, here)
    kept = _kept(lock, name, pin.edition, wanted, item) if rebind is None else None
    if kept is not None:
        return _bound(name, pin.source, kept.commit, pin.edition, wanted, kept.root, published, here)
    # A folder in a git working tree keeps its older texts in that repository's history.
    in_git = here is None and _repository_of(item.snapshot.root)
    earlier = _from_history(item, name, pin.edition, wanted) if in_git and rebind is None else None
    if earlier is not None:
        return _bound(name, pin.source, earlier.commit, pin.edition, wanted, earlier.root, published, item.snapshot.digest)
    if rebind is not None:
        raise UserError(
            f"source {name} {at} publishes constitution revision {published} of edition"
            f" {pin.edition}, not {wanted}",
            fix=f"run `doit upgrade --constitution` to bind revision {published}, or follow a version of source"
            f" {name} that publishes {wanted} in rules.toml [sources] first",
        )
    pinned_in = next(file for file, revision in pin.pinned_by if revision_key(revision) == revision_key(wanted))
    raise UserError(
        f"{pinned_in} binds constitution revision {wanted} of edition {pin.edition}, but source {name}"
        f" {at} publishes revision {published}; the header would name {wanted} over the text of {published}",
        file=pinned_in,
        field="constitution.revision",
        fix=f"read what changed with `doit upgrade --constitution` (it moves the binding to {published} and lists the"
        f" rules that exclude it), or set revision = \"{published}\"; to stay on {wanted}, follow a version of"
        f" source {name} that publishes it"
        + (f" (no commit of the folder's history, in the repository {in_git}, publishes it)" if in_git else ""),
    )


def _bound(name, key, commit, edition, revision, tree: Path, publishes, source_commit) -> Constitution:
    root = tree / "constitution" / edition
    digest = files_digest(root)
    return Constitution(name, key, commit or digest, edition, revision, digest, root, publishes, source_commit or commit or digest)


def _published(tree: Path, edition: str, name: str, manifest: str) -> str:
    """The revision `constitution/<edition>/index.toml` of a source tree publishes."""
    index = tree / "constitution" / edition / "index.toml"
    if not (tree / "constitution" / edition).is_dir():
        raise UserError(
            f"source {name} publishes no constitution edition {edition} (constitution/{edition}/ is missing)",
            file=manifest,
            field="constitution.edition",
            fix="bind an edition the source publishes, or follow a version of the source that has it",
        )
    shown = f"{name}:constitution/{edition}/index.toml"
    revision = read_toml(index, shown).get("revision") if index.is_file() else None
    if not isinstance(revision, str) or not ids.is_revision(revision):
        raise UserError(
            f"source {name} publishes constitution edition {edition} without a revision",
            file=shown,
            field="revision",
            fix='the edition\'s index.toml says which revision it is, e.g. revision = "0.1"',
        )
    return revision


def _kept(lock: Lockfile | None, name: str, edition: str, revision: str, item: Fetched):
    """The snapshot at the lock's constitution commit, when the lock binds this revision elsewhere in git."""
    locked = lock.constitution if lock is not None else None
    if (
        locked is None
        or item.snapshot.commit is None  # a plain folder has no history to keep a text at
        or (locked.source, locked.edition) != (name, edition)
        or revision_key(locked.revision) != revision_key(revision)
        or locked.commit.startswith("sha256:")
    ):
        return None
    spec = item.declared.spec
    snapshot = fetch(url=spec.url, path=spec.path, commit=locked.commit, base_dir=item.declared.base_dir)
    published = _published(snapshot.root, edition, name, LOCKFILE)
    return snapshot if revision_key(published) == revision_key(revision) else None


def _repository_of(folder: Path) -> Path | None:
    from agent_constitution.sources.history import repository_of  # lazy: not for `doit list` in a rule source (0.8 ms)

    return repository_of(folder)


def _from_history(item: Fetched, name: str, edition: str, revision: str):
    """The folder at the newest commit of its repository's history that published `revision`, or None."""
    from agent_constitution.sources.history import (  # lazy: not for `doit list` in a rule source (0.8 ms)
        folder_at, published_revisions)

    root = item.snapshot.root
    found = next((commit for commit, said in published_revisions(root, edition)
                  if ids.is_revision(said) and revision_key(said) == revision_key(revision)), None)
    return None if found is None else folder_at(root, found, f"the source {name}")

