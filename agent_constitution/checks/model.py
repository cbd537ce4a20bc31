"""What the runner works on and what it produces: a rule to check, and the result of checking it.

A `RuleCheck` is a rule as the runner needs it (its text for the reviewer, its `[check]`, the source
tree its check code comes from and whether that source is trusted); a `Result` is the outcome for one
(segment, rule). Both are plain frozen dataclasses that round-trip through JSON, because a result is
written by one doit task and read by the report task, possibly in another process.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path

from typing import TYPE_CHECKING

from agent_constitution.checks.api import Finding
from agent_constitution.checks.findings import printable
from agent_constitution.layout import ROOT_SEGMENT  # noqa: F401 (the checks import it from here)
from agent_constitution.refs import format_ref, rule_key

if TYPE_CHECKING:  # the Stop hook reads rules from JSON and must not pay for pydantic
    from agent_constitution.ruleset.models import Rule

# The shape of a result file. Part of every check task's configuration: a new shape re-runs them all
# instead of leaving result files the report cannot read.
RESULT_FORMAT = 2


class Outcome(str, enum.Enum):
    """The three outcomes of a check; nothing else is an outcome."""

    PASS = "pass"
    VIOLATION = "violation"
    UNDECIDABLE = "undecidable"


@dataclass(frozen=True)
class CheckSpec:
    """A rule's `[check]`: which subject it reads, the files it reads, and a python module or a command."""

    subject: str = "repository"
    author: str = "any"                # "agent": judges only an agent's work (never a person's commit)
    scope: str = "segment"             # "repository": judged once, at the root, over every file
    inputs: tuple[str, ...] = ()       # globs of the files it reads; none: it may read any file
    python: str | None = None
    command: tuple[str, ...] | None = None
    tools: tuple[str, ...] = ()
    install: tuple[tuple[str, str, str], ...] = ()  # (tool, "pypi" | "npm" | "url", pin) of [check.install]
    timeout: float = 60.0
    fix: str | None = None             # "safe" or "unsafe": the tier of the mends `check --fix` makes

    @classmethod
    def of(cls, check: Mapping) -> "CheckSpec":
        """From a validated `[check]` table (`ruleset.models.Check` dumped as JSON, as the resolution keeps it)."""
        return cls(
            subject=check["subject"], author=check.get("author", "any"), scope=check["scope"],
            inputs=tuple(check["inputs"]), python=check["python"],
            command=None if check["command"] is None else tuple(check["command"]), tools=tuple(check["tools"]),
            install=tuple((tool, way, pin) for tool, ways in sorted((check.get("install") or {}).items())
                          for way, pin in ways.items() if pin is not None),
            timeout=float(check["timeout"]), fix=check.get("fix"),
        )

    @property
    def pins(self) -> dict[str, dict[str, str]]:
        """[check.install] as `agent_constitution.checks.tools` reads it: {tool: {way: pin}}."""
        return {tool: {way: pin} for tool, way, pin in self.install}

    @property
    def describe(self) -> str:
        """How a report names the check: `python:r42` or the command line."""
        if self.python:
            return f"python:{self.python}"
        return "command:" + " ".join(self.command or ())


