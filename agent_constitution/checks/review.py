"""The review loop: queues for the reviewer agents, their verdicts, and the disagreements they reveal.

After the checks, each reviewer group of the manifest's `[review]` gets a queue file with the rules
it must decide: violations, undecidables and rules without a check, each with the rule's text and
the evidence. A reviewer answers in a verdict file; `doit review-ingest` compares each verdict with
the check's outcome and records every disagreement (a false positive: the check flagged what
satisfies the rule; a false negative: it passed what violates it) against that rule's check, in one
file per source that its maintainers turn into a check fix (same rule ID, revision + 1).

Beside the Markdown queues, `queue.json` holds every item with its evidence for `doit review`
(checks/reviewer.py), and both render the rules' `{@…}` references as readable labels.
"""

from __future__ import annotations

import fnmatch
import json
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Literal

import tomlkit
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_constitution.checks.model import ROOT_SEGMENT, Outcome, Result, needs_review
from agent_constitution.checks.report import ordered, where
from agent_constitution.errors import UserError
from agent_constitution.fsio import remove, write_if_changed
from agent_constitution.readers import read_toml
from agent_constitution.refs import rule_key

DEFAULT_GROUP = "default"
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


def group_of(ref: str, groups: Mapping[str, Sequence[str]]) -> str:
    """The first group (in manifest order) with a pattern that matches the rule; otherwise `default`."""
    for name, patterns in groups.items():
        if any(fnmatch.fnmatchcase(ref, pattern) for pattern in patterns):
            return name
    return DEFAULT_GROUP


def queues(results: Sequence[Result], groups: Mapping[str, Sequence[str]],
           label: Callable[[str, str], str] = lambda source, text: text) -> dict[str, str]:
    """Group name → the text of its queue file; every configured group gets one, even when empty."""
    items: dict[str, list[Result]] = {name: [] for name in groups}
    unchecked: dict[str, list[str]] = {}    # a rule without a check → every segment it is enabled in
    for result in ordered(results):
        if result.outcome is None:
            unchecked.setdefault(result.ref, []).append(result.segment)
            if len(unchecked[result.ref]) > 1:
                continue    # one item per rule without a check, naming its segments
        if needs_review(result):
            items.setdefault(group_of(result.ref, groups), []).append(result)
    return {name: _queue(name, found, unchecked, label) for name, found in items.items()}


def write_queues(folder: Path, texts: Mapping[str, str]) -> None:
    """Write the queues into `folder`; a queue of a group that no longer exists is removed."""
    for name, text in texts.items():
        write_if_changed(folder / f"{name}.md", text, within=folder)
    for stale in folder.glob("*.md"):
        if stale.stem not in texts:
            remove(stale, within=folder)


ITEMS_FILE = "queue.json"


def labeller(root: Path, cache: Path) -> Callable[[str, str], str]:
    """(source name, text) → the text with its `{@…}` references as readable labels, the way compile
    renders them without links; the constitution is loaded on the first provision reference."""
    from agent_constitution.compile.document import plain_label, render_references

    loaded: list = []

    def provision(anchor: str) -> str | None:
        if not loaded:
            loaded.append(_provision_labels(root, cache))
        return loaded[0](anchor)

    def label(source: str, text: str) -> str:
        return render_references(text, lambda match: plain_label(source, match[1], provision))

    return label


def _provision_labels(root: Path, cache: Path) -> Callable[[str], str | None]:
    """The pinned constitution's labels, in its own language, as the resolution's index holds them;
    none (the anchor stays) without an index: a label is for reading, and the check results do not
    depend on it."""
    from agent_constitution.ruleset.resolved import read_index

    index = read_index(cache)
    if index is None:
        return lambda anchor: None
    edition = index.constitution
    return lambda anchor: edition.label(anchor, edition.languages[0])


