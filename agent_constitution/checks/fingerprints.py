"""A stable name for each finding: what a change is judged by, what the baseline holds, what SARIF tracks.

A finding's fingerprint is a digest of its rule, its repository-relative path and its own words
(the reason, whitespace folded), never its line: a line added above a finding moves it without
making it another finding. Two findings alike in all three (two unpinned actions with the same
reason in one file) are told apart by their order in the file (`#2`), as PHPStan's baseline counts
a message per file: fixing one of them leaves one, adding one makes one more.

A finding without a path (a commit message, a session record) has the same fingerprint in every
segment that reports it, which is how a problem that many segments' rules see is reported once
(`unique`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import ROOT_SEGMENT, Result

# The key of our fingerprints in SARIF's `partialFingerprints` (a name and a version, as GitHub's
# own `primaryLocationLineHash` has none: a new scheme gets a new version).
SARIF_KEY = "agentConstitution/v1"
_SPACE = re.compile(r"\s+")


def repository_path(result: Result, finding: Finding) -> str | None:
    """The finding's path relative to the repository root (a segment's folder put in front)."""
    if finding.path is None:
        return None
    return finding.path if result.segment == ROOT_SEGMENT else f"{result.segment.rstrip('/')}/{finding.path}"


def fingerprint(rule: str, path: str | None, reason: str, occurrence: int = 1) -> str:
    """The fingerprint of the `occurrence`-th finding of `rule` at `path` with `reason`."""
    text = "\0".join((rule, path or "", _SPACE.sub(" ", reason).strip()))
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()
    return digest if occurrence == 1 else f"{digest}#{occurrence}"


@dataclass(frozen=True)
class Printed:
    """A finding of a result with its repository path and fingerprint."""

    result: Result
    finding: Finding
    path: str | None
    fingerprint: str


def printed(result: Result, findings: Iterable[Finding] | None = None) -> list[Printed]:
    """`findings` (default: the result's) with their fingerprints, numbered in file order where alike."""
    chosen = list(result.findings if findings is None else findings)
    order = sorted(range(len(chosen)), key=lambda i: (chosen[i].line or 0, chosen[i].column or 0, i))
    seen: dict[tuple, int] = {}
    prints: list[Printed | None] = [None] * len(chosen)
    for i in order:
        finding = chosen[i]
        path = repository_path(result, finding)
        key = (path, _SPACE.sub(" ", finding.reason).strip())
        seen[key] = seen.get(key, 0) + 1
        prints[i] = Printed(result, finding, path, fingerprint(result.ref, path, finding.reason, seen[key]))
    return [p for p in prints if p is not None]


@dataclass(frozen=True)
class Problem:
    """One problem, reported once: a finding and every segment whose rule reports it."""

    ref: str
    title: str
    finding: Finding
    path: str | None
    fingerprint: str
    segments: tuple[str, ...]
    result: Result          # the first result that reports it (for its location and descriptor)


def unique(results: Sequence[Result], findings=lambda result: result.findings) -> list[Problem]:
    """The findings of `results`, one per fingerprint, each with the segments that report it, in
    the order of first report."""
    found: dict[str, Problem] = {}
    for result in results:
        for item in printed(result, findings(result)):
            known = found.get(item.fingerprint)
            if known is None:
                found[item.fingerprint] = Problem(result.ref, result.title, item.finding, item.path,
                                                  item.fingerprint, (result.segment,), result)
            elif result.segment not in known.segments:
                found[item.fingerprint] = Problem(known.ref, known.title, known.finding, known.path,
                                                  known.fingerprint, (*known.segments, result.segment), known.result)
    return list(found.values())


def fingerprints(results: Iterable[Result]) -> Iterator[str]:
    for result in results:
        for item in printed(result):
            yield item.fingerprint
