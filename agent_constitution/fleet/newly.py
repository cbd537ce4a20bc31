"""What one repository would newly violate under a rule release: `newly_violated(tree, key, tag) -> Outcome`.

`tree` is the repository's default-branch tree, extracted from the fleet's shallow fetch into a
folder of its own (never the repository's checkout, nothing written into it). It is resolved twice,
as `upgrade` plans: as locked, and with the released source (`key`) moved to the release's tag, its
`[sources]` entry of rules.toml edited in memory. In each segment every rule of that source the
moved resolution selects is compared with the locked one: **added** (newly selected: a package the
repository selects includes it now), **check changed** (its `[check]` table or its check code
differ), **text changed** (only its words), **removed** (no longer selected). The checks of the
added and the changed rules run over the tree with the new revision's definitions and code, and the
changed rules' locked checks too, each with the repository's own trust of the source (as its CI
runs them). Both runs go through the repository's waivers (`[[waive]]`, inline comments) and
baseline; a finding is new when its fingerprint is not among the locked check's. A text change runs
nothing: its check is the one the repository already runs.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from agent_constitution.checks import baseline, waivers
from agent_constitution.checks.fingerprints import fingerprints, printed
from agent_constitution.checks.model import CheckSpec, Result, RuleCheck
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan
from agent_constitution.errors import UserError
from agent_constitution.readers import read_text
from agent_constitution.ruleset.changes import check_code
from agent_constitution.ruleset.lockfile import read_lock
from agent_constitution.ruleset.resolve import LOCKFILE, MANIFEST, Resolution, documents, resolve
from agent_constitution.ruleset.resolved import Resolved, ResolvedRule

ADDED, CHECK, TEXT, REMOVED = "added", "check changed", "text changed", "removed"


@dataclass(frozen=True)
class RuleImpact:
    """One rule of the release in one segment of a repository."""

    rule: str                       # name:id, as the repository's lock names it
    segment: str
    change: str                     # ADDED, CHECK, TEXT or REMOVED
    revision: str                   # "1 → 2", "2" (unchanged), "new 1", "was 1"
    outcome: str | None = None      # the new check's, after waivers and baseline; None: not run or no check
    new: tuple[dict, ...] = ()      # the findings the locked check does not have: path, line, reason
    cause: str | None = None        # why a check could not decide

    def to_json(self) -> dict:
        return {"rule": self.rule, "segment": self.segment, "change": self.change, "revision": self.revision,
                "outcome": self.outcome, "new": list(self.new), "cause": self.cause}


def newly_violated(tree: Path, key: str, tag: str, today: datetime.date | None = None) -> tuple[RuleImpact, ...]:
    lock = read_lock(tree)
    if lock is None:
        raise UserError("has no rules.lock to compare with", file=LOCKFILE, fix="run `agent-constitution lock` in it")
    old = resolve(tree, lock)
    name = old.world.names.get(key)
    if name is None:
        raise UserError(f"its {MANIFEST} does not declare the released source {key}", file=MANIFEST)
    new = resolve(tree, lock, frozenset({name}), manifest_text=_at_tag(old, key, tag))
    before, after = documents(old), documents(new)
    run = _Run(Subjects(scan(tree), tuple(after)), _Accept(tree, new, today or datetime.date.today()))
    found = []
    for segment, document in after.items():
        was = _rules_of(before.get(segment), name)
        now = _rules_of(document, name)
        for number in sorted(set(was) | set(now)):
            change = _change(old, new, key, was.get(number), now.get(number))
            if change is not None:
                impact = RuleImpact(f"{name}:{number}", segment, change, _revision(was.get(number), now.get(number)))
                found.append(run(impact, now.get(number), document, was.get(number), before.get(segment)))
    return tuple(found)


def _rules_of(document: Resolved | None, source: str) -> dict[int, ResolvedRule]:
    return {rule.id: rule for rule in document.rules if rule.source == source} if document is not None else {}


def _at_tag(resolution: Resolution, key: str, tag: str) -> str:
    """rules.toml with the source's request replaced by `tag` (a `tag`, `branch`, `rev` or `version`)."""
    declared = resolution.effective.sources[key]
    if declared.file != resolution.effective.inputs[0]:
        raise UserError(f"the released source is declared in {declared.file}, not in {MANIFEST}", file=MANIFEST,
                        fix="the release is judged by moving the root manifest's [sources] entry")
    document = tomlkit.parse(read_text(resolution.project_root / MANIFEST, MANIFEST))
    table = document["sources"][declared.name]
    for field in ("branch", "rev", "version"):
        table.pop(field, None)
    table["tag"] = tag
    return tomlkit.dumps(document)


def _change(old: Resolution, new: Resolution, key: str, was: ResolvedRule | None, now: ResolvedRule | None) -> str | None:
    if now is None:
        return REMOVED
    if was is None:
        return ADDED
    same_code = _code(old, key, was.id) == _code(new, key, now.id)
    if was.check == now.check and same_code:
        return None if was.digest == now.digest and was.revision == now.revision else TEXT
    return CHECK


def _code(resolution: Resolution, key: str, rule_id: int) -> tuple[bytes, ...]:
    return tuple(path.read_bytes() for path in check_code(resolution.fetched[key].source, rule_id))


def _revision(was: ResolvedRule | None, now: ResolvedRule | None) -> str:
    if was is None or now is None:
        return f"new {now.revision}" if now is not None else f"was {was.revision}"
    return str(now.revision) if was.revision == now.revision else f"{was.revision} → {now.revision}"


def _rule_check(rule: ResolvedRule, document: Resolved) -> RuleCheck:
    source = document.sources[rule.source]
    return RuleCheck(source=rule.source, id=rule.id, revision=rule.revision, status=rule.status,
                     title=rule.title[source.language], text=rule.text[source.language],
                     check=None if rule.check is None else CheckSpec.of(rule.check), source_root=Path(source.root),
                     trusted=source.trust)


class _Accept:
    """What the repository accepts of a result: its waivers (manifest and inline) and its baseline."""

    def __init__(self, tree: Path, resolution: Resolution, today: datetime.date):
        self.waivers = waivers.from_manifest(resolution.effective.settings.waive)
        self.lines = waivers.file_lines(tree)
        self.baseline = baseline.read(tree)
        self.today = today

    def __call__(self, result: Result) -> Result:
        kept = waivers.apply([waivers.inline(result, self.lines)], self.waivers, self.today).results
        return baseline.apply(kept, self.baseline, self.today).results[0]


class _Run:
    """Runs a rule's new check, and its locked one when the check changed, over the tree."""

    def __init__(self, subjects: Subjects, accept: _Accept):
        self.subjects, self.accept = subjects, accept

    def __call__(self, impact: RuleImpact, now: ResolvedRule | None, document: Resolved, was: ResolvedRule | None,
                 locked: Resolved | None) -> RuleImpact:
        if impact.change not in (ADDED, CHECK) or now.check is None:
            return impact
        result = self._result(_rule_check(now, document), impact.segment)
        known = set(fingerprints([self._result(_rule_check(was, locked), impact.segment)])) if impact.change == CHECK \
            else set()
        new = tuple({"path": item.path, "line": item.finding.line, "reason": item.finding.reason}
                    for item in printed(result) if item.fingerprint not in known)
        outcome = None if result.outcome is None else result.outcome.value
        return RuleImpact(impact.rule, impact.segment, impact.change, impact.revision, outcome, new, result.cause)

    def _result(self, rule: RuleCheck, segment: str) -> Result:
        return self.accept(run_check(rule, segment, self.subjects))