@dataclass(frozen=True)
class RuleCheck:
    """A selected rule as the runner sees it."""

    source: str                     # the source's local name in the manifest
    id: int
    revision: int
    status: str
    title: str
    text: str
    check: CheckSpec | None
    source_root: Path               # the source tree (the locked snapshot) its check code comes from
    trusted: bool

    # Kept on the instance (a frozen dataclass has a __dict__ for it): the check tasks' creation asks
    # every (segment, rule) pair for it, 230,000 times at 5,000 rules x 1,000 segments, where
    # formatting it each time was a sixth of `doit list` (cProfile).
    @cached_property
    def ref(self) -> str:
        return format_ref(self.source, self.id)

    @classmethod
    def from_rule(cls, rule: Rule, *, source: str, source_root: Path, trusted: bool, language: str) -> "RuleCheck":
        """From a validated rule of the source at `source_root`; title and text in `language`."""
        check = rule.check
        return cls(
            source=source,
            id=rule.id,
            revision=rule.revision,
            status=rule.status,
            title=rule.title[language],
            text=rule.text[language],
            check=None if check is None else CheckSpec.of(check.model_dump(mode="json")),
            source_root=Path(source_root),
            trusted=trusted,
        )

    def to_json(self) -> dict:
        data = asdict(self)
        data["source_root"] = str(self.source_root)
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> "RuleCheck":
        values = dict(data)
        check = values["check"]
        values["check"] = None if check is None else CheckSpec(**{
            key: (tuple(tuple(item) for item in value) if key == "install" else tuple(value))
            if isinstance(value, list) else value for key, value in check.items()})
        values["source_root"] = Path(values["source_root"])
        return cls(**values)


@dataclass(frozen=True)
class Suppression:
    """A finding a waiver accepts: `kind` is SARIF's (`external`: the manifest, `inSource`: a comment)."""

    finding: Finding
    kind: str
    justification: str


@dataclass(frozen=True)
class Result:
    """The outcome of one rule's check in one segment. `outcome` None: the rule has no check (review)."""

    segment: str
    ref: str
    outcome: Outcome | None
    findings: tuple[Finding, ...] = ()
    cause: str | None = None        # why the outcome is undecidable
    check: str | None = None        # CheckSpec.describe
    subject: str = "repository"
    revision: int = 1
    status: str = "active"
    title: str = ""
    text: str = ""
    suppressed: tuple[Suppression, ...] = ()    # findings waived (filled in when the report is written)
    # Under `change=`: findings the base of the change has too, in files it does not touch (they
    # never fail the run); and findings `rules.baseline.toml` accepts. Both are filled in when the
    # report is written and are never dropped: counted, and listed with `-v`.
    preexisting: tuple[Finding, ...] = ()
    baselined: tuple[Finding, ...] = ()

    @property
    def source(self) -> str:
        return rule_key(self.ref)[0]

    def to_json(self) -> dict:
        data = asdict(self)
        data["outcome"] = None if self.outcome is None else self.outcome.value
        data["findings"] = [_finding_json(f) for f in self.findings]
        data["suppressed"] = [{"finding": _finding_json(s.finding), "kind": s.kind, "justification": s.justification}
                              for s in self.suppressed]
        data["preexisting"] = [_finding_json(f) for f in self.preexisting]
        data["baselined"] = [_finding_json(f) for f in self.baselined]
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> "Result":
        values = dict(data)
        values["outcome"] = None if values["outcome"] is None else Outcome(values["outcome"])
        values["findings"] = tuple(Finding(**finding) for finding in values["findings"])
        values["suppressed"] = tuple(Suppression(Finding(**item["finding"]), item["kind"], item["justification"])
                                     for item in values.get("suppressed", ()))
        for key in ("preexisting", "baselined"):
            values[key] = tuple(Finding(**finding) for finding in values.get(key, ()))
        return cls(**values)


def _finding_json(finding: Finding) -> dict:
    return {k: v for k, v in asdict(finding).items() if v is not None}


def for_rule(rule: RuleCheck, segment: str, outcome: Outcome | None, *, findings=(), cause=None) -> Result:
    """A result that carries what the report and the reviewer need to know about the rule."""
    return Result(
        segment=segment,
        ref=rule.ref,
        outcome=outcome,
        findings=tuple(findings),
        cause=None if cause is None else printable(cause),
        check=None if rule.check is None else rule.check.describe,
        subject="repository" if rule.check is None else rule.check.subject,
        revision=rule.revision,
        status=rule.status,
        title=rule.title,
        text=rule.text,
    )


def needs_review(result: Result) -> bool:
    """Whether a reviewer judges the result (everything but a pass). Here, not in `review`, so that
    the Stop hook asks it without importing pydantic and tomlkit."""
    return result.outcome is not Outcome.PASS