def write_items(folder: Path, results: Sequence[Result], groups: Mapping[str, Sequence[str]],
                evidence: Mapping[tuple[str, str], object]) -> None:
    """`queue.json`: every (segment, rule) a reviewer must decide, with its group and the evidence
    (subject digest, excerpt, fixture files) that `doit review` turns into prompts."""
    items = []
    for result in ordered(results):
        seen = evidence[(result.segment, result.ref)]
        items.append({"group": group_of(result.ref, groups), "result": result.to_json(), "digest": seen.digest,
                      "excerpt": seen.excerpt, "files": list(seen.files)})
    write_if_changed(folder / ITEMS_FILE, json.dumps({"items": items}, indent=1, ensure_ascii=False) + "\n")


_VERDICT_HELP = """\
Decide each rule below: is it satisfied or violated here? A violation must be fixed. Record each
decision in `{verdicts}` (TOML, in the folder of this file), then run `doit review-ingest`. A
verdict that disagrees with the check (a violation you find satisfied) is recorded as a false
positive of that check, for the maintainers of the rule's source: say in `reason` what the check
got wrong.

```toml
[[verdict]]
rule = "ac:42"                 # the rule, as in the headings below
segment = "."                  # the segment (default ".", the repository root)
outcome = "violation"          # what the check said, as in the heading (optional; see below)
verdict = "violated"           # satisfied | violated
reason = "ci.yml runs uv sync without --locked"
location = ".github/workflows/ci.yml:12"   # optional: where
```

Each rule below ends with this block filled in but for `verdict` and `reason`. `outcome` ties the
verdict to the result you reviewed: if the checks run again before `doit review-ingest` and that
rule's outcome changes (you fixed the violation), the verdict is skipped with a warning instead of
being recorded as a disagreement with a result you never saw. You may also give a verdict on a rule
that is not queued (`outcome = "pass"`) when you find it violated: that is recorded as a false
negative of its check.
"""


def _queue(name: str, results: Sequence[Result], unchecked: Mapping[str, Sequence[str]],
           label: Callable[[str, str], str]) -> str:
    lines = [f"# Review queue: {name}", "", _VERDICT_HELP.format(verdicts=f"{name}.verdicts.toml")]
    if not results:
        lines.append("Nothing to review.\n")
    for result in results:
        state = _state(result)
        segments = unchecked.get(result.ref, [result.segment]) if result.outcome is None else [result.segment]
        lines.append(f"## {result.ref} in {', '.join(segments)}: {state}")
        lines.append("")
        lines.append(f"**{result.title}** (revision {result.revision}, {result.status})")
        lines.append("")
        lines.extend(f"> {line}" if line else ">" for line in label(result.source, result.text).strip().splitlines())
        lines.append("")
        if result.outcome is None:
            lines.append("Evidence: none; this rule has no automatic check.")
            if len(segments) > 1:
                lines.append(f"One verdict with `segment = \"{segments[0]}\"` stands for every segment above; "
                             "give another segment a verdict of its own where it differs.")
        else:
            lines.append(f"Check: `{result.check}` on the {result.subject}.")
            if result.outcome is Outcome.UNDECIDABLE:
                lines.append(f"Evidence: the check could not decide: {result.cause}")
            else:
                lines.append("Evidence:")
                for finding in result.findings:
                    location = where(result, finding)
                    lines.append(f"- {'`' + location + '`: ' if location else ''}{finding.reason}")
        lines.append("")
        lines.extend(["```toml", "[[verdict]]", f'rule = "{result.ref}"', f'segment = "{result.segment}"',
                      f'outcome = "{state}"', 'verdict = ""', 'reason = ""', "```", ""])
    return "\n".join(lines).rstrip("\n") + "\n"


def _state(result: Result) -> str:
    """The outcome as queues and verdicts name it."""
    return "no check" if result.outcome is None else result.outcome.value


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
            if verdict.outcome is not None and verdict.outcome != _state(result):
                stale.append(f"{verdict.rule} in {verdict.segment} ({reviewer}): you reviewed "
                             f"{verdict.outcome}, the latest check says {_state(result)}")
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
