"""Versions of sources: tags as versions, and one version of every source that every declaration accepts.

A tag is a version when it parses as PEP 440 (`packaging`), with or without a leading `v`: `v1.2.0`,
`1.2`, `v2.0.0rc1`, `1.2.3-rc.1`. Semver spellings that PEP 440 has no reading for
(`v1.0.0-x.7.z.92`, `v1.2.3-alpha.beta`) and names such as `stable` are no versions: ranges never
match them and upgrades never move to them (`not_versions` lists the ones that look like versions,
for the note `outdated` prints). Ranges are PEP 440 specifier sets (`>=1.2, <2`); pre-releases
follow PEP 440 (a range admits one only when it names a pre-release itself).

`choose(sources, manifest_sources)` picks one version of every source the manifest reaches, with
resolvelib (the resolver pip uses) doing the backtracking:

- a requirement (`Need`) is one declaration: the manifest's own entry (its `version` range, or any
  version) or a `[sources]` entry of another source's `rules/source.toml` at one of its versions;
- the candidates of a source the manifest pins (`tag`, `branch`, `rev`, the default branch, or a
  plain folder) are that one commit; those of a source followed by a range, or only declared by
  other sources, are its version tags, newest first, with the locked version first while it is not
  being upgraded (so an unchanged lock stays as it is and needs no network);
- a candidate's dependencies are the ranges its `rules/source.toml` declares at that commit, read
  from the mirror's objects without extracting anything.

When no choice satisfies every declaration, `explain` turns resolvelib's causes into one `UserError`:
the chain of declarations that conflict, the versions found, and a fix naming what to write in
rules.toml (following another version, or holding a source back: "pin team to <=1.4").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from packaging.specifiers import SpecifierSet
from resolvelib import AbstractProvider, BaseReporter, ResolutionImpossible, ResolutionTooDeep, Resolver

from agent_constitution.errors import UserError
from agent_constitution.layout import SOURCE_CONFIG as SOURCE_FILE
from agent_constitution.readers import decode, parse_toml
from agent_constitution.ruleset.manifest import Declared, declare
from agent_constitution.ruleset.models import SourceConfig, SourceSpec, parse
# Version tags and their order live in `tags` (no pydantic, no pygit2: the fleet's warm run reads them).
from agent_constitution.ruleset.tags import Tag, admits, newest, tag_versions, version_of  # noqa: F401
from agent_constitution.sources import read_at, version_tags
from agent_constitution.sources.parsed import noted

if TYPE_CHECKING:
    from agent_constitution.sources import Snapshot

# A tag that starts like a version (`v1`, `2.0-beta`) but does not parse: worth a note, unlike `stable`.
_LOOKS_LIKE_VERSION = re.compile(r"^[vV]?[0-9]")
# resolvelib's bound on resolution rounds; far above what a few dozen sources need.
_MAX_ROUNDS = 10_000


def not_versions(tags: Iterable[tuple[str, str]]) -> list[str]:
    """Tags that look like versions but are not PEP 440 ones (ignored by ranges and upgrades)."""
    return sorted(name for name, _ in tags if _LOOKS_LIKE_VERSION.match(name) and version_of(name) is None)


# --- requirements and candidates -----------------------------------------------------------------


@dataclass(frozen=True)
class Need:
    """One declaration of a source: who declares it and the range it accepts ("" accepts any version)."""

    key: str
    range: str
    who: str  # "rules.toml", or "team v1.2.0 (rules/source.toml [sources.base])"
    declared: Declared = field(compare=False)  # where the source is: the manifest's entry when it has one
    name: str = field(default="", compare=False)  # how the declaring file names the source

    @cached_property
    def spec(self) -> SpecifierSet:
        return SpecifierSet(self.range)

    def accepts(self) -> str:
        return self.range or "any version"


@dataclass(frozen=True)
class Candidate:
    """A source at one commit (None: a plain folder, outside versioning: it satisfies every range)."""

    key: str
    commit: str | None
    tag: str | None  # the version tag this candidate is, when it was chosen among tags (or locked as one)
    fixed: bool  # the manifest's own request names this commit (tag, branch, rev, default branch, folder)

    @property
    def label(self) -> str:
        if self.tag is not None:
            return self.tag
        return self.commit[:12] if self.commit else "(a folder)"


class Locked(Protocol):
    """What the lock pins for a source (`sourceset.Pinned`): its commit and the version tag chosen."""

    commit: str | None
    version: str | None


class Sources(Protocol):
    """What the resolver asks of the sources it chooses among (`sourceset.SourceSet`, which calls `choose`)."""

    opened: Mapping[str, str]  # key → the version tag a ranged source was opened at before the choice

    def snapshot(self, declared: Declared) -> Snapshot: ...

    def opened_tag(self, key: str) -> str | None: ...

    def locked(self, key: str, requested: tuple[str, str] | None) -> Locked | None: ...


class _Provider(AbstractProvider):
    def __init__(self, sources: Sources, manifest_sources: Mapping[str, Declared]):
        self.sources = sources
        self.manifest = manifest_sources
        self._tags: dict[str, list[Tag]] = {}
        self._dependencies: dict[tuple[str, str | None], tuple[Need, ...]] = {}
        self.declared_by: dict[str, Need] = {}  # key → the latest declaration of it seen (for the chain)
        self.required_by: dict[Need, Candidate] = {}  # a declaration → the candidate that makes it

    # -- what resolvelib asks --

    def identify(self, requirement_or_candidate) -> str:
        return requirement_or_candidate.key

    def get_preference(self, identifier, resolutions, candidates, information, backtrack_causes):
        causes = {cause.requirement.key for cause in backtrack_causes}
        return (not self._pinned_by_manifest(identifier), identifier not in causes, identifier)

    def find_matches(self, identifier, requirements, incompatibilities):
        needs = list(requirements[identifier])
        excluded = {(item.key, item.commit, item.tag) for item in incompatibilities[identifier]}
        declared = self.manifest.get(identifier) or needs[0].declared

        def matches() -> Iterator[Candidate]:
            for candidate in self._candidates(identifier, declared, needs):
                if (candidate.key, candidate.commit, candidate.tag) in excluded:
                    continue
                if all(self.is_satisfied_by(need, candidate) for need in needs):
                    yield candidate

        return matches

    def is_satisfied_by(self, requirement: Need, candidate: Candidate) -> bool:
        if candidate.commit is None or not requirement.range:
            return True
        spec = requirement.spec
        if candidate.tag is not None and not candidate.fixed:
            version = version_of(candidate.tag)
            return version is not None and admits(spec, version)
        # A commit the manifest names: any version tag on it counts, pre-releases too (they were asked for);
        # the tag it was named by first, so a satisfied pin asks the repository nothing.
        named = version_of(candidate.tag) if candidate.tag is not None else None
        if named is not None and spec.contains(named, prereleases=True):
            return True
        tags = self.tags(self.manifest.get(candidate.key) or requirement.declared)
        return any(spec.contains(tag.version, prereleases=True) for tag in tags if tag.commit == candidate.commit)

    def get_dependencies(self, candidate: Candidate) -> tuple[Need, ...]:
        found = self.dependencies(candidate)
        for need in found:
            self.declared_by[need.key] = need
            self.required_by[need] = candidate
        return found

    # -- the sources behind it --

    def tags(self, declared: Declared) -> list[Tag]:
        if declared.key not in self._tags:
            spec = declared.spec
            self._tags[declared.key] = tag_versions(version_tags(url=spec.url, path=spec.path, base_dir=declared.base_dir))
        return self._tags[declared.key]

    def declared(self, key: str) -> Declared:
        """Where the source is: the manifest's entry, else the latest declaration by another source."""
        return self.manifest.get(key) or self.declared_by[key].declared

    def _pinned_by_manifest(self, key: str) -> bool:
        declared = self.manifest.get(key)
        return declared is not None and (declared.spec.version is None or key in self.sources.opened)

    def _candidates(self, key: str, declared: Declared, needs: list[Need]) -> Iterator[Candidate]:
        if self._pinned_by_manifest(key):
            snapshot = self.sources.snapshot(declared)
            tag = declared.spec.tag or self.sources.opened_tag(key)
            yield Candidate(key, snapshot.commit, tag, fixed=True)
            return
        locked = self.sources.locked(key, declared.spec.requested if key in self.manifest else None)
        if locked is not None:
            yield Candidate(key, locked.commit, locked.version, fixed=locked.version is None)
        if key not in self.manifest and not any(need.range for need in needs):
            snapshot = self.sources.snapshot(declared)  # no range anywhere: the default branch
            yield Candidate(key, snapshot.commit, None, fixed=True)
            return
        for tag in self.tags(declared):
            if locked is None or (tag.commit, tag.name) != (locked.commit, locked.version):
                yield Candidate(key, tag.commit, tag.name, fixed=False)

    def dependencies(self, candidate: Candidate) -> tuple[Need, ...]:
        """The declarations `rules/source.toml` makes at the candidate's commit."""
        memo = (candidate.key, candidate.commit)
        if memo in self._dependencies:
            return self._dependencies[memo]
        declared = self.declared(candidate.key)
        spec = declared.spec
        at = f" {candidate.label}" if candidate.commit is not None else ""
        shown = f"{declared.name}{at} ({SOURCE_FILE})"
        if candidate.fixed or candidate.commit is None:
            snapshot = self.sources.snapshot(declared)
            base_dir = snapshot.root
            path = snapshot.root / SOURCE_FILE
            # As the folder digest read it (the load reads it from there too), else from the tree.
            data = noted(snapshot.root, str(path)) if path.is_file() else None
            if data is None and path.is_file():
                data = path.read_bytes()
        else:
            base_dir = declared.base_dir
            data = read_at(url=spec.url, path=spec.path, commit=candidate.commit, name=SOURCE_FILE, base_dir=base_dir)
        needs: list[Need] = []
        if data is not None:  # a source without source.toml fails when it is loaded, with the message for it
            config = parse(SourceConfig, parse_toml(decode(data, shown), shown), shown)
            for name, dependency in config.sources.items():
                who = f"{declared.name}{at} ({SOURCE_FILE} [sources.{name}])"
                target = declare(name, SourceSpec(url=dependency.url), base_dir, who)
                if candidate.commit is not None and target.key.startswith("/") and target.key not in self.manifest:
                    raise UserError(
                        f"source {declared.name} (a git source) names the local folder {target.key} as its"
                        f" source {name!r}; a source fetched from git cannot point at files on your machine",
                        file=who,
                        field=f"sources.{name}.url",
                        fix="name that source by its git URL in the source; or declare the folder in your own rules.toml",
                    )
                needs.append(Need(target.key, dependency.versions, who, self.manifest.get(target.key, target), name))
        self._dependencies[memo] = tuple(needs)
        return self._dependencies[memo]


