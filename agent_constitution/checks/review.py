"""The review loop: queues for the reviewer agents, their verdicts, and the disagreements they reveal.

After the checks, each reviewer group of the manifest's `[review]` gets a queue file with the rules
it must decide: violations, undecidables and rules without a check, each with the rule's text and
the evidence. A reviewer answers in a verdict file; `doit review-ingest` compares each verdict with
the check's outcome and records every disagreement (a false positive: the check flagged what
satisfies the rule; a false negative: it passed what violates it) against that rule's check, in one
file per source that its maintainers turn into a check fix (same rule ID, revision + 1).

The queues themselves (the Markdown queues and `queue.json`, every item with its evidence for
`doit review`) are written by `checks.queues`, re-exported here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Literal

import tomlkit
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_constitution.checks.model import ROOT_SEGMENT, Outcome, Result
# The queues live apart (no pydantic there); re-exported for the callers that read both.
from agent_constitution.checks.queues import (  # noqa: F401
    DEFAULT_GROUP, ITEMS_FILE, group_of, labeller, outcome_name, queues, write_items, write_queues,
)
from agent_constitution.checks.report import where
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.readers import read_toml
from agent_constitution.refs import rule_key

FALSE_POSITIVE = "false-positive"
FALSE_NEGATIVE = "false-negative"


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[str]


def parse_groups(table: Mapping, *, file: Path | str) -> dict[str, list[str]]:
    """The manifest's `[review]`: group name → rule patterns (`ac:42`, `ac:*`), in file order."""
    groups = {}
    for name, value in table.items():
        try:
            groups[name] = _Group.model_validate(value).rules
        except ValidationError as error:
            problem = error.errors()[0]
            field = ".".join(["review", name, *(str(part) for part in problem["loc"])])
            raise UserError(problem["msg"], file=file, field=field,
                            fix='write a reviewer group as name = { rules = ["source:*"] }') from None
    return groups


class Verdict(BaseModel):
    """One reviewer decision."""

    model_config = ConfigDict(extra="forbid")

    rule: str = Field(pattern=r"^[A-Za-z0-9_.-]+:[0-9]+$")
    segment: str = ROOT_SEGMENT
    outcome: Literal["pass", "violation", "undecidable", "no check"] | None = None   # what the check said
    verdict: Literal["satisfied", "violated"]
    reason: str = Field(min_length=1)
    location: str | None = None


class _VerdictFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: list[Verdict] = []


def read_verdicts(path: Path) -> list[Verdict]:
    try:
        data = read_toml(path)
    except UserError as error:
        error.fix = error.fix or "see the format at the top of the queue file"
        raise
    try:
        return _VerdictFile.model_validate(data).verdict
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise UserError(problem["msg"], file=path, field=field,
                        fix="see the format at the top of the queue file") from None


@dataclass(frozen=True)
class Disagreement:
    """A reviewer verdict that contradicts a check: evidence for fixing that check."""

    rule: int
    revision: int
    check: str
    kind: str                   # false-positive | false-negative
    segment: str
    check_said: str
    reason: str
    reviewer: str
    location: str = ""


@dataclass(frozen=True)
class Ingested:
    disagreements: dict[str, list[Disagreement]]    # source name → its checks' disagreements
    agreed: int
    decided: int                                     # verdicts on undecidable or unchecked rules
    stale: list[str]                                 # verdicts on a result that has changed since


def ingest(results: Sequence[Result], verdicts: Mapping[str, Sequence[Verdict]], *, report: Path) -> Ingested:
    """Compare every verdict (per reviewer group) with the check's result."""
    by_key = {(result.segment, result.ref): result for result in results}
    found: dict[str, list[Disagreement]] = {}
    agreed = decided = 0
    stale: list[str] = []
    for reviewer, given in verdicts.items():
        for verdict in given:
            result = by_key.get((verdict.segment, verdict.rule))
            if result is None:
                raise UserError(f"no result for {verdict.rule} in segment {verdict.segment!r}", file=report,
                                fix="give a rule and segment that `doit check` checked, or run it first")
            if verdict.outcome is not None and verdict.outcome != outcome_name(result):
                stale.append(f"{verdict.rule} in {verdict.segment} ({reviewer}): you reviewed "
                             f"{verdict.outcome}, the latest check says {outcome_name(result)}")
                continue
            kind = _disagreement(result.outcome, verdict.verdict)
            if result.outcome in (None, Outcome.UNDECIDABLE):
                decided += 1
            elif kind is None:
                agreed += 1
            else:
                found.setdefault(result.source, []).append(Disagreement(
                    rule=rule_key(result.ref)[1], revision=result.revision, check=result.check,
                    kind=kind, segment=result.segment, check_said=_said(result), reason=verdict.reason,
                    reviewer=reviewer, location=verdict.location or "",
                ))
    return Ingested(found, agreed, decided, stale)


