"""What compile reads: the resolved segments, the rule sources and the constitution.

The resolution of a segment (`cache/resolved/<key>.json`, written by the `resolve:<segment>` task,
schema in `agent_constitution.ruleset.resolve`) names the constitution and every source with the
folder holding its tree, and lists the segment's rules. This module reads it (`read_resolved`) and
builds the rendering inputs from it: the `Library` of loaded sources and the `Constitution` with
its agent edition and provision labels. Loading is memoized per process and per tree (a folder and
its content digest), so a build of many segments parses each source once.

`Reads` records what a build step read, as `(source name, path inside the source) → sha256`; a
task's up-to-date check compares it against the current resolution, so a new commit of a source
rebuilds only the outputs whose files changed in it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

from agent_constitution.compile.document import Constitution, Library, RuleKey
from agent_constitution.errors import UserError
from agent_constitution.layout import RESOLVED, segment_key
from agent_constitution.readers import read_json, read_text
from agent_constitution.ruleset.models import parse
from agent_constitution.ruleset.source import RuleSource, load_source
from agent_constitution.sources import normalize_url


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResolvedConstitution(_Strict):
    source: str
    edition: str
    revision: str
    commit: str
    root: str


class ResolvedSource(_Strict):
    key: str
    commit: str | None
    digest: str
    root: str
    trust: bool


class ResolvedRule(_Strict):
    source: str
    id: int
    revision: int
    why: str


class Resolved(_Strict):
    version: int
    segment: str
    constitution: ResolvedConstitution
    sources: dict[str, ResolvedSource]
    rules: tuple[ResolvedRule, ...]
    warnings: tuple[str, ...] = ()

    @property
    def selected(self) -> frozenset[RuleKey]:
        return frozenset((rule.source, rule.id) for rule in self.rules)


def resolved_path(cache: Path, segment: str) -> Path:
    return cache / RESOLVED / f"{segment_key(segment)}.json"


def read_resolved(path: Path) -> Resolved:
    try:
        status = path.stat()
    except FileNotFoundError:
        status = None
    if status is None:
        return _read_resolved(path, 0, 0)
    return _read_resolved(path, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=1024)
def _read_resolved(path: Path, mtime: int, size: int) -> Resolved:
    # Memoized by mtime and size: a nested segment's check reads its parent's resolution too.
    if not os.path.lexists(path):
        raise UserError(
            "the segment has not been resolved", file=path, fix="run `doit compile` (it resolves first)"
        )
    try:
        data = read_json(path)
    except UserError as error:
        error.fix = "delete the file and run `doit compile`"
        raise
    return parse(Resolved, data, path)


def constitution_root(resolved: Resolved) -> Path:
    return Path(resolved.constitution.root)


# --- loading (memoized) ---------------------------------------------------------------------------


def load_library(resolved: Resolved) -> Library:
    sources = {name: _source(item.root, item.digest) for name, item in resolved.sources.items()}
    by_key = {item.key: name for name, item in resolved.sources.items()}
    aliases = {}
    for name, source in sources.items():
        root = Path(resolved.sources[name].root)
        aliases[name] = MappingProxyType({
            alias: by_key[key]
            for alias, dependency in source.config.sources.items()
            if (key := normalize_url(dependency.url, base_dir=root)) in by_key
        })
    return Library(MappingProxyType(sources), MappingProxyType(aliases))


@lru_cache(maxsize=32)
def _source(root: str, digest: str) -> RuleSource:
    return load_source(Path(root))


def load_constitution(resolved: Resolved, project_root: Path, language: str | None = None) -> Constitution:
    c = resolved.constitution
    edition, agent = _edition(c.root, c.commit)
    code = language or edition.index.languages[0]
    source = resolved.sources.get(c.source)
    repository = _repository(source.key, project_root) if source is not None else c.source
    return Constitution(
        repository=repository,
        edition=c.edition,
        revision=c.revision,
        commit=c.commit if source is not None and source.commit is not None else None,
        language=code,
        text=agent[code] if code in agent else agent[edition.index.languages[0]],
        provision_label=_labeller(c.root, c.commit),
    )


def _repository(key: str, project_root: Path) -> str | None:
    """A URL as normalized, a folder relative to the project (never a machine's absolute path), or
    None for the project itself."""
    if not Path(key).is_absolute():
        return key
    relative = Path(os.path.relpath(key, project_root.resolve())).as_posix()
    return None if relative == "." else relative


@lru_cache(maxsize=8)
def _edition(root: str, commit: str):
    """The loaded edition and its agent text per language: generated/ when present, else rendered."""
    from agent_constitution.edition.render import file_names, outputs
    from agent_constitution.edition.sources import load, read_worktree

    folder = Path(root)
    source_root = folder.parent.parent
    prefix = f"constitution/{folder.name}/"
    sources = {path: data for path, data in read_worktree(source_root).items() if path.startswith(prefix)}
    edition = load(sources)
    names = {code: file_names(code)[1] for code in edition.index.languages}
    if all((folder / "generated" / name).is_file() for name in names.values()):
        agent = {code: read_text(folder / "generated" / name) for code, name in names.items()}
    else:
        rendered = outputs(edition)
        agent = {code: rendered[name].decode("utf-8") for code, name in names.items()}
    return edition, MappingProxyType(agent)


@lru_cache(maxsize=8)
def _labeller(root: str, commit: str):
    from agent_constitution.edition.languages import LANGUAGES
    from agent_constitution.edition.references import label, targets

    edition, _ = _edition(root, commit)
    known = targets(edition)

    def provision_label(anchor: str, language: str) -> str | None:
        target = known.get(anchor)
        if target is None:
            return None
        return label(target, LANGUAGES.get(language, LANGUAGES["en"]), short=False)

    return provision_label


def constitution_files(resolved: Resolved) -> list[Path]:
    """The files of the constitution edition compile reads (sources and generated agent editions)."""
    folder = constitution_root(resolved)
    return sorted(path for path in folder.rglob("*") if path.is_file() and "__pycache__" not in path.parts)


# --- what a step read --------------------------------------------------------------------------


@dataclass(frozen=True)
class Reads:
    """Files a step read, by source name and path inside that source, with their sha256."""

    files: Mapping[str, str]  # "name:relative/path" → sha256

    @staticmethod
    def of(resolved: Resolved, paths: Mapping[str, list[str]]) -> "Reads":
        found = {}
        for name, relatives in paths.items():
            root = _root_of(resolved, name)
            for relative in relatives:
                found[f"{name}:{relative}"] = _sha256(root / relative)
        return Reads(dict(sorted(found.items())))

    def unchanged(self, resolved: Resolved) -> bool:
        for entry, digest in self.files.items():
            name, _, relative = entry.partition(":")
            try:
                root = _root_of(resolved, name)
            except KeyError:
                return False
            if _sha256(root / relative) != digest:
                return False
        return True


def _root_of(resolved: Resolved, name: str) -> Path:
    if name == "constitution":
        return constitution_root(resolved)
    return Path(resolved.sources[name].root)


def _sha256(path: Path) -> str | None:
    try:
        status = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return _file_sha256(str(path), status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=65536)
def _file_sha256(path: str, mtime: int, size: int) -> str | None:
    # Memoized by mtime and size: many segments read the same rule files in one build.
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
