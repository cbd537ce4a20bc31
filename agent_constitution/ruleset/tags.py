"""Version tags: which tags name a PEP 440 version, their order, and the newest inside a range.

Apart from `versions` (the resolver, which imports the rule models and the sources' git layer) so
that what only orders tags, the fleet's survey among it, imports `packaging` and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version


def version_of(tag: str) -> Version | None:
    """The PEP 440 version a tag names (`v1.2` → 1.2), or None for a tag that names none."""
    try:
        return Version(tag)
    except InvalidVersion:
        return None


@dataclass(frozen=True)
class Tag:
    name: str
    commit: str
    version: Version


def tag_versions(tags: Iterable[tuple[str, str]]) -> list[Tag]:
    """The version tags among (name, commit) pairs, newest first (equal versions: by name)."""
    found = [Tag(name, commit, version) for name, commit in tags if (version := version_of(name)) is not None]
    return sorted(found, key=lambda tag: (tag.version, tag.name), reverse=True)


def admits(spec: SpecifierSet, version: Version) -> bool:
    """PEP 440 containment: a pre-release only when the range names one (packaging's default admits them)."""
    return spec.contains(version, prereleases=bool(spec.prereleases))


def newest(tags: Iterable[Tag], spec: SpecifierSet | None = None, *, prereleases: bool = False) -> Tag | None:
    """The newest tag inside `spec` (None: any); pre-releases only when `prereleases` or the range names one."""
    for tag in tags:
        if spec is not None:
            if admits(spec, tag.version):
                return tag
        elif prereleases or not tag.version.is_prerelease:
            return tag
    return None
