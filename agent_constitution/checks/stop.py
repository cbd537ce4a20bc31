"""The stop hook of every agent host: `python -m agent_constitution.checks.stop [HOST]`, the payload on stdin.

It runs only the fast, change-scoped checks: the selected rules whose subject is the change (here
the worktree's change, `change=worktree`: what the session left uncommitted) or the session record
(the transcript the payload names, where the host's format is one `checks/records.py` reads), with
the same runner as `doit check`, outside doit: no task graph, no repository scan, no report files,
no worker process (python checks run here, each under its timeout: `worker.here`). The selection comes from the resolution the lock stage keeps fresh (`cache/resolved/`); when it is
stale it is computed here.

HOST (default `claude-code`) names the host whose stop-like event runs it; its `hosts.Stop`
says how each one's payload is read and its answer given. On Claude Code: exit 0 when nothing is
violated; a violation (or a failure to judge) exits 2 with a few lines on stderr, which Claude Code
gives the model to act on before it stops. A stop is blocked once per problem (`breaker`): when the
payload says the model is already continuing because of a Stop hook (`stop_hook_active`), or the
session was already stopped for the same findings, the lines go to the user as a `systemMessage`,
as the session's outcome, and the stop goes through: a violation the model cannot fix would
otherwise hold the session in a loop. Each problem is listed once, with the segments whose rules
it breaks.
Undecidable checks never block; they are named on stderr, as is a session record the payload names
that is not a file (the record rules are then not run).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from agent_constitution.layout import CACHE, MANIFEST, REVIEW_FILE, has_covenant

SUBJECTS = ("change", "record")
SHOWN = 8  # findings listed; the rest are counted
HEAD = "agent-constitution: this session's change or record violates"  # the first line of `lines`
FULL_REPORT = "doit check change=worktree record=<transcript>"


def _payload(text: str) -> dict:
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def judge(root: Path, record: str | None) -> tuple[list, dict]:
    """The results of the change and record rules of every segment (record rules only with a record),
    and the recorded verdicts that decided some of them."""
    results, verdicts, _ = judged(root, record)
    return results, verdicts


def judged(root: Path, record: str | None) -> tuple[list, dict, dict]:
    """`judge`'s results and verdicts, and the fix tier of each judged rule a fix may mend, by
    (segment, rule): what `check --fix change=worktree` would run."""
    from agent_constitution.checks.runner import Subjects, run_check  # lazy: the runner imports this module's callers; only a change's base is judged here
    from agent_constitution.checks.scan import Scan  # lazy: only where the base's tree is scanned
    from agent_constitution.checks.selection import select  # lazy: the Stop hook imports only what it runs
    from agent_constitution.checks.subjects import WORKTREE, resolve_change  # lazy: the Stop hook imports only what it runs

    selection = select(root, root / CACHE)
    wanted = SUBJECTS if record else ("change",)
    jobs = [(segment, rule) for segment in selection.segments for rule in selection.rules[segment]
            if rule.check is not None and rule.check.subject in wanted]
    if not jobs:
        return [], {}, {}
    needs_change = any(rule.check.subject == "change" for _, rule in jobs)
    subjects = Subjects(
        scan=Scan(root, ()),  # no check of these subjects reads the tree listing
        segments=selection.segments,
        change=resolve_change(root, WORKTREE) if needs_change else None,
        record=Path(record) if record else None,
    )
    results = [run_check(rule, segment, subjects, here=True) for segment, rule in jobs]  # no worker: `worker.here`
    tiers = {(segment, rule.ref): rule.check.fix for segment, rule in jobs
             if rule.check.fix and rule.check.python and rule.trusted and rule.check.subject == "change"}
    return (*reviewed(root, results, subjects, {(segment, rule.ref): rule for segment, rule in jobs},
                      selection.reviewers), tiers)


def reviewed(root: Path, results: list, subjects, rules, groups=None) -> tuple[list, dict]:
    """The results with the verdicts recorded in rules.review.toml applied (as `doit check` does: a
    reviewed false positive does not block, and a reviewer command's verdict only once its group is
    calibrated), and those verdicts by (segment, rule)."""
    if not (root / REVIEW_FILE).is_file():
        return results, {}
    from agent_constitution.checks.evidence import Reader  # lazy: the Stop hook imports only what it runs
    from agent_constitution.checks.model import needs_review  # lazy: the Stop hook imports only what it runs
    from agent_constitution.checks.verdicts import apply, read_memory  # lazy: only where verdicts are recorded

    reader = Reader(subjects)
    memory = read_memory(root)
    if groups is not None:
        from agent_constitution.checks.calibration import gated  # lazy: pydantic, only where a reviewer's verdicts are kept

        memory, _ = gated(memory, groups, root)
    judged = memory.judged()
    digests = {(r.segment, r.ref): reader.evidence(r, rules.get((r.segment, r.ref))).digest
               for r in results if needs_review(r) or (r.segment, r.ref) in judged}
    return apply(results, digests, memory)


def problems(results: list, verdicts: dict | None = None) -> list[tuple[str, str]]:
    """(fingerprint, line) of each problem of the violated results, once however many segments'
    rules report it (a commit message, a session record); a violation a reviewer confirmed is
    given with the reviewer's reason."""
    violated = [r for r in results if r.outcome is not None and r.outcome.value == "violation"]
    if not violated:
        return []
    from agent_constitution.checks.fingerprints import fingerprint, unique  # lazy: the Stop hook imports only what it runs

    found: list[tuple[str, str]] = []
    plain = []
    for result in violated:
        verdict = (verdicts or {}).get((result.segment, result.ref))
        if verdict is not None and verdict.verdict == "violated":
            where = f" ({', '.join(verdict.locations)})" if verdict.locations else ""
            found.append((fingerprint(result.ref, result.segment, f"reviewer: {verdict.reason}"),
                          f"- {result.ref} {result.title}: confirmed by reviewer {verdict.reviewer}: "
                          f"{verdict.reason}{where}"))
        else:
            plain.append(result)
    found.extend((problem.fingerprint, _problem_line(problem)) for problem in unique(plain))
    return found


