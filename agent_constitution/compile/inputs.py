"""What compile reads: the typed resolution of a segment, the rule sources and the constitution.

The resolution of a segment (`cache/resolved/<key>.json`, written by the lock stage, schema in
`agent_constitution.ruleset.resolved`) names the constitution and every source with the folder
holding its tree, its aliases and its domains and groups, and lists the segment's rules with their
texts and places in the tree. `read_resolved` is its one reader; this module builds the rendering
inputs from it: the `Library` of the sources' trees and the `Constitution` with its agent edition
and provision labels. Compile reads no rule file of a source: what it renders is in the resolution.

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

from agent_constitution.compile.document import Constitution, Library, Node, SourceTree
from agent_constitution.readers import read_text
from agent_constitution.ruleset.resolved import Resolved, ResolvedRule, ResolvedSource, read_resolved, resolved_path

__all__ = [
    "Reads", "Resolved", "constitution_files", "constitution_root", "load_constitution", "load_library",
    "read_resolved", "resolved_path",
]


def constitution_root(resolved: Resolved) -> Path:
    return Path(resolved.constitution.root)


# --- loading (memoized) ---------------------------------------------------------------------------


def load_library(resolved: Resolved, parent: Resolved | None = None) -> Library:
    """The sources' trees as the segment's resolution records them, with the rules of the file
    above it (`parent`: the titles of the rules it holds that are not in force here)."""
    rules: dict[str, dict[int, ResolvedRule]] = {name: {} for name in resolved.sources}
    for rule in (*(parent.rules if parent is not None else ()), *resolved.rules):
        rules.setdefault(rule.source, {})[rule.id] = rule
    sources = {name: _tree(item, rules[name]) for name, item in resolved.sources.items()}
    aliases = {name: MappingProxyType(dict(item.aliases)) for name, item in resolved.sources.items()}
    return Library(MappingProxyType(sources), MappingProxyType(aliases))


def _tree(item: ResolvedSource, rules: Mapping[int, ResolvedRule]) -> SourceTree:
    parents: dict[Node, Node] = {node.id: node.parent for node in item.nodes if node.parent is not None}
    children: dict[Node, list[Node]] = {node.id: [] for node in item.nodes}
    for node in item.nodes:
        if node.parent is not None:
            children.setdefault(node.parent, []).append(node.id)
    for rule_id in sorted(rules):
        parents[rule_id] = rules[rule_id].parent
        children.setdefault(rules[rule_id].parent, []).append(rule_id)
    return SourceTree(
        root=item.root,
        language=item.language,
        domains=tuple(node.id for node in item.nodes if node.parent is None),
        titles=MappingProxyType({node.id: node.title for node in item.nodes}),
        rules=MappingProxyType(dict(rules)),
        parents=MappingProxyType(parents),
        children=MappingProxyType({node: tuple(kids) for node, kids in children.items()}),
    )


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
                found[f"{name}:{relative}"] = _sha256(os.path.join(root, relative))
        return Reads(dict(sorted(found.items())))

    def unchanged(self, resolved: Resolved) -> bool:
        # Plain strings, not pathlib: every segment's up-to-date check runs this over its files.
        roots: dict[str, str] = {}
        for entry, digest in self.files.items():
            name, _, relative = entry.partition(":")
            root = roots.get(name)
            if root is None:
                try:
                    root = roots[name] = _root_of(resolved, name)
                except KeyError:
                    return False
            if _sha256(os.path.join(root, relative)) != digest:
                return False
        return True


    def unchanged_under(self, roots: Mapping[str, str]) -> bool:
        """`unchanged`, with each source's root as the step that read the files found it (the
        segment's up-to-date check, when the resolution is the file the step read)."""
        for entry, digest in self.files.items():
            name, _, relative = entry.partition(":")
            if name not in roots or _sha256(os.path.join(roots[name], relative)) != digest:
                return False
        return True


def source_roots(resolved: Resolved) -> dict[str, str]:
    """Each source's root by name, and the constitution's (`Reads` names files under them)."""
    return {"constitution": resolved.constitution.root, **{name: item.root for name, item in resolved.sources.items()}}


def _root_of(resolved: Resolved, name: str) -> str:
    if name == "constitution":
        return resolved.constitution.root
    return resolved.sources[name].root


def _sha256(path: str) -> str | None:
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return _file_sha256(path, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=65536)
def _file_sha256(path: str, mtime: int, size: int) -> str | None:
    # Memoized by mtime and size: many segments read the same rule files in one build.
    try:
        with open(path, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def constitution_at(folder: Path, repository: str | None, edition: str, revision: str, commit: str | None) -> Constitution:
    """The constitution of an edition folder outside a resolution (init measures its starter with it)."""
    loaded, agent = _edition(str(folder), commit or "")
    code = loaded.index.languages[0]
    return Constitution(
        repository=repository, edition=edition, revision=revision, commit=commit, language=code,
        text=agent[code], provision_label=_labeller(str(folder), commit or ""),
    )
