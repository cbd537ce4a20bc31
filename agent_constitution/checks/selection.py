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
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_constitution import ids
from agent_constitution.checks.model import ROOT_SEGMENT, CheckSpec, RuleCheck
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.layout import CHECKS
from agent_constitution.readers import read_cached
from agent_constitution.ruleset.inputs import manifest_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.ruleset.resolved import Index, Resolved, index_path, read_index, read_resolved, resolved_path

if TYPE_CHECKING:
    from agent_constitution.checks.waivers import Waiver

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
    index, sources, rules = _resolution(root, cache)
    refs = {rule.ref for found in rules.values() for rule in found} if asked else set()
    for ref in asked:
        if ref not in refs:
            rules[ROOT_SEGMENT] += (_named(ref, sources),)
    review = {name: tuple(group["rules"]) for name, group in index.review.items()}
    return Selection(index.segments, rules, review, _waivers(index.waive), index.review, sources)


def _waivers(waive) -> tuple[Waiver, ...]:
    """The manifest's `[[waive]]` entries, as the index holds them validated."""
    if not waive:
        return ()
    from agent_constitution.checks.waivers import Waiver  # lazy: waivers brings the report module (importlib.metadata): 25 ms of the Stop hook, most manifests waive nothing

    return tuple(Waiver(item["rule"], tuple(item["paths"]), item["reason"],
                        None if item["until"] is None else datetime.date.fromisoformat(item["until"]), number)
                 for number, item in enumerate(waive, 1))


def _resolution(root: Path, cache: Path) -> tuple[Index, dict, dict[str, tuple[RuleCheck, ...]]]:
    """The index, the sources ({root, trust} by name) and each segment's rules: from the selection
    kept in `cache/checks/selection.json` for each segment whose resolution document is the one it
    was made from, else from the documents (and kept for the next run), else resolved here first."""
    index = _fresh_index(root, cache)
    if index is not None:
        stamps = _stamps(cache, index.segments)
        kept = _kept(cache) if None not in stamps else None
        held = {} if kept is None else kept[3]
        try:
            documents = {segment: read_resolved(resolved_path(cache, segment))
                         for segment, stamp in zip(index.segments, stamps) if held.get(segment, (None,))[0] != stamp}
        except UserError:
            documents = None
        if documents is not None:
            found = _keep(cache, index.segments, stamps, documents, kept)
            # The user cache that held a snapshot may have been cleared since: then resolve (and fetch) here.
            if all(Path(item["root"]).is_dir() for item in found[0].values()):
                return index, *found
    from agent_constitution.ruleset.lock import resolve_documents  # lazy: resolution only when the resolved documents are stale

    resolve_documents(root, cache)
    index = read_index(cache)
    documents = {segment: read_resolved(resolved_path(cache, segment)) for segment in index.segments}
    return index, *_keep(cache, index.segments, _stamps(cache, index.segments), documents, None)


# A kept selection names each distinct rule once (a rule most segments select is one entry, not a
# thousand): reading it costs a few milliseconds where reading every segment's document (each
# rule with its texts in every language) cost 0.9 s of JSON alone at 5,000 rules x 1,000 segments.
# Each segment's entry is kept with its document's status, so a one-rule edit (which rewrites the
# dozen documents that hold the rule) reads those again, not every one.
SELECTION = "selection.json"
SELECTION_VERSION = 2


def _stamps(cache: Path, segments: tuple[str, ...]) -> list[list[int] | None]:
    """Each segment's resolution file by inode, mtime and size (None when it is missing): the lock
    stage replaces a document by renaming a new file into place, so a new document is a new inode."""
    found = []
    for segment in segments:
        try:
            status = resolved_path(cache, segment).stat()
        except OSError:
            found.append(None)
            continue
        found.append([status.st_ino, status.st_mtime_ns, status.st_size])
    return found