def _problem_line(problem) -> str:
    finding = problem.finding
    where = f" ({finding.path}{f':{finding.line}' if finding.line else ''})" if finding.path else ""
    segments = "" if problem.segments == (".",) else f" [{', '.join(problem.segments)}]"
    return f"- {problem.ref} {problem.title}: {finding.reason}{where}{segments}"


def lines(results: list, verdicts: dict | None = None, root: Path | None = None,
          tiers: dict | None = None) -> tuple[list[str], list[str]]:
    """(violation lines, undecidable lines) as the model reads them. `root`: the repository, whose
    command the lines name. `tiers`: the fix tier of each rule a fix mends (`judged`); when every
    violated rule has one, the last line names the command that mends them all."""
    found = [line for _, line in problems(results, verdicts)]
    rules = {r.ref for r in results if r.outcome is not None and r.outcome.value == "violation"}
    undecidable = [r for r in results if r.outcome is not None and r.outcome.value == "undecidable"]
    head = []
    if rules:
        extra = "" if len(found) == len(rules) else f" ({len(found)} problem{'s' if len(found) > 1 else ''})"
        head = [f"{HEAD} "
                f"{len(rules)} rule{'s' if len(rules) > 1 else ''}{extra}; fix it before you stop:"]
        head += found[:SHOWN]
        if len(found) > SHOWN:
            from agent_constitution.wiring import spoken  # lazy: the Stop hook imports only what it runs

            head.append(f"- and {len(found) - SHOWN} more (`{spoken(FULL_REPORT, root)}` lists them all)")
        fixing = fix_command(results, verdicts, tiers or {})
        if fixing:
            head.append(f"Every one of these is mended by `{fixing}`: run it, then look at what it changed.")
    unsure = [f"agent-constitution: {r.ref} could not decide: {r.cause}" for r in undecidable]
    return head, unsure


def fix_command(results: list, verdicts: dict | None, tiers: dict) -> str | None:
    """`agent-constitution check --fix change=worktree` (with `--unsafe-fixes` when a fix needs it),
    when each violated rule's findings are all a fix's to mend: not a rule a reviewer's verdict
    decided, not a rule without a fix."""
    violated = [(r.segment, r.ref) for r in results if r.outcome is not None and r.outcome.value == "violation"]
    decided = verdicts or {}
    if not violated or any(key not in tiers or key in decided for key in violated):
        return None
    unsafe = any(tiers[key] == "unsafe" for key in violated)
    return f"agent-constitution check --fix{' --unsafe-fixes' if unsafe else ''} change=worktree"


# --- the circuit breaker: a stop is blocked once per problem, never in a loop --------------------

MAX_BLOCKS = 3  # per session: findings whose words change at every stop (a line count) end too
ENDED = ("agent-constitution: the session ends with these problems unresolved (the Stop hook asked once; "
         "a repeated stop for the same findings ends the session):")


def _state_file(root: Path, host, payload: dict) -> Path:
    """Where this session's blocked findings are kept: by the session's id, where the payload has one."""
    import hashlib  # lazy: the Stop hook imports only what it runs

    session = next((payload[key] for key in ("session_id", "conversation_id", "taskId", host.stop.record or "")
                    if isinstance(payload.get(key), str) and payload[key]), "")
    name = hashlib.blake2b(f"{host.hook}\0{session}".encode(), digest_size=12).hexdigest()
    return root / CACHE / "stop" / f"{name}.json"


