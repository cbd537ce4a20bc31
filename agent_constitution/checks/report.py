"""What a run of the checks reports: a readable summary, a JSON report and a SARIF 2.1.0 log.

All three are pure functions of the results. Nothing in them depends on the time or the machine (no
timestamps, no absolute paths), so an unchanged run writes the same bytes. Locations are
repository-relative: a segment's findings get the segment's folder in front.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from importlib.metadata import version
from urllib.parse import quote

from agent_constitution.checks.api import Finding
from agent_constitution.checks.findings import printable
from agent_constitution.checks.model import ROOT_SEGMENT, Outcome, Result

REPORT_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# SARIF `kind` per outcome; a rule without a check is for the reviewer, like an undecidable one.
SARIF_KIND = {Outcome.PASS: "pass", Outcome.VIOLATION: "fail", Outcome.UNDECIDABLE: "review", None: "review"}


def ordered(results: Iterable[Result]) -> list[Result]:
    return sorted(results, key=lambda r: (r.segment != ROOT_SEGMENT, r.segment, r.source, _rule_id(r)))


def counts(results: Sequence[Result]) -> dict[str, int]:
    return {
        "pass": sum(r.outcome is Outcome.PASS for r in results),
        "violation": sum(r.outcome is Outcome.VIOLATION for r in results),
        "undecidable": sum(r.outcome is Outcome.UNDECIDABLE for r in results),
        "no-check": sum(r.outcome is None for r in results),
    }


def path_in_repo(result: Result, path: str) -> str:
    return path if result.segment == ROOT_SEGMENT else f"{result.segment.rstrip('/')}/{path}"


def where(result: Result, finding: Finding) -> str:
    """`path:line:column` as far as known (repository-relative), or '' for a finding about the whole."""
    if finding.path is None:
        return ""
    text = path_in_repo(result, finding.path)
    if finding.line is not None:
        text += f":{finding.line}"
        if finding.column is not None:
            text += f":{finding.column}"
    return text


def summary(results: Sequence[Result], *, not_run: Sequence[str] = ()) -> str:
    """The readable summary, grouped by outcome, with locations."""
    results = ordered(results)
    lines: list[str] = []

    def heading(title: str, group: list[Result]) -> None:
        if group:
            lines.append(f"{title} ({len(group)})")

    violations = [r for r in results if r.outcome is Outcome.VIOLATION]
    heading("violations", violations)
    for result in violations:
        lines.append(f"  {_name(result)}")
        for finding in result.findings:
            location = where(result, finding)
            lines.append(f"    {location + ': ' if location else ''}{finding.reason}")
    undecidable = [r for r in results if r.outcome is Outcome.UNDECIDABLE]
    heading("undecidable", undecidable)
    for result in undecidable:
        lines.append(f"  {_name(result)}")
        lines.append(f"    {result.cause}")
    waived = [r for r in results if r.suppressed]
    heading("waived", waived)
    for result in waived:
        lines.append(f"  {_name(result)}")
        for suppression in result.suppressed:
            location = where(result, suppression.finding)
            lines.append(f"    {location + ': ' if location else ''}{suppression.finding.reason} "
                         f"(waived: {suppression.justification})")
    unchecked = _by_rule(r for r in results if r.outcome is None)
    heading("without a check, for the reviewer", list(unchecked))
    for ref, group in unchecked.items():
        segments = [r.segment for r in group]
        shown = "" if segments == [ROOT_SEGMENT] else f"  [{', '.join(segments)}]"
        lines.append(f"  {ref} {group[0].title}{shown}".rstrip())
    if not_run:
        lines.append(f"not run ({len(not_run)})")
        lines.extend(f"  {reason}" for reason in not_run)
    n = counts(results)
    lines.append(
        f"{len(results)} rule{'s' if len(results) != 1 else ''} checked: {n['pass']} passed, "
        f"{n['violation']} violated, {n['undecidable']} undecidable, {n['no-check']} without a check"
    )
    # Rule titles come from the sources too: nothing they hold reaches the terminal as a control code.
    return "\n".join(printable(line) for line in lines) + "\n"


def json_report(results: Sequence[Result], *, not_run: Sequence[str] = (), notes: Sequence[str] = ()) -> str:
    results = ordered(results)
    document = {
        "version": REPORT_VERSION,
        "summary": counts(results),
        "not_run": list(not_run),
        "waiver_notes": list(notes),
        "results": [result.to_json() for result in results],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def sarif(results: Sequence[Result]) -> str:
    """A SARIF 2.1.0 log: one run, one reportingDescriptor per rule, results with kind pass/fail/review."""
    results = ordered(results)
    rules: dict[str, int] = {}
    descriptors = []
    for result in results:
        if result.ref not in rules:
            rules[result.ref] = len(descriptors)
            descriptors.append(_descriptor(result))
    sarif_results = []
    for result in results:
        for message, finding in _messages(result):
            entry = {
                "ruleId": result.ref,
                "ruleIndex": rules[result.ref],
                "kind": SARIF_KIND[result.outcome],
                # SARIF: a result whose kind is not `fail` has level `none`.
                "level": "error" if result.outcome is Outcome.VIOLATION else "none",
                "message": {"text": message},
                "properties": {
                    "segment": result.segment,
                    "outcome": "no-check" if result.outcome is None else result.outcome.value,
                },
            }
            if finding is not None and finding.path is not None:
                entry["locations"] = [_location(result, finding)]
            sarif_results.append(entry)
        for suppression in result.suppressed:
            entry = {
                "ruleId": result.ref,
                "ruleIndex": rules[result.ref],
                "kind": "fail",
                "level": "error",
                "message": {"text": suppression.finding.reason},
                "suppressions": [{"kind": suppression.kind, "justification": suppression.justification}],
                "properties": {"segment": result.segment, "outcome": "waived"},
            }
            if suppression.finding.path is not None:
                entry["locations"] = [_location(result, suppression.finding)]
            sarif_results.append(entry)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "agent-constitution",
                "version": version("agent-constitution"),
                "informationUri": "https://github.com/Luolc/agent-constitution",
                "rules": descriptors,
            }},
            "columnKind": "unicodeCodePoints",
            "results": sarif_results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _messages(result: Result) -> list[tuple[str, Finding | None]]:
    if result.outcome is Outcome.VIOLATION:
        return [(finding.reason, finding) for finding in result.findings]
    if result.outcome is Outcome.PASS:
        return [(f"{result.ref} is satisfied.", None)]
    if result.outcome is Outcome.UNDECIDABLE:
        return [(f"The check could not decide: {result.cause}", None)]
    return [(f"{result.ref} has no automatic check: a reviewer decides it.", None)]


def _descriptor(result: Result) -> dict:
    descriptor = {
        "id": result.ref,
        "shortDescription": {"text": result.title or result.ref},
        "properties": {"revision": result.revision, "status": result.status,
                       "check": result.check or "none", "subject": result.subject},
    }
    if result.text:
        descriptor["fullDescription"] = {"text": result.text}
    return descriptor


def _location(result: Result, finding: Finding) -> dict:
    physical: dict = {"artifactLocation": {"uri": quote(path_in_repo(result, finding.path)), "uriBaseId": "%SRCROOT%"}}
    if finding.line is not None:
        region = {"startLine": finding.line}
        if finding.column is not None:
            region["startColumn"] = finding.column
        physical["region"] = region
    return {"physicalLocation": physical}


def _by_rule(results: Iterable[Result]) -> dict[str, list[Result]]:
    """Results grouped by rule, in order: a rule enabled in several segments is listed once."""
    grouped: dict[str, list[Result]] = {}
    for result in results:
        grouped.setdefault(result.ref, []).append(result)
    return grouped


def _name(result: Result) -> str:
    segment = "" if result.segment == ROOT_SEGMENT else f"  [{result.segment}]"
    return f"{result.ref} {result.title}{segment}".rstrip()


def _rule_id(result: Result) -> int:
    return int(result.ref.rpartition(":")[2])
