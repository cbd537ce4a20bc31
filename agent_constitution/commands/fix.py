"""`agent-constitution check --fix / --unsafe-fixes / --diff`: ruff's flags and words over the rules' fixes.

`--fix` tries every fix of the failing rules (`checks.fixing`), writes the ones that mend, then runs
`check` as usual, so what is printed after it is what remains (with `change=worktree`, the change
rules' fixes too: the Stop hook's subject), and ends with ruff's line: `Found 7
errors (5 fixed, 2 remaining).` `--diff` writes nothing: it prints the fixes as a unified diff and
exits 1 when there is one (0 when nothing would change), like `ruff check --diff`. A plain `check`
that fails says how many of its findings a fix would mend (`[*] 5 fixable with the --fix option`),
by each rule's declared tier, without running any fix.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from agent_constitution import console
from agent_constitution.commands.parser import Invocation, UsageError
from agent_constitution.errors import UserError
from agent_constitution.checks.fixing import mend
from agent_constitution.checks.selection import select
from agent_constitution.checks.subjects import WORKTREE
from agent_constitution.layout import CHECKS
from agent_constitution.project import Project


def run_fix(root: Path, invocation: Invocation, check_again: Callable[[], int]) -> int:
    change = _mended_change(invocation)
    unsafe = bool(invocation.options.get("unsafe_fixes"))
    mending = mend(root, Project(root).cache, unsafe=unsafe, only=invocation.variables.get("rules"), change=change)
    for note in mending.notes:
        print(f"note: {note}", file=sys.stderr)
    if console.verbose():
        for done in mending.done:
            print(f"fixed {done}", file=sys.stderr)
    hidden = _hidden(mending.hidden)
    if invocation.options.get("diff"):
        return _show_diff(mending, hidden)
    mending.write()
    code = check_again()
    remaining = failing_findings(root)
    _recount(root, mending)
    if not console.quiet():
        line = f"Found {_errors(mending.fixed + remaining)} ({mending.fixed} fixed, {remaining} remaining)."
        print(line if not hidden else f"{line}\n{hidden[0].upper() + hidden[1:]}.")
    return code


def _recount(root: Path, mending) -> None:
    """An external command's edits, counted as the check run after them finds them fixed."""
    for ref, (before, claimed) in mending.unverified.items():
        after = sum(len(result["findings"]) for result in _report(root)
                    if result["ref"] == ref and result.get("outcome") == "violation")
        mending.fixed += max(before - after, 0) - claimed


def _mended_change(invocation: Invocation) -> str | None:
    """The change `--fix` mends: the working tree's (a `record=`, `message=` or other `change=` is a UsageError)."""
    for name in ("record", "message"):
        if name in invocation.variables:
            raise UsageError(f"--fix and --diff mend the working tree; {name}= names another subject",
                             fix=f"run `agent-constitution check --fix` without {name}=")
    change = invocation.variables.get("change")
    if change not in (None, WORKTREE):
        raise UsageError(f"--fix edits the working tree, so the change it mends is change={WORKTREE}, not "
                         f"change={change}", fix=f"run `agent-constitution check --fix change={WORKTREE}`")
    return change


def _show_diff(mending, hidden: str) -> int:
    """`--diff`: the fixes as a unified diff, what they would fix, and exit 1 when there is one."""
    sys.stdout.write(mending.diff())
    if mending.fixed:
        print(f"Would fix {_errors(mending.fixed)}.", file=sys.stderr)
    else:
        print("No errors would be fixed.", file=sys.stderr)
    if hidden:
        print(hidden[0].upper() + hidden[1:] + ".", file=sys.stderr)
    return 1 if mending.edited else 0


def print_fixable(root: Path, *, unsafe: bool) -> None:
    """After a failing `check`: how many of its findings the rules' fixes would mend, by each rule's tier."""
    fixable, hidden = fixable_counts(root, unsafe=unsafe)
    if fixable:
        extra = f" ({_hidden(hidden)})" if hidden else ""
        print(f"[*] {fixable} fixable with the `--fix` option{extra}.")
    elif hidden:
        print(f"No fixes available ({_hidden(hidden)}).")


def fixable_counts(root: Path, *, unsafe: bool = False) -> tuple[int, int]:
    """(findings of the last report a fix `--fix` applies would mend, those only `--unsafe-fixes` would),
    counted by the rule's `[check] fix` tier, for trusted python checks."""
    tiers = fix_tiers(root)
    fixable = hidden = 0
    for result in _report(root):
        tier = tiers.get((result["segment"], result["ref"]))
        if result.get("outcome") != "violation" or tier is None:
            continue
        if tier == "safe" or unsafe:
            fixable += len(result["findings"])
        else:
            hidden += len(result["findings"])
    return fixable, hidden


def fix_tiers(root: Path) -> dict[tuple[str, str], str]:
    """(segment, rule) → the rule's fix tier, for every selected rule a fix may mend here."""
    try:
        selection = select(root, Project(root).cache)
    except UserError:
        return {}
    return {(segment, rule.ref): rule.check.fix for segment, rules in selection.rules.items() for rule in rules
            if fixable(rule)}


def fixable(rule) -> bool:
    """Whether `check --fix` runs the rule's fix: a trusted check of the repository (python, or a
    command that prints declarative edits), or a trusted python check of a change."""
    spec = rule.check
    if spec is None or not spec.fix or not rule.trusted:
        return False
    return spec.subject == "repository" or bool(spec.python and spec.subject == "change")


def failing_findings(root: Path) -> int:
    return sum(len(result["findings"]) for result in _report(root) if result.get("outcome") == "violation")


def _report(root: Path) -> list[dict]:
    try:
        report = json.loads((Project(root).cache / CHECKS / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [result for result in report.get("results", []) if isinstance(result, dict)]


def _errors(count: int) -> str:
    return f"{count} error{'' if count == 1 else 's'}"


def _hidden(count: int) -> str:
    if not count:
        return ""
    return f"{count} hidden fix{'' if count == 1 else 'es'} can be enabled with the `--unsafe-fixes` option"
