"""One pass over a view's files for every check that judges files one at a time.

A check module that judges each file on its own text exposes `check_file(path, text)` beside
`check(repository)`. The checks of a run that do (conflict markers, secrets, ...) are not each a
walk of the tree: the first of them to run in a view runs the pass for all of them
(`memo.run_pass`): each file is stat'ed, read and decoded once and handed to every such check whose
`inputs` match it, and the findings are kept per file and check version under
`cache/checks/memo/files/pass-<view>.json`, so that a file whose stat identity or content is the
kept one is not judged again.

The pass runs within the call of the check that triggered it, so that check's `timeout` covers
the whole pass. A check whose `check_file` raises is left with its error, which its own job reports
(undecidable, with the cause), and the other checks of the pass keep their findings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from agent_constitution.checks.api import Finding, Repository, Undecidable
from agent_constitution.checks.memo import CheckFile, FileCheck, file_check, per_file, run_pass
from agent_constitution.checks.model import RuleCheck
from agent_constitution.checks.python_checks import load_check


def findings(rule: RuleCheck, segment: str, view: Repository, check_file: CheckFile, memo: Path | None,
             others: Sequence[tuple[str, RuleCheck]], kept: dict) -> list[Finding]:
    """`rule`'s findings from the pass over `view` that serves it and every rule of `others` (the
    run's python checks of the repository, with their segments) judged in the same view, run the
    first time one of them asks; `kept` holds the passes of the run (`Subjects.passes`)."""
    key = ("file pass", segment, rule.check.scope)
    if key not in kept:
        checks = {rule.ref: file_check(rule, segment, check_file)}
        for other_segment, other in others:
            if other_segment == segment and other.ref not in checks and other.check.scope == rule.check.scope:
                found = _loaded(other, segment)
                if found is not None:
                    checks[other.ref] = found
        folder = None if memo is None else memo / "files" / f"pass-{_name(segment, rule.check.scope)}.json"
        kept[key] = run_pass(view, checks, folder)
    answer = kept[key].get(rule.ref)
    if answer is None:  # a rule the run's plan did not name (run on its own): a pass of its own
        return per_file(check_file, view, rule, segment, memo)
    if isinstance(answer, BaseException):
        raise answer
    return answer


def _loaded(rule: RuleCheck, segment: str) -> FileCheck | None:
    """Another rule of the run for the pass: None when it has no `check_file` or cannot be loaded
    (its own job then says why)."""
    try:
        module = load_check(rule.source_root, rule.check.python, rule.id)
    except Undecidable:
        return None
    check_file = getattr(module, "check_file", None)
    return None if check_file is None else file_check(rule, segment, check_file)


def _name(segment: str, scope: str) -> str:
    return hashlib.blake2b(f"{segment}\0{scope}".encode(), digest_size=10).hexdigest()
