"""What a run of the checks reports: a readable summary, a JSON report and a SARIF 2.1.0 log.

All three are pure functions of the results. Nothing in them depends on the time or the machine (no
timestamps, no absolute paths), so an unchanged run writes the same bytes. Locations are
repository-relative: a segment's findings get the segment's folder in front.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote

from agent_constitution.checks.api import Finding
from agent_constitution.console import paint
from agent_constitution.checks.findings import printable
from agent_constitution.checks.fingerprints import SARIF_KEY, printed, unique
from agent_constitution.checks.model import ROOT_SEGMENT, Outcome, Result
from agent_constitution.edition import REFERENCE
from agent_constitution.layout import BASELINE as BASELINE_FILE
from agent_constitution.readers import read_cached
from agent_constitution.refs import RULE, rule_key, rule_label
from agent_constitution.ruleset.layout import MANIFEST

REPORT_VERSION = 1

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


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


def summary(results: Sequence[Result], *, not_run: Sequence[str] = (), detail: bool = True) -> str:
    """The readable summary, grouped by outcome, with locations. Without `detail` (`agent-constitution
    check` without -v) the rules without a check and the rules not run are only counted, not listed."""
    results = ordered(results)
    lines: list[str] = []
    styles: dict[int, str] = {}  # line number → its colour (`console.paint`), applied after `printable`

    def heading(title: str, group: list[Result], style: str = "heading") -> None:
        if group:
            styles[len(lines)] = style
            lines.append(f"{title} ({len(group)})")

    def name(result: Result, segments: Sequence[str] | None = None) -> None:
        styles[len(lines)] = "rule"
        lines.append(f"  {_name(result, segments)}")

    violations = [r for r in results if r.outcome is Outcome.VIOLATION]
    heading("violations", violations, "error")
    # One problem once: a change or record rule's results in several segments are one entry naming
    # the segments, and a finding they share (a commit message, a session record) one line. A
    # repository rule judges each segment's own files: one entry per segment.
    grouped: dict[tuple[str, str], list[Result]] = {}
    for result in violations:
        key = (result.ref, result.segment if result.subject == "repository" else "")
        grouped.setdefault(key, []).append(result)
    for group in grouped.values():
        name(group[0], [r.segment for r in group])
        for problem in unique(group):
            location = where(problem.result, problem.finding)
            lines.append(f"    {location + ': ' if location else ''}{problem.finding.reason}")
    undecidable = [r for r in results if r.outcome is Outcome.UNDECIDABLE]
    heading("undecidable", undecidable, "warning")
    for result in undecidable:
        name(result)
        lines.append(f"    {result.cause}")
    waived = [r for r in results if r.suppressed]
    heading("waived", waived)
    for result in waived:
        name(result)
        for suppression in result.suppressed:
            location = where(result, suppression.finding)
            lines.append(f"    {location + ': ' if location else ''}{suppression.finding.reason} "
                         f"(waived: {suppression.justification})")
    unchecked = _by_rule(r for r in results if r.outcome is None) if detail else {}
    heading("without a check, for the reviewer", list(unchecked))
    for ref, group in unchecked.items():
        segments = [r.segment for r in group]
        shown = "" if segments == [ROOT_SEGMENT] else f"  [{', '.join(segments)}]"
        lines.append(f"  {ref} {group[0].title}{shown}".rstrip())
    # What does not fail the run: counted, and listed with -v (`detail`).
    for title, pick in (("pre-existing: in the base of the change, not failing it", lambda r: r.preexisting),
                        (f"accepted by {BASELINE_FILE}", lambda r: r.baselined)):
        problems = unique(results, pick)
        if not problems:
            continue
        styles[len(lines)] = "heading"
        lines.append(f"{title} ({len(problems)}{'' if detail else '; -v lists them'})")
        if detail:
            for problem in problems:
                location = where(problem.result, problem.finding)
                lines.append(f"  {problem.ref}: {location + ': ' if location else ''}{problem.finding.reason}")
    if not_run and detail:
        styles[len(lines)] = "heading"
        lines.append(f"not run ({len(not_run)})")
        lines.extend(f"  {reason}" for reason in not_run)
    elif not_run:
        lines.append(f"{len(not_run)} rule{'s' if len(not_run) != 1 else ''} not run: they judge a change or a "
                     "session record (-v lists them)")
    lines.append(count_line(counts(results)))
    # Rule titles come from the sources too: nothing they hold reaches the terminal as a control code.
    return "\n".join(paint(printable(line), styles[n]) if n in styles else printable(line)
                     for n, line in enumerate(lines)) + "\n"


def count_line(n: Mapping[str, int]) -> str:
    """The last line of a summary: how many results, and of which outcome (`counts`)."""
    total = sum(n.values())
    return (f"{total} rule{'s' if total != 1 else ''} checked: {n['pass']} passed, {n['violation']} violated, "
            f"{n['undecidable']} undecidable, {n['no-check']} without a check")


def reported_summary(path: Path, *, detail: bool = True) -> str | None:
    """`summary` of the report at `path` (`cache/checks/report.json`): the lines a run printed, for
    a run whose report was up to date; None when there is no report of this version there."""
    try:
        data = json.loads(read_cached(path) or b"null")
        n = data["summary"]
        if data["version"] != REPORT_VERSION or set(n) != {"pass", "violation", "undecidable", "no-check"}:
            return None
        results = [Result.from_json(item) for item in data["results"]]
        not_run = [str(reason) for reason in data.get("not_run", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return summary(results, not_run=not_run, detail=detail)


def json_report(results: Sequence[Result], *, not_run: Sequence[str] = (), notes: Sequence[str] = (),
                confirmed: dict[str, list[dict]] | None = None) -> str:
    results = ordered(results)
    document = {
        "version": REPORT_VERSION,
        "summary": counts(results),
        "not_run": list(not_run),
        "waiver_notes": list(notes),
        # Violations a reviewer confirmed, by rule, with the reviewer's reasons: what to fix first.
        "confirmed": confirmed or {},
        # Every finding once, with its fingerprint and the segments that report it: what fails
        # (`new`: under a change, what it adds), what a change found in its base (`preexisting`)
        # and what rules.baseline.toml accepts (`baselined`).
        "findings": [{"rule": p.ref, "fingerprint": p.fingerprint, "status": status, "segments": list(p.segments),
                      "reason": p.finding.reason, **({"path": p.path} if p.path is not None else {}),
                      **({"line": p.finding.line} if p.finding.line is not None else {})}
                     for status, pick in (("new", _failing), ("preexisting", lambda r: r.preexisting),
                                          ("baselined", lambda r: r.baselined))
                     for p in unique(results, pick)],
        "results": [result.to_json() for result in results],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _failing(result: Result) -> tuple[Finding, ...]:
    return result.findings if result.outcome is Outcome.VIOLATION else ()


def sarif(results: Sequence[Result], *, exists: Callable[[str], bool] = lambda path: True,
          rule_pages: Mapping[str, str] | None = None, every_outcome: bool = False,
          not_run: Sequence[tuple[Result, str]] = ()) -> str:
    """A SARIF 2.1.0 log: one run, one reportingDescriptor per rule (with `help` and, where the
    source's repository is known, `helpUri`), and one result per violation finding or waived
    finding, each with one location. This is the log GitHub code scanning accepts.

    Code scanning turns every result into an alert, whatever its `kind`, so by default passes,
    undecidable results and rules without a check are not results: the run's `properties.summary`
    counts them and the JSON report lists them. `every_outcome` adds them as the SARIF standard
    records them, one result per (segment, rule), placed at line 1 of the manifest: `kind: "pass"`
    for a pass, `kind: "review"` (the rule needs a reviewer's judgement) for an undecidable result,
    with its cause as the message, and for a rule without a check, and `kind: "notApplicable"` for
    each rule in `not_run` (a change or record rule run without its subject), with the reason;
    `level` is `none`. That log is valid for code scanning too, but uploaded it would raise an alert
    for every pass: it is for SARIF readers that honour `kind`.

    Every result has a region (line 1 for a finding about a whole file) and its end where the finding
    gives one; messages and the number of results are held to code scanning's limits (`MAX_MESSAGE`,
    `MAX_RESULTS`).

    A finding without a file, or whose file is not a file of the repository (`exists` is asked; a
    session record lives outside it), is anchored at line 1 of the manifest, its own place named in
    the message. `rule_pages` maps a source's name to the URL prefix of its repository's files (see
    `rule_pages`)."""
    results = ordered(results)
    skipped = [(result, why) for result, why in not_run] if every_outcome else []
    rules: dict[str, int] = {}
    descriptors = []
    for result in [*results, *(result for result, _ in skipped)]:
        if result.ref not in rules:
            rules[result.ref] = len(descriptors)
            descriptors.append(_descriptor(result, (rule_pages or {}).get(result.source)))
    sarif_results = []
    # One result per problem: a finding several segments' rules report (a commit message) once,
    # naming them all; every result carries its fingerprint, which code scanning tracks across runs.
    reported: dict[tuple[str, bool], dict] = {}
    for result in results:
        located = [(item, None) for item in printed(result, _failing(result))]
        located += zip(printed(result, [s.finding for s in result.suppressed]), result.suppressed)
        for item, suppression in located:
            key = (item.fingerprint, suppression is not None)
            known = reported.get(key)
            if known is not None:
                if result.segment not in known["properties"]["segments"]:
                    known["properties"]["segments"].append(result.segment)
                continue
            message, location = _anchored(result, item.finding, exists)
            entry = {
                "ruleId": result.ref,
                "ruleIndex": rules[result.ref],
                "kind": "fail",
                "level": "error",
                "message": {"text": _message(message)},
                "locations": [location],
                "partialFingerprints": {SARIF_KEY: item.fingerprint},
                "properties": {"segment": result.segment, "outcome": "waived" if suppression else "violation",
                               "segments": [result.segment]},
            }
            if suppression is not None:
                entry["suppressions"] = [{"kind": suppression.kind, "justification": suppression.justification}]
            reported[key] = entry
            sarif_results.append(entry)
        if every_outcome and result.outcome is not Outcome.VIOLATION:
            sarif_results.append(_unlocated(result, rules[result.ref]))
    for result, why in skipped:
        sarif_results.append({"ruleId": result.ref, "ruleIndex": rules[result.ref], "kind": "notApplicable",
                              "level": "none", "message": {"text": _message(f"not run: {why}")},
                              "locations": [_manifest_location()],
                              "properties": {"segment": result.segment, "outcome": "not-run"}})
    omitted = max(len(sarif_results) - MAX_RESULTS, 0)
    del sarif_results[MAX_RESULTS:]
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
            "properties": {"summary": counts(results), **({"omitted": omitted} if omitted else {})},
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _unlocated(result: Result, index: int) -> dict:
    """The result of a rule that passed, could not be decided or has no check, as SARIF records it."""
    if result.outcome is Outcome.PASS:
        kind, outcome, message = "pass", "pass", "passed"
    elif result.outcome is Outcome.UNDECIDABLE:
        kind, outcome, message = "review", "undecidable", result.cause or "the check could not decide"
    else:
        kind, outcome, message = "review", "no-check", "no check: a reviewer decides this rule"
    return {"ruleId": result.ref, "ruleIndex": index, "kind": kind, "level": "none",
            "message": {"text": _message(message)}, "locations": [_manifest_location()],
            "properties": {"segment": result.segment, "outcome": outcome}}


def _manifest_location() -> dict:
    """Where a result about a rule as a whole is placed: line 1 of the manifest that selects it (a
    SARIF reader such as code scanning takes no result without a location)."""
    return _location(Result(segment=ROOT_SEGMENT, ref="", outcome=None), Finding("", MANIFEST, 1))


def rule_pages(sources: Iterable[tuple[str, str | None, str | None]]) -> dict[str, str]:
    """Source name → the URL prefix of its repository's files at the locked commit, for the sources
    given as (name, url, commit) that are http(s) or bare-host git URLs (`github.com/o/r` is
    https): `https://github.com/o/r/blob/<commit>/`, the form GitHub, GitLab and Gitea serve. A
    folder source has no URL that does not depend on where the repository is hosted: none."""
    pages = {}
    for name, url, commit in sources:
        match = _WEB_URL.fullmatch(url or "")
        if match and commit is not None:
            pages[name] = f"{match['scheme'] or 'https'}://{match['host']}/{match['path']}/blob/{commit}/"
    return pages


_WEB_URL = re.compile(r"(?:(?P<scheme>https?)://)?(?P<host>[A-Za-z0-9.-]+(?::[0-9]+)?)/(?P<path>[^\s?#]+?)(?:\.git)?/?")


def _anchored(result: Result, finding: Finding, exists: Callable[[str], bool]) -> tuple[str, dict]:
    """(message, location): at the finding's file when it is one of the repository's, else at the manifest."""
    if finding.path is not None and repository_path(finding.path) and exists(path_in_repo(result, finding.path)):
        return finding.reason, _location(result, finding)
    place = where(result, finding) if finding.path is not None and repository_path(finding.path) else finding.path
    message = f"{finding.reason} ({place})" if place else finding.reason
    anchor = Finding(finding.reason, MANIFEST, 1)
    return message, _location(Result(segment=ROOT_SEGMENT, ref=result.ref, outcome=result.outcome), anchor)


def repository_path(path: str) -> bool:
    """Whether a finding's path can name a file of the repository (relative, not leaving it)."""
    return not (path.startswith("/") or path[1:3] in (":/", ":\\") or ".." in path.split("/"))


def _descriptor(result: Result, page: str | None) -> dict:
    title = result.title or result.ref
    text = plain_text(result.source, result.text)
    descriptor = {
        "id": result.ref,
        "shortDescription": {"text": title},
        "help": {
            "text": f"{result.ref} {title}\n\n{text}".rstrip(),
            "markdown": f"**{result.ref} {title}**\n\n{text}".rstrip(),
        },
        "properties": {"revision": result.revision, "status": result.status,
                       "check": result.check or "none", "subject": result.subject},
    }
    if text:
        descriptor["fullDescription"] = {"text": text}
    if page is not None:
        descriptor["helpUri"] = f"{page}rules/{_rule_id(result)}.toml"
    return descriptor


def plain_text(source: str, text: str) -> str:
    """A rule's text with its `{@…}` references as readable labels: `{@rule:42}` is `ac:42` (this
    source), `{@rule:name:42}` is `name:42`, and a provision (`{@must-ask.irreversible}`) is named
    as the constitution's provision of that id: its label (`Art. VI §3`) needs the constitution,
    which a report of results does not read."""
    def label(match) -> str:
        reference = match[1]
        if reference.startswith(RULE):
            return rule_label(source, reference)
        return f"the constitution's provision {reference}"

    return REFERENCE.sub(label, text.strip())


def _location(result: Result, finding: Finding) -> dict:
    """A physical location with a region, always: code scanning places an alert by its region, and
    a finding about a whole file starts at its line 1. The end where the finding knows it (an end
    before the start is left out: SARIF forbids it)."""
    physical: dict = {"artifactLocation": {"uri": quote(path_in_repo(result, finding.path)), "uriBaseId": "%SRCROOT%"}}
    region = {"startLine": finding.line or 1}
    if finding.line is not None and finding.column is not None:
        region["startColumn"] = finding.column
    if finding.line is not None and finding.end_line is not None and finding.end_line >= finding.line:
        region["endLine"] = finding.end_line
        if finding.end_column is not None and (finding.end_line > finding.line or finding.column is None
                                               or finding.end_column >= finding.column):
            region["endColumn"] = finding.end_column
    physical["region"] = region
    return {"physicalLocation": physical}


# GitHub code scanning's documented limits ("SARIF support for code scanning", "SARIF results exceed
# limits", docs.github.com): a run of more than 25,000 results is rejected whole, so the log keeps the
# first 25,000 (in the summary's order) and counts the rest in `properties.omitted`; a result's
# message is cut to 1,024 characters, ending with an ellipsis, the full text being in the JSON report.
MAX_RESULTS = 25_000
MAX_MESSAGE = 1_024


def _message(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def _by_rule(results: Iterable[Result]) -> dict[str, list[Result]]:
    """Results grouped by rule, in order: a rule enabled in several segments is listed once."""
    grouped: dict[str, list[Result]] = {}
    for result in results:
        grouped.setdefault(result.ref, []).append(result)
    return grouped


def _name(result: Result, segments: Sequence[str] | None = None) -> str:
    segments = [result.segment] if segments is None else segments
    shown = "" if list(segments) == [ROOT_SEGMENT] else f"  [{', '.join(segments)}]"
    return f"{result.ref} {result.title}{shown}".rstrip()


def _rule_id(result: Result) -> int:
    return rule_key(result.ref)[1]
