"""The sources one resolution reads, each at one version: `SourceSet`.

A manifest declares sources (`[sources]`: a tag, branch or rev, or a plain folder); a source's
`rules/source.toml` declares the sources its rules require, each with a range of version tags it
accepts (`versions = ">=1.2, <2"`, PEP 440 specifiers over tags `vX.Y.Z` / `X.Y.Z`). For each source
(matched by key, the normalized URL) one version must satisfy every declaration:

- a source the manifest declares is fetched as the manifest says; if ranges apply to it, one of the
  version tags on the fetched commit must lie in every range;
- a source only sources declare is fetched at the newest version tag inside every range (at its
  default branch when no declaration gives a range);
- with a lock, a source whose request did not change stays at its locked commit (`pinned`), and a
  transitive source stays at its locked commit while that still satisfies every range.

A failure names every declaration of that source. The choice is made once per source, in the order
sources are discovered (no backtracking), which suffices when ranges do not change between versions
of the declaring sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from agent_constitution.errors import UserError
from agent_constitution.ruleset.manifest import Declared, declare
from agent_constitution.ruleset.models import SourceSpec
from agent_constitution.ruleset.source import RuleSource, load_source
from agent_constitution.sources import Snapshot, fetch, version_tags


@dataclass(frozen=True)
class Fetched:
    """A source at its chosen version."""

    declared: Declared  # the declaration that located it (the manifest's, else the first source's)
    snapshot: Snapshot
    source: RuleSource
    version: str | None  # the version tag chosen to satisfy ranges, when ranges applied


@dataclass(frozen=True)
class Pinned:
    """What the lock says about a source: the request it was locked for, and the result."""

    request: tuple[str, str] | None
    commit: str | None


class SourceSet:
    def __init__(self, project_root: Path, pinned: Mapping[str, Pinned] | None = None, move: frozenset[str] | None = None):
        """`pinned`: key → locked state; `move`: keys allowed to leave their locked commit (upgrade)."""
        self.project_root = project_root
        self.pinned = dict(pinned or {})
        self.move = move or frozenset()
        self._snapshots: dict[str, Snapshot] = {}
        self.fetched: dict[str, Fetched] = {}

    def snapshot(self, declared: Declared) -> Snapshot:
        """The tree of a manifest-declared source (also used for bases inside a source)."""
        if declared.key not in self._snapshots:
            spec = declared.spec
            commit = self._locked_commit(declared.key, spec.requested)
            self._snapshots[declared.key] = fetch(
                url=spec.url, path=spec.path, tag=spec.tag, branch=spec.branch, rev=spec.rev,
                commit=commit, base_dir=declared.base_dir,
            )
        return self._snapshots[declared.key]

    def open_root(self, declared: Declared) -> Path:
        return self.snapshot(declared).root

    def load(self, manifest_sources: Mapping[str, Declared]) -> dict[str, Fetched]:
        """Fetch and load every source the manifest and, transitively, the sources declare."""
        ranges: dict[str, list[tuple[str, str, Declared]]] = {}  # key → (who, range, declaration)
        pending = list(manifest_sources.values())
        while pending:
            declared = pending.pop(0)
            if declared.key in self.fetched:
                continue
            if declared.key in manifest_sources:
                snapshot = self.snapshot(declared)
                version = None
            elif not any(text for _, text, _ in ranges[declared.key]):
                snapshot, version = self.snapshot(declared), None  # any version: the default branch
            else:
                snapshot, version = self._in_ranges(declared, ranges[declared.key])
            source = load_source(snapshot.root)
            self.fetched[declared.key] = Fetched(declared, snapshot, source, version)
            for name, dependency in source.config.sources.items():
                shown = f"{declared.name} (rules/source.toml [sources.{name}])"
                target = declare(name, _url_spec(dependency.url), snapshot.root, shown)
                if snapshot.commit is not None and target.key.startswith("/") and target.key not in manifest_sources:
                    raise UserError(
                        f"source {declared.name} (a git source) names the local folder {target.key} as its"
                        f" source {name!r}; a source fetched from git cannot point at files on your machine",
                        file=shown,
                        field=f"sources.{name}.url",
                        fix="name that source by its git URL in the source; or declare the folder in your own rules.toml",
                    )
                ranges.setdefault(target.key, []).append((shown, dependency.versions, target))
                if target.key not in self.fetched:
                    pending.append(manifest_sources.get(target.key, target))
        for key, declarations in ranges.items():  # every declaration, also those found after a fetch
            self._check_fetched(key, declarations)
        return self.fetched

    def dependency_keys(self, key: str) -> dict[str, str]:
        """For the source `key`: its source.toml names → source keys."""
        fetched = self.fetched[key]
        return {
            name: declare(name, _url_spec(dependency.url), fetched.snapshot.root, "").key
            for name, dependency in fetched.source.config.sources.items()
        }

    def _locked_commit(self, key: str, requested: tuple[str, str] | None) -> str | None:
        pinned = self.pinned.get(key)
        if pinned is None or key in self.move or pinned.request != requested:
            return None
        return pinned.commit

    def _in_ranges(self, declared: Declared, declarations: list[tuple[str, str, Declared]]) -> tuple[Snapshot, str]:
        specs = [(who, _specifier(text, who)) for who, text, _ in declarations]
        tags = _versions(version_tags(url=declared.spec.url, path=declared.spec.path, base_dir=declared.base_dir))
        locked = self._locked_commit(declared.key, None)
        allowed = [(version, tag, commit) for version, tag, commit in tags if all(version in spec for _, spec in specs)]
        if locked is not None:
            allowed = [item for item in allowed if item[2] == locked] or allowed
        if not allowed:
            raise _range_failure(declared, declarations, [tag for _, tag, _ in tags])
        _, tag, commit = max(allowed)
        snapshot = fetch(url=declared.spec.url, path=declared.spec.path, commit=commit, base_dir=declared.base_dir)
        self._snapshots[declared.key] = snapshot
        return snapshot, tag

    def _check_fetched(self, key: str, declarations: list[tuple[str, str, Declared]]) -> None:
        fetched = self.fetched[key]
        specs = [(who, _specifier(text, who)) for who, text, _ in declarations]
        if all(not str(spec) for _, spec in specs) or fetched.snapshot.commit is None:
            return  # no range, or a plain folder (a development override, outside versioning)
        spec = fetched.declared.spec
        tags = _versions(version_tags(url=spec.url, path=spec.path, base_dir=fetched.declared.base_dir))
        here = [(version, tag) for version, tag, commit in tags if commit == fetched.snapshot.commit]
        if not any(all(version in s for _, s in specs) for version, _ in here):
            raise _range_failure(
                fetched.declared, declarations, [tag for _, tag in here], at=fetched.snapshot.commit
            )


def _url_spec(url: str) -> SourceSpec:
    return SourceSpec(url=url)


def _specifier(text: str, who: str) -> SpecifierSet:
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise UserError(
            f"{text!r} is not a version range",
            file=who,
            field="versions",
            fix='write PEP 440 specifiers over the version tags, e.g. ">=1.2, <2"',
        ) from None


def _versions(tags: list[tuple[str, str]]) -> list[tuple[Version, str, str]]:
    found = []
    for tag, commit in tags:
        try:
            found.append((Version(tag.removeprefix("v")), tag, commit))
        except InvalidVersion:
            continue  # not a version tag
    return found


def _range_failure(
    declared: Declared, declarations: list[tuple[str, str, Declared]], tags: list[str], at: str | None = None
) -> UserError:
    lines = [f"  {who} accepts {text or 'any version'}" for who, text, _ in declarations]
    if declared.file and at is not None:
        request = declared.spec.requested
        follow = f"{request[0]} {request[1]}" if request else "its default branch"
        lines.insert(0, f"  {declared.file} follows {follow}: commit {at[:12]}, tagged {', '.join(tags) or 'with no version'}")
    where = f"versions found: {', '.join(tags) or 'none'}" if at is None else ""
    declaring = ", ".join(who.split(" ", 1)[0] for who, _, _ in declarations)
    if at is not None:
        fix = (
            f"in {declared.file}, follow a version tag of it inside every range above; or upgrade the source"
            " whose range excludes this version (`doit upgrade --source NAME`)"
        )
    else:
        fix = (
            f"the ranges of {declaring} exclude each other: upgrade one of these sources to a version that accepts"
            " the other's, or stop selecting the rules of one of them"
        )
    return UserError(
        f"no version of source {declared.key} satisfies every declaration:\n" + "\n".join(lines)
        + (f"\n  {where}" if where else ""),
        fix=fix,
    )
