"""Which rules each segment checks: the resolution of the manifest, as `resolve:<segment>` writes it.

The runner needs the selection when doit creates its tasks (one task per rule), before any task has
run, so every `doit check` needs it, a no-op one too. It keeps its answer in
`cache/checks/selection.json` (each segment's rules as the runner needs them) and reuses it while
that file is at least as new as the manifest's inputs and the lock. Otherwise it reads
`cache/resolved/<segment-key>.json` when every segment's file is that fresh, or else (a fresh clone,
an edited manifest) resolves in this process with the same functions the resolve task uses, reading
the lock and writing nothing of the resolve task's. Each rule comes from its source's tree as the
resolution pins it (the locked snapshot, or a path source's folder), so a rule and its check always
come from one version. `trust` is the resolution's: the manifest trusts the source, or it is a path
source inside the repository.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_constitution import ids
from agent_constitution.checks.model import ROOT_SEGMENT, RuleCheck
from agent_constitution.checks.waivers import Waiver, from_manifest
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_json
from agent_constitution.ruleset.inputs import manifest_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST, segment_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agent_constitution.ruleset.source import RuleSource

# Resolving (pydantic, the source loaders) is imported only when the remembered selection is stale:
# the Stop hook reads a fresh one and must stay fast.

# The shape of cache/checks/selection.json; another shape is recomputed, not misread.
MEMO_FORMAT = 3


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
    newest = _newest_input(root)
    memo = cache / "checks" / "selection.json"
    selected = _remembered(memo, newest)
    if selected is None:
        selected = _selected(root, cache, newest)
        # Rewritten even when unchanged: its mtime is what says it is fresh.
        write_atomic(memo, json.dumps(selected, indent=1, ensure_ascii=False) + "\n")
    segments = tuple(selected["segments"])
    rules = {segment: tuple(RuleCheck.from_json(rule) for rule in selected["rules"][segment]) for segment in segments}
    refs = {rule.ref for found in rules.values() for rule in found}
    for ref in asked:
        if ref not in refs:
            rules[ROOT_SEGMENT] += (_named(ref, selected["sources"], {}),)
    review = {name: tuple(group["rules"]) for name, group in selected["review"].items()}
    waivers = tuple(Waiver(item["rule"], tuple(item["paths"]), item["reason"],
                           None if item["until"] is None else datetime.date.fromisoformat(item["until"]), item["number"])
                    for item in selected["waivers"])
    return Selection(segments, rules, review, waivers, selected["review"], selected["sources"])


def _newest_input(root: Path) -> int:
    """The newest mtime of what the selection is computed from: the manifests, the path sources' files
    and the lock (which pins every other source's snapshot)."""
    inputs = [Path(path) for path in manifest_inputs(root)] + [root / LOCKFILE]
    return max((path.stat().st_mtime_ns for path in inputs if path.exists()), default=0)


def _remembered(memo: Path, newest: int) -> dict | None:
    """The selection a previous run wrote, if no input changed since and its source trees still exist."""
    try:
        if memo.stat().st_mtime_ns < newest:
            return None
        selected = read_json(memo)
    except (OSError, UserError):
        return None
    if not isinstance(selected, dict) or selected.get("format") != MEMO_FORMAT:
        return None
    if not all(Path(source["root"]).is_dir() for source in selected["sources"].values()):
        return None     # the user cache that held a snapshot was cleared
    return selected


def _selected(root: Path, cache: Path, newest: int) -> dict:
    """The selection as plain data: each segment's rules as the runner needs them."""
    from agent_constitution.ruleset.models import Manifest, load

    manifest = load(Manifest, root / MANIFEST, MANIFEST)
    segments = (ROOT_SEGMENT, *(segment.path for segment in manifest.segment))
    sources: dict[Path, RuleSource] = {}
    documents = _resolved(root, cache, segments, sources, newest)
    rules = {
        segment: [_named(f"{entry['source']}:{entry['id']}", document["sources"], sources).to_json()
                  for entry in document["rules"]]
        for segment, document in zip(segments, documents)
    }
    return {
        "format": MEMO_FORMAT,
        "segments": list(segments),
        "sources": {name: {"root": item["root"], "trust": item["trust"]} for name, item in documents[0]["sources"].items()},
        "rules": rules,
        "review": {name: group.model_dump(mode="json") for name, group in manifest.review.items()},
        "waivers": [{**asdict(waiver), "until": None if waiver.until is None else waiver.until.isoformat()}
                    for waiver in from_manifest(manifest.waive)],
    }


def _named(ref: str, declared: Mapping[str, dict], sources: dict[Path, RuleSource]) -> RuleCheck:
    from agent_constitution.ruleset.source import load_source

    name, _, written = ref.partition(":")
    number = ids.rule_number(written)
    if name not in declared or number is None:
        raise UserError(f"rules={ref}: not a rule of a source in {MANIFEST}",
                        fix=f"name rules as source:id with a source of: {', '.join(sorted(declared))}")
    folder = Path(declared[name]["root"])
    if folder not in sources:
        sources[folder] = load_source(folder)
    source = sources[folder]
    if number not in source.rules:
        raise UserError(f"rules={ref}: source {name!r} has no rule {number}")
    return RuleCheck.from_rule(source.rules[number], source=name, source_root=folder,
                               trusted=declared[name]["trust"], language=source.config.languages[0])


def _resolved(root: Path, cache: Path, segments: tuple[str, ...], sources: dict[Path, RuleSource],
              newest: int) -> list[dict]:
    """The resolution's documents; when resolving here, the sources it loaded are kept in `sources`."""
    from agent_constitution.ruleset.lock import read_lock
    from agent_constitution.ruleset.resolve import resolve, resolved_json

    files = [cache / "resolved" / f"{segment_key(segment)}.json" for segment in segments]
    if all(path.is_file() and path.stat().st_mtime_ns >= newest for path in files):
        documents = [read_json(path) for path in files]
        # The user cache that held a snapshot may have been cleared since: then resolve (and fetch) here.
        if all(Path(item["root"]).is_dir() for document in documents for item in document["sources"].values()):
            return documents
    resolution = resolve(root, read_lock(root))
    sources.update({Path(item.snapshot.root): item.source for item in resolution.fetched.values()})
    return [json.loads(resolved_json(resolution, segment)) for segment in segments]