def _disagreement(outcome: Outcome | None, verdict: str) -> str | None:
    if outcome is Outcome.VIOLATION and verdict == "satisfied":
        return FALSE_POSITIVE
    if outcome is Outcome.PASS and verdict == "violated":
        return FALSE_NEGATIVE
    return None


def _said(result: Result) -> str:
    if result.outcome is Outcome.PASS:
        return "pass"
    return "violation: " + "; ".join(
        f"{where(result, finding) + ': ' if finding.path else ''}{finding.reason}" for finding in result.findings
    )


_FEEDBACK_HEADER = """\
Disagreements between reviewers and the checks of source "{source}", recorded by `doit review-ingest`.
Each one is a proposal to fix that rule's check. A fix does not change what counts as compliant: the
rule keeps its ID and its revision goes up by one.
"""


def write_feedback(folder: Path, found: Mapping[str, Sequence[Disagreement]]) -> dict[Path, int]:
    """Add the disagreements to `folder/<source>.toml`, keeping earlier ones; no entry is recorded twice.
    Returns each file with the number of entries this call added to it."""
    written = {}
    for source, new in found.items():
        path = folder / f"{source}.toml"
        entries = _existing(path)
        added = [disagreement for disagreement in dict.fromkeys(new) if disagreement not in entries]
        entries.extend(added)
        entries.sort(key=lambda d: (d.rule, d.segment, d.kind, d.location, d.reason))
        document = tomlkit.document()
        for line in _FEEDBACK_HEADER.format(source=source).splitlines():
            document.add(tomlkit.comment(line))
        document.add("source", source)
        table = tomlkit.aot()
        for entry in entries:
            table.append(_item(entry))
        document.add("disagreement", table)
        write_if_changed(path, tomlkit.dumps(document), within=folder)
        written[path] = len(added)
    return written


def _item(entry: Disagreement):
    item = tomlkit.table()
    for key, value in asdict(entry).items():
        if value != "":
            item.add(key, value)
    return item


def _existing(path: Path) -> list[Disagreement]:
    """The disagreements a feedback file already holds (a file people may edit: checked key by key)."""
    if not os.path.lexists(path):
        return []
    fix = "correct the file, or delete it to start the feedback afresh"
    try:
        found = read_toml(path).get("disagreement", [])
    except UserError as error:
        error.fix = error.fix or fix
        raise
    if not isinstance(found, list):
        raise UserError("expected an array of tables [[disagreement]]", file=path, field="disagreement", fix=fix)
    types = {field.name: int if field.name in ("rule", "revision") else str for field in fields(Disagreement)}
    required = {field.name for field in fields(Disagreement) if field.default is MISSING}
    entries = []
    for index, entry in enumerate(found):
        where = f"disagreement.{index}"
        if not isinstance(entry, dict):
            raise UserError("expected a table", file=path, field=where, fix=fix)
        missing = sorted(required - set(entry))
        if missing:
            raise UserError("required field is missing", file=path, field=f"{where}.{missing[0]}", fix=fix)
        for key, value in entry.items():
            if key not in types:
                raise UserError("unknown key", file=path, field=f"{where}.{key}", fix=fix)
            if type(value) is not types[key]:
                expected = "an integer" if types[key] is int else "a string"
                raise UserError(f"expected {expected} (found {value!r})", file=path, field=f"{where}.{key}", fix=fix)
        entries.append(Disagreement(**entry))
    return entries
