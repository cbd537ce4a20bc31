"""`check --output-format`: the report of a run (`cache/checks/report.json`) as a reader wants it.

| format | what it prints |
|---|---|
| `full` | the grouped summary the checks print as they report (`report.summary`), then the counts |
| `concise` | one line per finding, `path:line:col: ac:N message`, like ruff's; then the counts |
| `json` | the JSON report itself |
| `sarif` | the SARIF log for code scanning (`cache/checks/code-scanning.sarif`) |
| `github` | GitHub Actions workflow commands (`::error file=…,line=…,title=ac:N …::…`), one per finding, so the findings are annotations on the pull request's lines; and a Markdown job summary (`job_summary`) |
| `gitlab` | a GitLab code-quality report (a JSON array of issues) |

Each is a pure function of the report's results (`Result.from_json`), with the locations of the
summary and the SARIF log (`report.where`): a finding without a file of the repository is placed at
line 1 of the manifest, its own place named in the message, as the SARIF log does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from agent_constitution import console
from agent_constitution.checks.api import Finding
from agent_constitution.checks.findings import printable
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.report import count_line, counts, path_in_repo, repository_path
from agent_constitution.layout import MANIFEST


@dataclass(frozen=True)
class Item:
    """One line of a report a reader acts on: a violation's finding, or an undecidable result."""

    result: Result
    finding: Finding
    level: str  # "error" (a violation) or "warning" (undecidable)
    path: str  # repository-relative; the manifest for a finding without a file of the repository
    line: int | None
    column: int | None
    message: str
    fingerprint: str


def results_of(report: Mapping) -> list[Result]:
    # The report lists its results in the summary's order (`report.ordered`) already.
    return [Result.from_json(data) for data in report["results"]]


def fingerprint(result: Result, finding: Finding, data: Mapping | None = None) -> str:
    """The finding's stable identity across runs: the report's own `fingerprint` when it has one,
    else a digest of what the finding is (segment, rule, file, reason), not of where its line is,
    so a finding moved by an edit above it is the same finding."""
    if data and isinstance(data.get("fingerprint"), str):
        return data["fingerprint"]
    identity = [result.segment, result.ref, finding.path, finding.reason]
    return hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode()).hexdigest()


def items(report: Mapping) -> list[Item]:
    found = []
    for data, result in zip(report["results"], results_of(report), strict=True):
        if result.outcome is Outcome.VIOLATION:
            for raw, finding in zip(data["findings"], result.findings, strict=True):
                found.append(_item(result, finding, "error", raw))
        elif result.outcome is Outcome.UNDECIDABLE:
            finding = Finding(f"undecidable: {result.cause or 'the check could not decide'}")
            found.append(_item(result, finding, "warning", None))
    return found


def _item(result: Result, finding: Finding, level: str, raw: Mapping | None) -> Item:
    if finding.path is not None and repository_path(finding.path):
        path, line, column, message = path_in_repo(result, finding.path), finding.line, finding.column, finding.reason
    else:
        place = finding.path
        path, line, column = MANIFEST, None, None
        message = f"{finding.reason} ({place})" if place else finding.reason
    return Item(result, finding, level, path, line, column, printable(message), fingerprint(result, finding, raw))


def concise(report: Mapping) -> str:
    lines = []
    for item in items(report):
        place = item.path + "".join(f":{n}" for n in (item.line, item.column) if n is not None)
        lines.append(f"{console.paint(place, 'path')}: {console.paint(item.result.ref, item.level)} {item.message}")
    lines.append(count_line(counts(results_of(report))))
    return "\n".join(lines) + "\n"


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (`@actions/core` `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (`escapeProperty`): also `:` and `,`, which end a property."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(report: Mapping) -> str:
    """One workflow command per finding (an annotation on the changed line), then the counts."""
    lines = []
    for item in items(report):
        properties = {"file": item.path}
        if item.line is not None:
            properties["line"] = str(item.line)
            if item.column is not None:
                properties["col"] = str(item.column)
        properties["title"] = f"{item.result.ref} {item.result.title}".strip()
        joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
        lines.append(f"::{item.level} {joined}::{escape_data(item.message)}")
    lines.append(count_line(counts(results_of(report))))
    return "\n".join(lines) + "\n"


def job_summary(report: Mapping) -> str:
    """The Markdown a GitHub job summary shows (`$GITHUB_STEP_SUMMARY`): the counts and each finding."""
    found = items(report)
    lines = ["## agent-constitution check", "", count_line(counts(results_of(report))), ""]
    if found:
        lines += ["| | rule | where | finding |", "|---|---|---|---|"]
        for item in found:
            place = item.path + (f":{item.line}" if item.line is not None else "")
            mark = "❌" if item.level == "error" else "⚠️"
            lines.append(f"| {mark} | {_cell(item.result.ref + ' ' + item.result.title)} | `{_cell(place)}` "
                         f"| {_cell(item.message)} |")
        lines.append("")
    not_run = report.get("not_run") or []
    if not_run:
        lines += [f"<details><summary>not run ({len(not_run)})</summary>", ""]
        lines += [f"- {_cell(reason)}" for reason in not_run]
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    # A table cell ends at `|` and at a line break; backticks would open code spans.
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'")


SEVERITY = {"error": "major", "warning": "info"}


def gitlab(report: Mapping) -> str:
    """A GitLab code-quality report: one issue per finding (`description`, `check_name`,
    `fingerprint`, `severity`, `location.path`, `location.lines.begin`)."""
    issues = [{
        "type": "issue",
        "description": item.message,
        "check_name": item.result.ref,
        "fingerprint": item.fingerprint,
        "severity": SEVERITY[item.level],
        "location": {"path": item.path, "lines": {"begin": item.line or 1}},
    } for item in items(report)]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def render(name: str, report_text: str, sarif_text: str | None = None) -> str:
    """The report in format `name` (not `full`, which the checks print as they run)."""
    if name == "json":
        return report_text
    if name == "sarif":
        return sarif_text or ""
    report = json.loads(report_text)
    return {"concise": concise, "github": github, "gitlab": gitlab}[name](report)