def choose(sources: Sources, manifest_sources: Mapping[str, Declared]) -> dict[str, Candidate]:
    """Source key → the chosen candidate, for every source the manifest reaches (see the module docstring)."""
    provider = _Provider(sources, manifest_sources)
    roots = [Need(key, declared.spec.version or "", declared.file, declared, declared.name)
             for key, declared in manifest_sources.items()]
    try:
        result = Resolver(provider, BaseReporter()).resolve(roots, max_rounds=_MAX_ROUNDS)
    except ResolutionImpossible as failure:
        raise explain(provider, failure.causes) from None
    except ResolutionTooDeep:
        raise UserError(
            f"the version ranges of the sources could not be settled in {_MAX_ROUNDS} rounds of backtracking",
            fix="narrow the ranges in rules.toml (`version = ...`) so fewer versions are tried",
        ) from None
    return dict(result.mapping)


# --- the explanation of a failure ----------------------------------------------------------------


def explain(provider: _Provider, causes) -> UserError:
    """One message: the conflicting chain of declarations, the versions found, and the fix."""
    key = causes[0].requirement.key
    needs = [cause.requirement for cause in causes if cause.requirement.key == key]
    declared = provider.manifest.get(key) or needs[0].declared
    name = declared.name
    lines: list[str] = []
    for cause in causes:
        if cause.requirement.key != key:
            continue
        lines += [f"  {line}" for line in _chain(provider, cause.parent)]
        lines.append(f"  {_declaration(provider, cause.requirement)}")
    lines = list(dict.fromkeys(lines))
    tags = [] if declared.spec.path is not None and declared.spec.version is None else _tags_or_none(provider, declared)
    if tags is not None and not provider._pinned_by_manifest(key):
        shown = ", ".join(tag.name for tag in reversed(tags[:20])) or "none"
        lines.append(f"  versions of {name} found: {shown}" + (f" (newest 20 of {len(tags)})" if len(tags) > 20 else ""))
    fixes = _fixes(provider, key, needs, [cause.parent for cause in causes if cause.requirement.key == key], tags or [])
    return UserError(
        f"no version of source {name} ({key}) satisfies every declaration:\n" + "\n".join(lines),
        fix="; or ".join(fixes) if fixes else (
            f"the declarations above exclude each other: ask the maintainers of the declaring sources to widen"
            f" their ranges for {name}, or stop selecting the rules of one of them"
        ),
    )


