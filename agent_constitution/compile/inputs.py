"""What compile reads: the typed resolution of a segment, the rule sources and the constitution.

The resolution of a segment (`cache/resolved/<key>.json`, written by the lock stage, schema in
`agent_constitution.ruleset.resolved`) names the constitution and every source with the folder
holding its tree, its aliases and its domains and groups, and lists the segment's rules with their
texts and places in the tree. `read_resolved` is its one reader; this module builds the rendering
inputs from it: the `Library` of the sources' trees and the `Constitution` with its agent edition
and provision labels (which the index of the resolution holds: `read_index`). Compile reads no rule
file of a source and nothing of the constitution's folder: what it renders is in the resolution.

`Reads` records what a build step read of the resolution, with the digests the resolution holds of
it; a task's up-to-date check compares them against the current resolution, so a new commit of a
source rebuilds only the outputs whose rules changed in it, and neither opens a file of a source.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_constitution.layout import RULES, SOURCE_CONFIG
from agent_constitution.ruleset.resolved import (
    AgentEdition, Resolved, ResolvedRule, ResolvedSource, read_index, read_resolved, resolved_path,
)

if TYPE_CHECKING:
    from agent_constitution.compile.document import Constitution, Library, Node, SourceTree

__all__ = [
    "Reads", "Resolved", "constitution_root", "load_constitution", "load_library",
    "read_index", "read_resolved", "resolved_path",
]


def constitution_root(resolved: Resolved) -> Path:
    return Path(resolved.constitution.root)


# --- loading (memoized) ---------------------------------------------------------------------------


def load_library(resolved: Resolved, parent: Resolved | None = None) -> Library:
    """The sources' trees as the segment's resolution records them, with the rules of the file
    above it (`parent`: the titles of the rules it holds that are not in force here)."""
    from agent_constitution.compile.document import Library  # lazy: markdown-it; up-to-date checks read resolutions only

    rules: dict[str, dict[int, ResolvedRule]] = {name: {} for name in resolved.sources}
    for rule in (*(parent.rules if parent is not None else ()), *resolved.rules):
        rules.setdefault(rule.source, {})[rule.id] = rule
    sources = {name: _tree(item, rules[name]) for name, item in resolved.sources.items()}
    aliases = {name: MappingProxyType(dict(item.aliases)) for name, item in resolved.sources.items()}
    return Library(MappingProxyType(sources), MappingProxyType(aliases))


def _tree(item: ResolvedSource, rules: Mapping[int, ResolvedRule]) -> SourceTree:
    from agent_constitution.compile.document import SourceTree  # lazy: markdown-it; up-to-date checks read resolutions only

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


def load_constitution(resolved: Resolved, project_root: Path, edition: AgentEdition,
                      language: str | None = None) -> Constitution:
    """The constitution the resolution binds, its text and labels from `edition` (what the index of
    the resolution holds: `ruleset.resolved.Index.constitution`)."""
    from agent_constitution.compile.document import Constitution  # lazy: markdown-it; up-to-date checks read resolutions only

    c = resolved.constitution
    code = language or edition.languages[0]
    source = resolved.sources.get(c.source)
    repository = _repository(source.key, project_root) if source is not None else c.source
    return Constitution(
        repository=repository,
        edition=c.edition,
        revision=c.revision,
        commit=c.commit if source is not None and source.commit is not None else None,
        language=code,
        text=edition.text[code] if code in edition.text else edition.text[edition.languages[0]],
        provision_label=edition.label,
    )


def _repository(key: str, project_root: Path) -> str | None:
    """A URL as normalized, a folder relative to the project (never a machine's absolute path), or
    None for the project itself."""
    if not Path(key).is_absolute():
        return key
    relative = Path(os.path.relpath(key, project_root.resolve())).as_posix()
    return None if relative == "." else relative


# --- what a step read --------------------------------------------------------------------------


@dataclass(frozen=True)
class Reads:
    """What a step read of the resolution, each with the digest the resolution records of it:
    `name:rules/<id>.toml` a rule's title or text (the rule's digest), `name:rules/source.toml` a
    source's domain and group titles (a digest of its nodes), `constitution` the constitution's text
    and labels (the commit it is bound at: for a plain folder, the digest of the edition's files).
    Neither taking nor comparing them opens a file of a source: the lock stage digested them."""

    files: Mapping[str, str]  # "name:relative/path" or "constitution" → digest

    @staticmethod
    def of(resolved: Resolved, parent: Resolved | None, rules, sources, constitution: bool) -> "Reads":
        """`rules`: the (source name, rule id) whose title or text the step showed; `sources`: the
        sources whose titles it showed; `constitution`: whether it used the constitution."""
        keys = [f"{name}:{RULES}/{rule_id}.toml" for name, rule_id in rules]
        keys += [f"{name}:{SOURCE_CONFIG}" for name in sources] + (["constitution"] if constitution else [])
        current = _Digests(resolved, parent)
        return Reads({key: current.of(key) for key in sorted(keys)})

    def unchanged(self, resolved: Resolved, parent: Resolved | None) -> bool:
        current = _Digests(resolved, parent)
        return all(current.of(key) == digest for key, digest in self.files.items())


class _Digests:
    """The digests a resolution (and its parent's) records of what `Reads` names."""

    def __init__(self, resolved: Resolved, parent: Resolved | None):
        self.resolved = resolved
        self.rules = {f"{rule.source}:{RULES}/{rule.id}.toml": rule.digest
                      for rule in (*(parent.rules if parent is not None else ()), *resolved.rules)}

    def of(self, key: str) -> str | None:
        if key == "constitution":
            return self.resolved.constitution.commit
        name, _, relative = key.partition(":")
        if relative == SOURCE_CONFIG:
            source = self.resolved.sources.get(name)
            return None if source is None else _nodes_digest(source)
        return self.rules.get(key)


def _nodes_digest(source: ResolvedSource) -> str:
    data = json.dumps([[node.id, node.parent, node.title] for node in source.nodes], sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def constitution_at(folder: Path, repository: str | None, edition: str, revision: str, commit: str | None) -> Constitution:
    """The constitution of an edition folder outside a resolution (init measures its starter with it)."""
    from agent_constitution.compile.document import Constitution  # lazy: markdown-it; up-to-date checks read resolutions only
    from agent_constitution.ruleset.agent_edition import agent_edition  # lazy: the edition's models, for init only

    found = agent_edition(folder, commit or "")
    code = found.languages[0]
    return Constitution(
        repository=repository, edition=edition, revision=revision, commit=commit, language=code,
        text=found.text[code], provision_label=found.label,
    )