def _kept(cache: Path) -> tuple[dict, list[list], list[RuleCheck], dict[str, tuple[list, list[int]]]] | None:
    """(sources, the rows of the distinct rules, their checks, segment → (its document's status, its
    rows' numbers)) of the kept selection; None when it is missing or damaged (the cache is the
    user's to edit)."""
    try:
        data = json.loads(read_cached(cache / CHECKS / SELECTION) or b"null")
        if data["version"] != SELECTION_VERSION:
            return None
        rows = data["rules"]
        rules = [_rule(row) for row in rows]
        held = {}
        for segment, stamp, picked in data["segments"]:
            if not all(type(i) is int and 0 <= i < len(rows) for i in picked):
                return None
            held[segment] = (stamp, picked)
        sources = data["sources"]
        if not all(isinstance(item, dict) and isinstance(item.get("root"), str) for item in sources.values()):
            return None
        return dict(sources), rows, rules, held
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _rule(row: list) -> RuleCheck:
    source, number, revision, status, title, text, check, folder, trusted = row
    return RuleCheck(source, number, revision, status, title, text, None if check is None else CheckSpec.of(check),
                     Path(folder), trusted is True)


def _keep(cache: Path, segments: tuple[str, ...], stamps: list, documents: Mapping[str, Resolved],
          kept) -> tuple[dict, dict[str, tuple[RuleCheck, ...]]]:
    """(sources, rules by segment): a segment's from its document when `documents` holds it, else
    the kept one's; kept again for the next run when a document was read (and the cache can be written)."""
    if not documents:
        sources, _, rules, held = kept
        return sources, {segment: tuple(rules[i] for i in held[segment][1]) for segment in segments}
    if ROOT_SEGMENT in documents or kept is None:
        sources = {name: {"root": item.root, "trust": item.trust} for name, item in documents[segments[0]].sources.items()}
    else:
        sources = kept[0]
    entries: dict[tuple, int] = {}  # a rule's row as a hashable key → its number
    rows: list[list] = []
    rules: list[RuleCheck] = []
    picked: list[list] = []

    def number(row: list, made: RuleCheck | None = None) -> int:
        entry = (*row[:6], None if row[6] is None else json.dumps(row[6], sort_keys=True), *row[7:])
        if entry not in entries:
            entries[entry] = len(rows)
            rows.append(row)
            rules.append(made or _rule(row))
        return entries[entry]

    renumbered: dict[int, int] = {}  # a kept row's number → its number now
    for segment, stamp in zip(segments, stamps):
        document = documents.get(segment)
        if document is None:
            numbers = []
            for i in kept[3][segment][1]:
                if i not in renumbered:
                    renumbered[i] = number(kept[1][i], kept[2][i])
                numbers.append(renumbered[i])
        else:
            numbers = []
            for rule in document.rules:
                source = document.sources[rule.source]
                numbers.append(number([rule.source, rule.id, rule.revision, rule.status, rule.title[source.language],
                                       rule.text[source.language], rule.check, source.root, source.trust]))
        picked.append([segment, stamp, numbers])
    if None not in stamps:
        try:
            write_if_changed(cache / CHECKS / SELECTION, json.dumps(
                {"version": SELECTION_VERSION, "sources": sources, "rules": rows, "segments": picked},
                ensure_ascii=False, separators=(",", ":")) + "\n", within=cache)
        except (OSError, UserError):
            pass  # a cache that cannot be written costs the next run the documents' read
    return sources, {segment: tuple(rules[i] for i in numbers) for segment, _, numbers in picked}


def _fresh_index(root: Path, cache: Path) -> Index | None:
    """The index, when it is at least as new as what the resolution is computed from: the manifests,
    the path sources' files and the lock (which pins every other source's snapshot)."""
    try:
        stamp = index_path(cache).stat().st_mtime_ns
    except OSError:
        return None
    newest = max((_mtime(path) for path in (*manifest_inputs(root), root / LOCKFILE)), default=0)
    return read_index(cache) if stamp >= newest else None


def _mtime(path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


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