def _tags_or_none(provider: _Provider, declared: Declared) -> list[Tag] | None:
    try:
        return provider.tags(declared)
    except UserError:
        return None


def _declaration(provider: _Provider, need: Need) -> str:
    name = (provider.manifest.get(need.key) or need.declared).name
    if need.key in provider.manifest and need.who == provider.manifest[need.key].file:
        spec = provider.manifest[need.key].spec
        request = spec.requested
        if spec.path is not None:
            return f"{need.who} reads {name} from the folder {spec.path}"
        if request is None:
            return f"{need.who} follows {name} at its default branch"
        if request[0] == "version":
            return f"{need.who} follows {name} with version {request[1]}"
        commit = provider.sources.snapshot(provider.manifest[need.key]).commit
        at = f" (commit {commit[:12]})" if commit else ""
        return f"{need.who} follows {name} at {request[0]} {request[1]}{at}"
    return f"{need.who} accepts {name} {need.accepts()}"


def _chain(provider: _Provider, parent: Candidate | None) -> list[str]:
    """How `parent` came to be required, from the manifest down (each line one declaration)."""
    lines: list[str] = []
    seen: set[str] = set()
    while parent is not None and parent.key not in seen:
        seen.add(parent.key)
        if parent.key in provider.manifest:
            declared = provider.manifest[parent.key]
            need = Need(parent.key, declared.spec.version or "", declared.file, declared)
            line = _declaration(provider, need)
            lines.append(line if parent.fixed or parent.commit is None else f"{line} → {parent.label}")
            break
        need = provider.declared_by.get(parent.key)
        if need is None:
            break
        lines.append(f"{need.who} accepts {need.declared.name} {need.accepts()} → {parent.label}")
        parent = provider.required_by.get(need)
    return list(reversed(lines))


