"""Checking one rule in one segment: the three outcomes and the causes of undecidable.

Order of decisions: a rule without a check goes to the reviewer (no outcome); a source that is not
trusted runs no code (undecidable, with that reason); otherwise the check runs against its subject.
Whatever goes wrong while it runs (a missing tool, a timeout, an exception, output that breaks the
contract) is undecidable with the cause, never a violation. A python check runs in a worker
process (`checks.worker`; the Stop hook's in its own process, `worker.here`) within the rule's
`timeout`, like a command. Findings are normalized
where they arrive (`checks.findings`): paths inside the folder the check governs, control
characters escaped.
"""

from __future__ import annotations

import dataclasses
import os
import traceback
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.checks import worker
from agent_constitution.checks.api import Finding, Undecidable
from agent_constitution.checks.findings import normalized
from agent_constitution.checks.model import ROOT_SEGMENT, Outcome, Result, RuleCheck, for_rule
from agent_constitution.checks.python_checks import load_check
from agent_constitution.checks.tools import ToolUnavailable, pinned
from agent_constitution.checks.scan import Scan, scan
from agent_constitution.checks.subjects import ChangeSpec, read_change, read_record
from agent_constitution.errors import UserError


@dataclass
class Subjects:
    """What this run's checks judge: the shared scan, and the change and record named for the run.

    `doit -n N` sends every task to a worker process as a pickle. A pickle of the subjects is only
    their token: a worker forked after the run was planned finds the run's subjects, scan and read
    views included, in `_RUNS`; any other process scans once and keeps that for the run's tasks."""

    scan: Scan
    segments: Sequence[str] = (ROOT_SEGMENT,)
    change: ChangeSpec | None = None
    record: Path | None = None
    memo: Path | None = None        # cache/checks/memo: results kept by what they were judged on
    agent: str | None = None        # why the work is an agent's (checks.agent_work), None: a person's
    in_force: Mapping[str, frozenset[str]] = field(default_factory=dict)  # segment -> the refs in force there
    token: str = field(default_factory=lambda: os.urandom(16).hex())  # not uuid: 5 ms of the Stop hook's imports
    # The run's python checks of the repository, which may judge files one at a time: one pass over
    # a view's files serves all of them (`checks.filepass`); `passes` keeps the passes made.
    file_checks: tuple[tuple[str, RuleCheck], ...] = ()   # (segment, rule)
    _read: dict = field(default_factory=dict, repr=False)
    passes: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        _RUNS[self.token] = self

    def __reduce__(self):
        return _subjects, (self.token, self.scan.root, tuple(self.segments), self.change, self.record, self.memo,
                           self.agent, dict(self.in_force), self.file_checks)

    @property
    def root(self) -> Path:
        return self.scan.root

    def get(self, kind: str, segment: str, scope: str = "segment"):
        """The subject of `kind` as the segment sees it (scope "repository": the whole repository),
        read once per run."""
        key = (kind, segment if kind != "record" else None, scope)
        if key not in self._read:
            if kind == "repository":
                self._read[key] = self.scan.view(segment, self.segments if scope == "segment" else ())
            elif kind == "change":
                if self.change is None:
                    raise Undecidable("no change given: run with change=staged or change=A..B")
                self._read[key] = read_change(self.root, self.change, segment)
            else:
                if self.record is None:
                    raise Undecidable("no record given: run with record=PATH/TO/SESSION.jsonl")
                self._read[key] = read_record(self.record)
        return self._read[key]

    def once(self, key: tuple, make):
        """What `make()` derives from this run's subjects, computed once per run and kept under `key`."""
        if key not in self._read:
            self._read[key] = make()
        return self._read[key]

    def folder(self, segment: str) -> Path:
        return self.root if segment == ROOT_SEGMENT else self.root / segment


_RUNS: weakref.WeakValueDictionary[str, Subjects] = weakref.WeakValueDictionary()
_SCANNED_HERE: dict[str, Subjects] = {}      # the runs this process had to scan for itself


def _subjects(token: str, root: Path, segments: tuple[str, ...], change: ChangeSpec | None,
              record: Path | None, memo: Path | None, agent: str | None = None,
              in_force: Mapping[str, frozenset[str]] | None = None,
              file_checks: tuple[tuple[str, RuleCheck], ...] = ()) -> Subjects:
    found = _RUNS.get(token)
    if found is None:
        found = _SCANNED_HERE[token] = Subjects(scan(root), segments, change, record, memo, agent, in_force or {},
                                                token=token, file_checks=file_checks)
    return found


def in_force(subjects: Subjects, segment: str, source: str) -> frozenset[int]:
    """The ids of `source`'s rules in force in `segment`."""
    prefix = source + ":"
    return frozenset(int(ref[len(prefix):]) for ref in subjects.in_force.get(segment, ())
                     if ref.startswith(prefix) and ref[len(prefix):].isdigit())


