"""Which rules each segment checks: the typed resolution the lock stage wrote (`cache/resolved/`).

The runner needs the selection when doit creates its tasks (one task per rule), before any task has
run, so every `doit check` needs it, a no-op one too. It reads the resolution's index and each
segment's document (`agent_constitution.ruleset.resolved`: each rule with its text, status and
`[check]`, each source with its root and trust) while the index is at least as new as the
manifest's inputs and the lock, and nothing else: no rule file is parsed. Otherwise (a fresh clone,
an edited manifest) it runs the lock stage's resolution without the lock (`resolve_documents`:
reading the lock, writing only the documents) and reads what that wrote. Each rule's check comes
from its source's tree as the resolution pins it (the locked snapshot, or a path source's folder),
so a rule and its check always come from one version. `trust` is the resolution's: the manifest
trusts the source, or it is a path source inside the repository.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution import ids
from agent_constitution.checks.model import ROOT_SEGMENT, CheckSpec, RuleCheck
from agent_constitution.checks.waivers import Waiver
from agent_constitution.errors import UserError
from agent_constitution.ruleset.inputs import manifest_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.ruleset.resolved import Index, Resolved, ResolvedRule, index_path, read_index, read_resolved, resolved_path

# Resolving (pydantic, the source loaders) is imported only when the resolution is stale: the Stop
# hook reads a fresh one and must stay fast.


@dataclass(frozen=True)
class Selection:
    segments: tuple[str, ...]                       # the root "." first, then the manifest's order
    rules: Mapping[str, tuple[RuleCheck, ...]]      # segment → the rules it checks
    review: Mapping[str, tuple[str, ...]]           # reviewer group → rule patterns
    waivers: tuple[Waiver, ...] = ()                # the manifest's [[waive]] entries
    # reviewer group → its `[review.<group>]` settings (command, budgets), from the root manifest only
    reviewers: Mapping[str, Mapping] = field(default_factory=dict)
    sources: Mapping[str, Mapping] = field(default_factory=dict)   # source name → {root, trust}


def select(root: Path, cache: Path, asked: tuple[str, ...] = ()) -> Selection:
    """`asked`: refs the user named (`rules=`); one the resolution leaves out (a superseded rule) is
    added to the root segment, so that its check can still be run on request."""
    if not (root / MANIFEST).is_file():
        return Selection((ROOT_SEGMENT,), {ROOT_SEGMENT: ()}, {})
    index, documents = _resolution(root, cache)
    sources = {name: {"root": item.root, "trust": item.trust} for name, item in documents[0].sources.items()}
    rules = {
        document.segment: tuple(_check(rule, document) for rule in document.rules) for document in documents
    }
    refs = {rule.ref for found in rules.values() for rule in found}
    for ref in asked:
        if ref not in refs:
            rules[ROOT_SEGMENT] += (_named(ref, sources),)
    review = {name: tuple(group["rules"]) for name, group in index.review.items()}
    return Selection(index.segments, rules, review, _waivers(index.waive), index.review, sources)


def _waivers(waive) -> tuple[Waiver, ...]:
    """The manifest's `[[waive]]` entries, as the index holds them validated."""
    return tuple(Waiver(item["rule"], tuple(item["paths"]), item["reason"],
                        None if item["until"] is None else datetime.date.fromisoformat(item["until"]), number)
                 for number, item in enumerate(waive, 1))


def _resolution(root: Path, cache: Path) -> tuple[Index, list[Resolved]]:
    index = _fresh_index(root, cache)
    if index is not None:
        try:
            documents = [read_resolved(resolved_path(cache, segment)) for segment in index.segments]
        except UserError:
            documents = None
        # The user cache that held a snapshot may have been cleared since: then resolve (and fetch) here.
        if documents is not None and all(Path(item.root).is_dir() for item in documents[0].sources.values()):
            return index, documents
    from agent_constitution.ruleset.lock import resolve_documents  # lazy: resolution only when the resolved documents are stale

    resolve_documents(root, cache)
    index = read_index(cache)
    return index, [read_resolved(resolved_path(cache, segment)) for segment in index.segments]


def _fresh_index(root: Path, cache: Path) -> Index | None:
    """The index, when it is at least as new as what the resolution is computed from: the manifests,
    the path sources' files and the lock (which pins every other source's snapshot)."""
    try:
        stamp = index_path(cache).stat().st_mtime_ns
    except OSError:
        return None
    inputs = [Path(path) for path in manifest_inputs(root)] + [root / LOCKFILE]
    newest = max((path.stat().st_mtime_ns for path in inputs if path.exists()), default=0)
    return read_index(cache) if stamp >= newest else None


def _check(rule: ResolvedRule, document: Resolved) -> RuleCheck:
    source = document.sources[rule.source]
    check = rule.check
    return RuleCheck(
        source=rule.source,
        id=rule.id,
        revision=rule.revision,
        status=rule.status,
        title=rule.title[source.language],
        text=rule.text[source.language],
        check=None if check is None else CheckSpec.of(check),
        source_root=Path(source.root),
        trusted=source.trust,
    )


def _named(ref: str, declared: Mapping[str, dict]) -> RuleCheck:
    """A rule the resolution leaves out, named on the command line: read from its source's tree."""
    from agent_constitution.ruleset.source import load_source  # lazy: a source is loaded only for a rule named on the command line

    name, _, written = ref.partition(":")
    number = ids.rule_number(written)
    if name not in declared or number is None:
        raise UserError(f"rules={ref}: not a rule of a source in {MANIFEST}",
                        fix=f"name rules as source:id with a source of: {', '.join(sorted(declared))}")
    folder = Path(declared[name]["root"])
    source = load_source(folder)
    if number not in source.rules:
        raise UserError(f"rules={ref}: source {name!r} has no rule {number}")
    return RuleCheck.from_rule(source.rules[number], source=name, source_root=folder,
                               trusted=declared[name]["trust"], language=source.config.languages[0])