def _fixes(provider: _Provider, key: str, needs: list[Need], parents: list, tags: list[Tag]) -> list[str]:
    """Concrete edits of rules.toml that would resolve this conflict, as far as one step can tell."""
    fixes = []
    name = (provider.manifest.get(key) or needs[0].declared).name
    for index in range(len(needs)):
        others = [other for position, other in enumerate(needs) if position != index]
        parent = parents[index]
        if parent is None and key in provider.manifest:
            # The manifest's own request is what the others exclude: follow a version they all accept.
            fitting = [tag for tag in tags if all(admits(other.spec, tag.version) for other in others)]
            if fitting:
                combined = others[0].range if len(others) == 1 else str(_intersection(others))
                combined = combined or f">={fitting[0].version}"
                fixes.append(
                    f'in rules.toml [sources.{name}], follow a version every other declaration accepts: version ='
                    f' "{combined}" (or tag = "{fitting[0].name}")'
                )
            continue
        if parent is None:
            continue
        moved = _other_version(provider, parent, key, others, tags)
        if moved is not None:
            fixes.append(_pin_hint(provider, parent, moved))
    return list(dict.fromkeys(fixes))


def _intersection(needs: list[Need]) -> SpecifierSet:
    combined = SpecifierSet("")
    for need in needs:
        combined &= need.spec
    return combined


def _other_version(provider: _Provider, parent: Candidate, key: str, others: list[Need], tags: list[Tag]) -> Tag | None:
    """The newest other version of `parent`'s source whose range for `key` fits the other declarations."""
    declared = provider.declared(parent.key)
    if declared.spec.path is not None:
        return None
    # A source only other sources declare must stay inside their range; the manifest's own range is
    # what the hint may replace, so it does not count.
    bound = provider.declared_by.get(parent.key) if parent.key not in provider.manifest else None
    for tag in provider.tags(declared):
        if tag.commit == parent.commit or tag.version.is_prerelease or (bound is not None and not admits(bound.spec, tag.version)):
            continue
        ranges = [need for need in provider.dependencies(Candidate(parent.key, tag.commit, tag.name, False)) if need.key == key]
        if any(all(admits(need.spec, found.version) for need in [*ranges, *others]) for found in tags):
            return tag
    return None


def _pin_hint(provider: _Provider, parent: Candidate, tag: Tag) -> str:
    declared = provider.manifest.get(parent.key)
    name = provider.declared(parent.key).name
    current = version_of(parent.tag) if parent.tag else None
    older = current is not None and tag.version < current
    bound = f"<={tag.version}" if older else f">={tag.version}"
    verb = "pin" if older else "move"
    if declared is None:
        return (f'{verb} {name} to {bound}: add it to rules.toml [sources] with its url and version = "{bound}"'
                f" ({tag.name} declares a range that fits)")
    if declared.spec.version is not None:
        own = SpecifierSet(declared.spec.version)
        combined = own & SpecifierSet(bound) if admits(own, tag.version) else SpecifierSet(bound)
        return f'{verb} {name} to {bound}: set version = "{combined}" in rules.toml [sources.{name}] ({tag.name} fits)'
    return f'{verb} {name} to {tag.name}: set tag = "{tag.name}" (or version = "{bound}") in rules.toml [sources.{name}]'