def breaker(root: Path, host, payload: dict, prints: list[str]) -> bool:
    """Whether to block this stop: only for a finding this session was not yet stopped for, and at
    most MAX_BLOCKS times a session. A stop the host marks as a continuation (`stop_hook_active`,
    Cursor's `loop_count`) with nothing new goes through, and so does one with nothing new on a
    host that marks none. Without a kept state (a read-only cache), a continuation goes through and
    any other stop is blocked, as before there was a breaker."""
    from agent_constitution.fsio import write_if_changed  # lazy: only where a file is written

    path = _state_file(root, host, payload)
    try:
        state = json.loads(path.read_bytes())
        blocked, times = set(state["blocked"]), int(state["times"])
    except (OSError, ValueError, KeyError, TypeError):
        blocked, times, state = set(), 0, None
    new = set(prints) - blocked
    block = bool(new) and times < MAX_BLOCKS and (state is not None or not host.stop.continuing(payload))
    if block:
        try:
            write_if_changed(path, json.dumps({"blocked": sorted(blocked | set(prints)), "times": times + 1}) + "\n")
        except OSError:
            pass
    return block


def project(variable: str | None, named: str | None) -> Path | None:
    """The project root: the host's variable, else the nearest folder holding the manifest at or
    above the one the payload names (or the working directory), up to the root of its git
    repository (a manifest above that is another project's; outside git, that folder only); None
    without one."""
    if variable and os.environ.get(variable):
        root = Path(os.environ[variable])
        return root if (root / MANIFEST).is_file() else None
    start = Path(named or os.getcwd())
    above = (start, *start.parents)
    top = next((i for i, folder in enumerate(above) if (folder / ".git").exists()), 0)  # outside git: start only
    return next((folder for folder in above[: top + 1] if (folder / MANIFEST).is_file()), None)


def covenant_drift(root: Path) -> list[str]:
    """The covenant judge's after-the-fact look (issue 37): protected files changed since its last
    hook call by a write it did not see, which no later hook call of this turn would report.
    Empty without a covenant config; a comparison that fails is said, and blocks."""
    if not has_covenant(root):  # what stop_lines finds too, without importing the judge
        return []
    try:
        from agent_constitution.covenant.baseline import stop_lines  # lazy: the covenant only where its drift is said

        return [f"agent-constitution: {line}" for line in stop_lines(root)]
    except Exception as error:  # a judge that cannot judge blocks
        return [f"agent-constitution: the covenant judge could not compare the protected files: "
                f"{type(error).__name__}: {error}"]


def main(stdin_text: str | None = None, argv: list[str] | None = None) -> int:
    from agent_constitution.hosts import folder, stop_hosts  # lazy: the host table only once the hook runs

    argv = sys.argv[1:] if argv is None else argv
    hosts = stop_hosts()
    host = hosts.get(argv[0] if argv else "claude-code")
    if host is None or len(argv) > 1:
        print(f"usage: python -m agent_constitution.checks.stop [{'|'.join(hosts)}]", file=sys.stderr)
        return 2
    payload = _payload(sys.stdin.read() if stdin_text is None else stdin_text)
    root = project(host.project, folder(host.stop, payload))
    if root is None:
        return _say(host.stop.through(None))  # not a repository that selects rules: nothing to check
    named = payload.get(host.stop.record) if host.stop.record else None
    record = named if isinstance(named, str) and os.path.isfile(named) else None
    violations, prints, unsure = _judged_lines(root, record)
    drift = covenant_drift(root)
    violations, prints = drift + violations, drift + prints
    if named is not None and record is None:  # said, like an undecidable check: it does not block
        unsure.insert(0, f"agent-constitution: the session record {named!r} is not a file; the rules that"
                         " judge a session record were not checked")
    for line in unsure:
        print(line, file=sys.stderr)
    if not violations:
        return _say(host.stop.through(None))
    if breaker(root, host, payload, prints):
        return _say(host.stop.block("\n".join(violations)))
    return _say(host.stop.through("\n".join([ENDED, *(line for line in violations if not line.startswith(HEAD))])))


def _judged_lines(root: Path, record: str | None) -> tuple[list[str], list[str], list[str]]:
    """(the lines that block, their fingerprints, the lines said without blocking) of the checks."""
    try:
        results, verdicts, tiers = judged(root, record)
    except Exception as error:  # a hook that cannot judge blocks (a UserError says what to fix)
        from agent_constitution.errors import UserError  # lazy: the hook pays for every import

        text = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        violations = [f"agent-constitution: the Stop hook could not run the checks: {text}"]
        return violations, [violations[0]], []
    violations, unsure = lines(results, verdicts, root, tiers)
    return violations, [fingerprint for fingerprint, _ in problems(results, verdicts)], unsure


def _say(answer) -> int:
    if answer.stdout is not None:
        print(answer.stdout)
    if answer.stderr is not None:
        print(answer.stderr, file=sys.stderr)
    return answer.status


if __name__ == "__main__":
    sys.exit(main())
