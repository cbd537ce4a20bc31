"""Waivers: findings a repository accepts, reported as suppressed, never dropped.

Two forms, as linters have them (ruff's `per-file-ignores` and `# noqa`):

- `[[waive]]` in `rules.toml`: a rule, path globs (repository-relative; none: every finding of the
  rule), a required reason and an optional `until` date after which it no longer applies.
- inline: a comment on the finding's line or the line above it, `waive[ac:24]: why` (several rules:
  `waive[ac:24,ac:25]: why`), after the comment leader of the file's language (`#`, `//`, `--`,
  `;`, `<!--` ... `-->`, `/*` ... `*/`). The reason is required; a marker without one waives nothing.

An inline waiver is applied when the check runs (`inline`): it lives in a file the check depends on,
so editing it re-runs the check. A manifest waiver is applied when the report is written (`apply`),
which depends on the manifest, so editing one re-reports without re-running any check. A waiver
that is expired, or that matched no finding of a rule that ran, is reported in its own right; an
inline marker without a reason waives nothing, and its finding says so.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agent_constitution.checks.api import Finding, match_files
from agent_constitution.checks.model import Outcome, Result, Suppression
from agent_constitution.checks.report import path_in_repo

# `waive[ac:24]: reason` after a comment leader; the reason runs to the end of the comment.
INLINE = re.compile(
    r"(?:#|//|/\*|<!--|--|;)\s*waive\[(?P<refs>[A-Za-z0-9_.:, -]+)\]:?[ \t]*(?P<reason>.*?)\s*(?:\*/|-->)?\s*$")


@dataclass(frozen=True)
class Waiver:
    """A `[[waive]]` entry of the manifest; `number` is its place there (1-based), for messages."""

    rule: str
    paths: tuple[str, ...]
    reason: str
    until: datetime.date | None
    number: int

    @property
    def label(self) -> str:
        return f"rules.toml [[waive]] #{self.number} ({self.rule})"


@dataclass(frozen=True)
class Waived:
    results: tuple[Result, ...]
    notes: tuple[str, ...]          # expired, unused and malformed waivers, one line each


def inline(result: Result, line_of: Callable[[str, int], str | None]) -> Result:
    """The result with the findings that an inline `waive[...]` comment accepts moved to `suppressed`.
    `line_of(path, n)`: line n of a repository file, None when unreadable."""
    if result.outcome is not Outcome.VIOLATION:
        return result
    kept, suppressed = [], list(result.suppressed)
    for finding in result.findings:
        found = _inline(result.ref, finding, line_of, path_in_repo(result, finding.path) if finding.path else None)
        if isinstance(found, Suppression):
            suppressed.append(found)
        else:
            kept.append(found)
    return _with(result, kept, suppressed)


def apply(results: Sequence[Result], waivers: Sequence[Waiver], today: datetime.date) -> Waived:
    """Move every finding a manifest waiver accepts to its result's `suppressed`; a violation left
    with no finding passes."""
    notes: list[str] = []
    active = []
    for waiver in waivers:
        if waiver.until is not None and waiver.until < today:
            notes.append(f"{waiver.label} expired on {waiver.until.isoformat()}: it no longer applies; "
                         "fix the findings or extend `until`")
        else:
            active.append(waiver)
    used: set[int] = set()
    ran = {result.ref for result in results if result.outcome in (Outcome.PASS, Outcome.VIOLATION)}
    waived = []
    for result in results:
        if result.outcome is not Outcome.VIOLATION:
            waived.append(result)
            continue
        kept, suppressed = [], list(result.suppressed)
        for finding in result.findings:
            path = None if finding.path is None else path_in_repo(result, finding.path)
            justification = _manifest(result.ref, path, active, used)
            if justification is None:
                kept.append(finding)
            else:
                suppressed.append(Suppression(finding, "external", justification))
        waived.append(_with(result, kept, suppressed))
    for waiver in active:
        if waiver.number not in used and waiver.rule in ran:
            notes.append(f"{waiver.label} matched no finding: remove it")
    return Waived(tuple(waived), tuple(notes))


def _with(result: Result, kept: list[Finding], suppressed: list[Suppression]) -> Result:
    outcome = Outcome.VIOLATION if kept else Outcome.PASS
    return replace(result, outcome=outcome, findings=tuple(kept), suppressed=tuple(suppressed))


def from_manifest(entries) -> tuple[Waiver, ...]:
    """The waivers of a validated manifest's `waive` entries."""
    return tuple(Waiver(entry.rule, tuple(entry.paths), entry.reason, entry.until, number)
                 for number, entry in enumerate(entries, 1))


def file_lines(root: Path) -> Callable[[str, int], str | None]:
    """`line_of` for `inline`: lines of the repository's files, each file read once, never outside it."""
    cache: dict[str, list[str] | None] = {}
    top = root.resolve()

    def line_of(path: str, number: int) -> str | None:
        if path not in cache:
            target = (root / path).resolve()
            try:
                cache[path] = target.read_text(encoding="utf-8").splitlines() if target.is_relative_to(top) else None
            except (OSError, UnicodeDecodeError):
                cache[path] = None
        lines = cache[path]
        return lines[number - 1] if lines is not None and 0 < number <= len(lines) else None

    return line_of


def _inline(ref: str, finding: Finding, line_of, path: str | None) -> Finding | Suppression:
    """The finding's suppression by a comment on its line or the line above, else the finding (with
    a note when a marker for the rule gives no reason)."""
    if path is None or finding.line is None:
        return finding
    for number in (finding.line, finding.line - 1):
        text = line_of(path, number) if number > 0 else None
        match = INLINE.search(text) if text else None
        if match is None or ref not in {part.strip() for part in match["refs"].split(",")}:
            continue
        if not match["reason"]:
            return replace(finding, reason=f"{finding.reason} (the waive[{ref}] comment on line {number} gives "
                                           f"no reason, so it waives nothing: write `waive[{ref}]: why`)")
        return Suppression(finding, "inSource", match["reason"])
    return finding


def _manifest(ref: str, path: str | None, waivers: Sequence[Waiver], used: set[int]) -> str | None:
    """The reason of the first manifest waiver that accepts a finding of `ref` at `path`."""
    for waiver in waivers:
        if waiver.rule != ref:
            continue
        if waiver.paths and (path is None or not any(match_files((path,), glob) for glob in waiver.paths)):
            continue
        used.add(waiver.number)
        return waiver.reason
    return None
