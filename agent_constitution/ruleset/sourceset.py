"""The sources one resolution reads, each at one version: `SourceSet`.

A manifest declares sources (`[sources]`: a version range, a tag, a branch or a rev, or a plain
folder); a source's `rules/source.toml` declares the sources its rules require, each with a range of
version tags it accepts (`versions = ">=1.2, <2"`). One version of every source (matched by key, the
normalized URL) must satisfy every declaration; `ruleset.versions.choose` finds it, backtracking
over the versions of the sources that have a choice (see there). With a lock, a source whose
request did not change stays at its locked commit while that satisfies every declaration; `move`
names the sources an upgrade lets go of their locked commit.

A source followed by a version range whose tree is needed before the choice (a base manifest
inside it, `extends = "name:manifests/base.toml"`) is opened at the version its own range gives
(the locked one, else the newest in range), and the choice keeps it there.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from packaging.specifiers import SpecifierSet

from agent_constitution.errors import UserError
from agent_constitution.ruleset.manifest import Declared, declare
from agent_constitution.ruleset.models import SourceSpec
from agent_constitution.ruleset.source import RuleSource, load_source
from agent_constitution.ruleset.versions import choose, newest, tag_versions
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
    """What the lock says about a source: the request it was locked for, the result, the version tag chosen."""

    request: tuple[str, str] | None
    commit: str | None
    version: str | None = None
    name: str = ""  # the source's name in the lock


class SourceSet:
    def __init__(self, project_root: Path, pinned: Mapping[str, Pinned] | None = None, move: frozenset[str] | None = None):
        """`pinned`: key → locked state; `move`: keys allowed to leave their locked commit (upgrade)."""
        self.project_root = project_root
        self.pinned = dict(pinned or {})
        self.move = move or frozenset()
        self._snapshots: dict[str, Snapshot] = {}
        self.opened: dict[str, str] = {}  # key → the version tag a ranged source was opened at early
        self.fetched: dict[str, Fetched] = {}

    def snapshot(self, declared: Declared) -> Snapshot:
        """The tree of a manifest-declared source (also used for bases inside a source)."""
        if declared.key not in self._snapshots:
            spec = declared.spec
            if spec.version is not None:
                self._snapshots[declared.key] = self._open_ranged(declared)
            else:
                commit = self.locked(declared.key, spec.requested) or self._relocated(declared)
                self._snapshots[declared.key] = fetch(
                    url=spec.url, path=spec.path, tag=spec.tag, branch=spec.branch, rev=spec.rev,
                    commit=commit.commit if commit else None, base_dir=declared.base_dir,
                )
        return self._snapshots[declared.key]

    def _relocated(self, declared: Declared) -> Pinned | None:
        """The lock's pin of a source whose URL changed (same name, same request), when the new URL has
        its commit: a source that moved to another address is the same source (seed 000), not a new head."""
        old_key, pinned = next(
            ((key, pin) for key, pin in self.pinned.items() if pin.name == declared.name and key != declared.key),
            (None, None),
        )
        spec = declared.spec
        if pinned is None or old_key in self.move or pinned.request != spec.requested or pinned.commit is None:
            return None
        if declared.key in self.pinned or spec.url is None:
            return None
        try:
            fetch(url=spec.url, commit=pinned.commit, base_dir=declared.base_dir)
        except UserError:
            print(
                f"note: source {declared.name} moved from {old_key} to {declared.key}, which has no commit"
                f" {pinned.commit[:12]} (the lock's); its {_request(spec.requested)} was resolved again there",
                file=sys.stderr,
            )
            return None
        return pinned

    def open_root(self, declared: Declared) -> Path:
        return self.snapshot(declared).root

    def opened_tag(self, key: str) -> str | None:
        return self.opened.get(key)

    def load(self, manifest_sources: Mapping[str, Declared]) -> dict[str, Fetched]:
        """Fetch and load every source the manifest and, transitively, the sources declare."""
        chosen = choose(self, manifest_sources)
        pending = list(manifest_sources.values())
        while pending:  # in discovery order, so names and the lock's order stay as they were
            declared = pending.pop(0)
            if declared.key in self.fetched:
                continue
            candidate = chosen[declared.key]
            if candidate.fixed or candidate.commit is None:
                snapshot = self.snapshot(declared)
            else:
                spec = declared.spec
                snapshot = fetch(url=spec.url, path=spec.path, commit=candidate.commit, base_dir=declared.base_dir)
                self._snapshots[declared.key] = snapshot
            source = _load(str(snapshot.root), snapshot.digest)
            version = candidate.tag if declared.spec.tag is None else None
            self.fetched[declared.key] = Fetched(declared, snapshot, source, version)
            for name, dependency in source.config.sources.items():
                shown = f"{declared.name} (rules/source.toml [sources.{name}])"
                target = declare(name, SourceSpec(url=dependency.url), snapshot.root, shown)
                if target.key not in self.fetched:
                    pending.append(manifest_sources.get(target.key, target))
        return self.fetched

    def dependency_keys(self, key: str) -> dict[str, str]:
        """For the source `key`: its source.toml names → source keys."""
        fetched = self.fetched[key]
        return {
            name: declare(name, SourceSpec(url=dependency.url), fetched.snapshot.root, "").key
            for name, dependency in fetched.source.config.sources.items()
        }

    def locked(self, key: str, requested: tuple[str, str] | None) -> Pinned | None:
        """What the lock pins for `key`, while its request is unchanged and it is not being upgraded."""
        pinned = self.pinned.get(key)
        if pinned is None or key in self.move or pinned.request != requested or pinned.commit is None:
            return None
        return pinned

    def _open_ranged(self, declared: Declared) -> Snapshot:
        spec = declared.spec
        locked = self.locked(declared.key, spec.requested)
        if locked is not None and locked.version is not None:
            tag, commit = locked.version, locked.commit
        else:
            tags = tag_versions(version_tags(url=spec.url, path=spec.path, base_dir=declared.base_dir))
            found = newest(tags, SpecifierSet(spec.version))
            if found is None:
                raise UserError(
                    f"source {declared.name} has no version tag inside {spec.version}"
                    f" (versions found: {', '.join(t.name for t in reversed(tags[:20])) or 'none'})",
                    file=declared.file,
                    field=f"sources.{declared.name}.version",
                    fix="widen the range, or follow a tag the source has",
                )
            tag, commit = found.name, found.commit
        self.opened[declared.key] = tag
        return fetch(url=spec.url, path=spec.path, commit=commit, base_dir=declared.base_dir)


def _request(requested: tuple[str, str] | None) -> str:
    return f"{requested[0]} {requested[1]}" if requested else "default branch"


@lru_cache(maxsize=64)
def _load(root: str, digest: str) -> RuleSource:
    """A source loaded once per content: `upgrade` resolves twice, and most sources do not move."""
    return load_source(Path(root))