def run_check(rule: RuleCheck, segment: str, subjects: Subjects, *, here: bool = False) -> Result:
    """`here`: a python check runs in this process under its timeout (`worker.here`), not in the worker."""
    if rule.check is None:
        return for_rule(rule, segment, None)
    if not rule.trusted:
        return for_rule(rule, segment, Outcome.UNDECIDABLE, cause=(
            f"untrusted source: {rule.source!r} is not trusted, so its check code does not run "
            f"(set trust = true on it in [sources] of rules.toml to run it)"))
    if rule.check.python:
        findings, cause = _in_worker(rule, segment, subjects, worker.here if here else worker.call)
    else:
        findings, cause = _decided(_command, rule, segment, subjects)
    if cause is not None:
        return for_rule(rule, segment, Outcome.UNDECIDABLE, cause=cause)
    findings = [normalized(finding, subjects.folder(segment)) for finding in findings]
    outcome = Outcome.VIOLATION if findings else Outcome.PASS
    return for_rule(rule, segment, outcome, findings=findings)


def _decided(decide, rule: RuleCheck, segment: str, subjects: Subjects) -> tuple[list[Finding], str | None]:
    """(findings, None), or ([], the cause of undecidable) for whatever went wrong."""
    try:
        return decide(rule, segment, subjects), None
    except (Undecidable, ToolUnavailable) as error:
        return [], str(error) or "the check could not decide"
    except UserError as error:
        return [], error.message
    except (Exception, SystemExit) as error:  # a bug in the check: never a violation
        return [], _crash(error)


def _in_worker(rule: RuleCheck, segment: str, subjects: Subjects, runs) -> tuple[list[Finding], str | None]:
    """A python check, run by `runs` (`worker.call`: in the worker process) within the check's timeout."""
    spec = rule.check
    try:
        return runs(_decided, (_python, rule, segment, subjects), timeout=spec.timeout)
    except worker.Timeout:
        stopped = "its worker process was stopped" if runs is worker.call else "it was stopped"
        return [], f"timeout: python check {spec.python} gave no answer within {spec.timeout:g} s ({stopped})"
    except worker.Died as error:
        return [], f"crash: the worker process running python check {spec.python} ended: {error}"


def _python(rule: RuleCheck, segment: str, subjects: Subjects) -> list[Finding]:
    subject = subjects.get(rule.check.subject, segment, rule.check.scope)
    if rule.check.subject == "repository":
        subject = dataclasses.replace(subject, in_force=in_force(subjects, segment, rule.source))
    module = load_check(rule.source_root, rule.check.python, rule.id)
    with pinned(rule.check.pins):
        return _checked(module, subject, rule, segment, subjects)


def _checked(module, subject, rule: RuleCheck, segment: str, subjects: Subjects) -> list[Finding]:
    if getattr(module, "check_file", None) is not None and rule.check.subject == "repository":
        from agent_constitution.checks import filepass  # lazy: the memo and its report (40 ms) only for a check of the repository; the Stop hook runs none

        found = filepass.findings(rule, segment, subject, module.check_file, subjects.memo, subjects.file_checks,
                                  subjects.passes)
    else:
        found = module.check(subject)
    if not isinstance(found, (list, tuple)) or not all(isinstance(item, Finding) for item in found):
        raise Undecidable(f"malformed output: check() returned {type(found).__name__}, not a list of Finding")
    for number, finding in enumerate(found, 1):
        if not _well_formed(finding):
            raise Undecidable(f"malformed output: finding {number} needs a reason (text), a path (text or None) "
                              "and a line, column, end line and end column (whole numbers or None)")
    return list(found)


def _well_formed(finding: Finding) -> bool:
    places = (finding.line, finding.column, finding.end_line, finding.end_column)
    return (isinstance(finding.reason, str) and bool(finding.reason) and isinstance(finding.path, (str, type(None)))
            and all(type(n) is int or n is None for n in places))


def _command(rule: RuleCheck, segment: str, subjects: Subjects) -> list[Finding]:
    spec = rule.check
    subjects.get(spec.subject, segment, spec.scope)  # a subject that cannot be read is undecidable before the command runs
    env = {
        "AGENT_CONSTITUTION_ROOT": str(subjects.root),
        "AGENT_CONSTITUTION_SEGMENT": segment,
        "AGENT_CONSTITUTION_RULE": rule.ref,
        "AGENT_CONSTITUTION_SUBJECT": spec.subject,
    }
    if spec.subject == "change":
        env["AGENT_CONSTITUTION_CHANGE"] = subjects.change.text
    if spec.subject == "record":
        env["AGENT_CONSTITUTION_RECORD"] = str(subjects.record)
    from agent_constitution.checks.command import run_command  # lazy: pydantic: only for command checks

    return run_command(spec, cwd=subjects.folder(segment), source_root=rule.source_root, env=env)


def _crash(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"crash: {type(error).__name__}: {error}{where}"
