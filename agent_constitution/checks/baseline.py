"""`rules.baseline.toml`: the findings a repository had when it adopted its checks, accepted until fixed.

`agent-constitution baseline` writes every finding of the repository's rules today, one entry per
finding (its rule, path, fingerprint and a short reason: reviewable in a pull request); `check`
then fails only on findings beyond it, like the baselines of PHPStan, detekt and RuboCop's todo
file. The file only shrinks: an entry that no longer occurs is reported (`baseline --prune`
removes it), and an entry may carry `until`, after which it no longer applies, as a waiver does.

The file is written in one canonical order (rule, path, fingerprint) with tomlkit, so the same
findings always give the same bytes; it is read strictly (unknown keys, a malformed fingerprint or
date are errors naming the entry).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

from pydantic import Field, StringConstraints

from agent_constitution.checks.fingerprints import printed
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.errors import UserError
from agent_constitution.layout import BASELINE as BASELINE_FILE
from agent_constitution.refs import rule_key
from agent_constitution.readers import parse_toml, read_text
from agent_constitution.ruleset.models import Model, parse


REASON_CHARS = 160  # a reason is shown, not kept whole: the fingerprint is what matches
_HEADER = """\
Findings this repository had when it adopted its checks (`agent-constitution baseline`).
`check` fails only on findings not listed here. Fix one and its entry no longer occurs:
`agent-constitution baseline --prune` removes those. Written in a fixed order: review it like code."""

Fingerprint = Annotated[str, StringConstraints(strict=True, pattern=r"^[0-9a-f]{20}(#[1-9][0-9]{0,5})?$")]
RuleRef = Annotated[str, StringConstraints(strict=True, pattern=r"^[A-Za-z0-9_.-]{1,64}:[0-9]{1,9}$")]
Text = Annotated[str, StringConstraints(strict=True, max_length=4096)]


class Entry(Model):
    rule: RuleRef
    path: Text | None = None
    fingerprint: Fingerprint
    reason: Text
    until: datetime.date | None = None


class BaselineFile(Model):
    version: Annotated[int, Field(strict=True, ge=1, le=1)] = 1
    finding: tuple[Entry, ...] = ()


@dataclass(frozen=True)
class Applied:
    results: tuple[Result, ...]
    stale: tuple[Entry, ...]        # entries of rules that ran whose finding no longer occurs
    expired: tuple[Entry, ...]      # entries past their `until`: they no longer apply

    def notes(self) -> list[str]:
        notes = []
        if self.stale:
            n = len(self.stale)
            notes.append(f"{BASELINE_FILE}: {n} entr{'ies' if n > 1 else 'y'} no longer occur"
                         f"{'' if n > 1 else 's'} (fixed): run `agent-constitution baseline --prune` to remove "
                         f"{'them' if n > 1 else 'it'}")
        for entry in self.expired:
            notes.append(f"{BASELINE_FILE}: the entry for {entry.rule} at {entry.path or '(no file)'} expired on "
                         f"{entry.until.isoformat()}: it no longer applies; fix the finding or extend `until`")
        return notes


def read(root: Path) -> BaselineFile | None:
    """The repository's baseline, or None when it has none."""
    path = root / BASELINE_FILE
    if not path.is_file():
        return None
    baseline = parse(BaselineFile, parse_toml(read_text(path), path), path)
    seen = set()
    for number, entry in enumerate(baseline.finding, 1):
        if entry.fingerprint in seen:
            raise UserError(f"fingerprint {entry.fingerprint} is listed twice", file=path,
                            field=f"finding.{number}.fingerprint", fix="remove one of the two entries")
        seen.add(entry.fingerprint)
    return baseline


def apply(results: Sequence[Result], baseline: BaselineFile | None, today: datetime.date) -> Applied:
    """Move each finding the baseline lists (and that has not expired) to its result's `baselined`;
    a violation left with no finding passes."""
    if baseline is None:
        return Applied(tuple(results), (), ())
    active = {entry.fingerprint: entry for entry in baseline.finding if entry.until is None or entry.until >= today}
    expired = tuple(entry for entry in baseline.finding if entry.fingerprint not in active)
    used: set[str] = set()
    done = []
    for result in results:
        if result.outcome is not Outcome.VIOLATION:
            done.append(result)
            continue
        kept, accepted = [], []
        for item in printed(result):
            entry = active.get(item.fingerprint)
            if entry is not None and entry.rule == result.ref:
                used.add(item.fingerprint)
                accepted.append(item.finding)
            else:
                kept.append(item.finding)
        done.append(replace(result, findings=tuple(kept), baselined=result.baselined + tuple(accepted),
                            outcome=Outcome.VIOLATION if kept else Outcome.PASS))
    ran = {result.ref for result in results if result.outcome in (Outcome.PASS, Outcome.VIOLATION)}
    stale = tuple(entry for entry in active.values() if entry.fingerprint not in used and entry.rule in ran)
    return Applied(tuple(done), stale, expired)


def entries(results: Sequence[Result], keep: BaselineFile | None = None) -> list[Entry]:
    """One entry per finding of the results, in the canonical order; an entry `keep` already has
    keeps its `until`."""
    until = {entry.fingerprint: entry.until for entry in (keep.finding if keep else ())}
    found = {}
    for result in results:
        for item in printed(result, (*result.findings, *result.baselined)):
            reason = item.finding.reason if len(item.finding.reason) <= REASON_CHARS else \
                item.finding.reason[:REASON_CHARS - 1] + "…"
            found[item.fingerprint] = Entry(rule=result.ref, path=item.path, fingerprint=item.fingerprint,
                                            reason=reason, until=until.get(item.fingerprint))
    return sorted(found.values(), key=_order)


def pruned(baseline: BaselineFile, results: Sequence[Result]) -> list[Entry]:
    """The entries of `baseline` whose finding still occurs, or whose rule did not run."""
    current = {item.fingerprint for result in results for item in printed(result, (*result.findings, *result.baselined))}
    ran = {result.ref for result in results if result.outcome in (Outcome.PASS, Outcome.VIOLATION)}
    return sorted((entry for entry in baseline.finding if entry.fingerprint in current or entry.rule not in ran),
                  key=_order)


def _order(entry: Entry) -> tuple:
    return (*rule_key(entry.rule), entry.path or "", entry.fingerprint)


def dumps(found: Sequence[Entry]) -> str:
    """The file's text: the header, `version`, then one `[[finding]]` per entry."""
    import tomlkit  # lazy: tomlkit only where the file is written

    document = tomlkit.document()
    for line in _HEADER.splitlines():
        document.add(tomlkit.comment(line))
    document.add("version", 1)
    table = tomlkit.aot()
    for entry in found:
        item = tomlkit.table()
        item.add("rule", entry.rule)
        if entry.path is not None:
            item.add("path", entry.path)
        item.add("fingerprint", entry.fingerprint)
        item.add("reason", _one_line(entry.reason))
        if entry.until is not None:
            item.add("until", entry.until)
        table.append(item)
    if found:
        document.add("finding", table)
    return tomlkit.dumps(document)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
