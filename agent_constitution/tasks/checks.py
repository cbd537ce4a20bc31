"""Run the checks: one task per rule with a check (`checks:<ref>`, over every segment it is judged in)
and one for the rules without one (`checks:no-check`), then `checks:report` (summary, JSON, SARIF,
review queues) and `checks:summary` (the counts, on every run).

Tasks per rule, not per (segment, rule): doit creates every task on every command, and at 5,000
rules x 1,000 segments a task per pair was 76,631 tasks and 12 s of `doit list`.

Command-line variables: `change=staged|worktree|REV|A..B` and `record=PATH` give the change and record
subjects; `message=PATH` (a commit message file, as git's commit-msg hook gets it) is the message of
the change (staged unless `change=` says otherwise); `rules=ac:12,ac:14` runs only those rules
(superseded ones included), `segments=.,pkg/api` only in those segments; `undecidable=fail` makes
an undecidable check fail the run (default: a warning).
"""

from __future__ import annotations

import datetime
from dataclasses import asdict

from doit import get_var
from doit.tools import config_changed

from agent_constitution import console
from agent_constitution.errors import UserError
from agent_constitution.layout import BASELINE as BASELINE_FILE
from agent_constitution.layout import CHECKS
from agent_constitution.policy.gate import check_gate
from agent_constitution.ruleset.layout import MANIFEST
from agent_constitution.tasks.actions import InputError, failed, reported
from agent_constitution.tasks.agents import compiler_digest, read_settings

NAME = "checks"
GROUPS = ("check",)
DELAYED = True
# The command-line variables this family reads (`doit check change=staged`), for `--help`.
# Name → (its values, what it does).
VARIABLES = {
    "change": ("staged|worktree|REV|A..B", "also run the rules that judge that change (staged: the index)"),
    "record": ("PATH", "a session transcript (.jsonl): also run the rules that judge the session"),
    "message": ("FILE", "a file holding the commit message (git's commit-msg hook gets one): the change's message"),
    "rules": ("REF,REF", "a comma-separated list of refs (ac:12,ac:14): run only these rules"),
    "segments": ("PATH,PATH", "a comma-separated list of segment folders (., pkg/api): judge only these segments"),
    "undecidable": ("warn|fail", "whether an undecidable check fails the run (default: warn)"),
    "locked": ("1", "fail when rules.lock was made under another organisation policy (`--locked`; CI set: the same)"),
}


def tasks(project):
    from agent_constitution.checks import progress  # lazy: only `doit check` creates these (3.1 ms)
    from agent_constitution.checks.plan import NO_CHECK, write_digest  # lazy: only `doit check` creates these (20 ms)
    from agent_constitution.checks.verdicts import REVIEW_FILE  # lazy: only `doit check` creates these (11 ms)
    from agent_constitution.checks.stage import (  # lazy: only `doit check` creates these (29 ms)
        ENDING, UNDECIDABLE_POLICIES, check_group, prepare, retry_undecidable)

    try:
        policy = get_var("undecidable") or "warn"
        if policy not in UNDECIDABLE_POLICIES:
            raise UserError(f"undecidable={policy}: expected one of {', '.join(UNDECIDABLE_POLICIES)}")
        check_gate(project.root)  # the organisation policy first: its breach is the answer
        run = prepare(project.root, project.cache, change=get_var("change"), record=get_var("record"),
                      only=get_var("rules"), segments=get_var("segments"), message=get_var("message"))
    except UserError as error:
        message = str(error)
        yield {"name": "report", "actions": [lambda: InputError(message)], "uptodate": [False],
               "doc": "could not plan the checks"}
        return
    today = datetime.date.today()
    if not (get_var("rules") or get_var("segments")):
        yield {
            "name": "compiled",
            "doc": "Check that every compiled output (AGENTS.md regions, parts, shims, skills, hooks) is what compile writes",
            "actions": [(_compiled, [project.root, project.cache])],
            # Compared again when an output, the lock, a resolution or the compile code changed.
            "uptodate": [_LazyConfig(_compiled_config, project.root, project.cache)],
            "verbosity": 2,
        }
    progress.start(sum(len(group.pairs) for group in run.plan.groups))
    # A file under cache/ that git tracks (committed by hand) is judged like any other, but no task
    # depends on it: it may be a target of this run (a result, a digest, a report), and doit stops
    # on a task that depends on its own or a later task's target ("Cyclic/recursive dependencies").
    own = project.cache.relative_to(project.root).as_posix() + "/"
    for inputs in run.plan.inputs:
        yield {
            "name": inputs.name,
            "doc": f"Digest the files {' '.join(inputs.patterns)} matches [{inputs.segment}]",
            "actions": [(write_digest, [inputs, run.subjects, own])],
            "targets": [inputs.digest],
            "clean": True,
            # No file_dep: the matched files count through one signature of their stat identities,
            # which doit keeps as one value; the tracked files under cache/ it matches count by name.
            "uptodate": [config_changed({"files": len(inputs.files),
                                         "cache": [path for path in inputs.files if path.startswith(own)]}),
                         (_stat_unchanged, [inputs, run.subjects, own])],
        }
    for group in run.plan.groups:
        if group.name == NO_CHECK:
            doc = "The rules without a check, in every segment (each result says so)"
            # Each result is the rule's title, text, revision and status: compared, not the rule files.
            uptodate = [_LazyConfig(_unchecked, group)]
        else:
            rule = group.pairs[0][1]
            doc = f"{rule.title} [{', '.join(segment for segment, _ in group.pairs[:3])}" + (
                f" and {len(group.pairs) - 3} more]" if len(group.pairs) > 3 else "]")
            uptodate = [config_changed(group.task_config), retry_undecidable]
        yield {
            "name": group.name,
            "doc": doc,
            "actions": [(check_group, [group, run.subjects])],
            "file_dep": group.file_dep,
            "targets": [group.result],
            "clean": True,
            "uptodate": uptodate,
        }
    baseline = project.root / BASELINE_FILE
    # A recorded verdict holds for one subject digest, which covers files no check task depends on
    # when nothing changed its result: with verdicts recorded, the report is written every run.
    verdicts = (project.root / REVIEW_FILE).is_file()
    yield {
        "name": "report",
        "doc": "Summarise the results; write cache/checks/report.json, the SARIF logs and cache/review/*.md",
        "actions": [(_report, [run.plan, run.selection.review, project.cache, policy, run.selection.waivers, today,
                               project.root, run.subjects])],
        # The baseline says which findings fail; a change says which are new (its base, by tree id).
        "file_dep": [group.result for group in run.plan.groups] + ([baseline] if baseline.is_file() else []),
        "targets": [project.cache / CHECKS / name for name in ("report.json", "report.sarif", "code-scanning.sarif",
                                                               ENDING)],
        # Up to date when no result changed, also with violations: `checks:summary` fails the run.
        # Waivers apply here, so editing one re-reports; `until` is compared with the date of the run.
        "uptodate": [config_changed({"not_run": run.plan.not_run, "review": run.selection.review, "policy": policy,
                                     "waivers": [repr(waiver) for waiver in run.selection.waivers],
                                     "today": today.isoformat() if run.selection.waivers or baseline.is_file()
                                     else None,
                                     "change": None if run.subjects.change is None else asdict(run.subjects.change),
                                     "baseline": baseline.is_file(),
                                     # -v lists what does not fail: a run with it writes the summary again
                                     "detail": console.settings.show_tasks}),
                     not verdicts],
        "verbosity": 2,
    }
    # Every run ends with the counts, as ruff and pre-commit end theirs, also when no result changed
    # and the report was up to date (doit runs nothing of an up-to-date task, so it would say nothing);
    # a violation fails the run here.
    yield {
        "name": "summary",
        "doc": "Print the counts of the report (cache/checks/report.json), also when nothing changed; fail on a violation",
        "actions": [(_summary, [project.cache, list(run.selection.review)])],
        "task_dep": [f"{NAME}:report"],
        "uptodate": [False],
        "verbosity": 2,
    }


def _stat_unchanged(task, values, inputs, subjects, own) -> bool:
    """doit `uptodate` of an input set: its files have the stat identities they had when it was last digested."""
    from agent_constitution.checks.plan import stat_signature  # lazy: only `doit check` creates these (20 ms)

    return values.get("stat") == stat_signature(inputs, subjects, own)


def _plan(root, cache):
    from agent_constitution.compile.outputs.base import Plan  # lazy: only `doit check` creates these (6.7 ms)

    settings, segments = read_settings(root / MANIFEST)
    return Plan(root, cache, settings, tuple(segments))


def _compiled_config(root, cache) -> dict | str:
    """What `checks:compiled` is up to date on: every output (stat), the lock, the resolutions and the
    compile code; a file that cannot be read gives a value never seen before, so the action runs
    and reports it."""
    import uuid

    from agent_constitution.compile import verify  # lazy: only `doit check` creates these (7.0 ms)

    try:
        if (root / MANIFEST).is_file():
            return {"outputs": verify.fingerprint(_plan(root, cache)), "compiler": compiler_digest()}
    except (OSError, UserError):
        pass
    return uuid.uuid4().hex


@reported
def _compiled(root, cache):
    """The outputs compile owns, compared with what it would write (`compile.verify`); any
    difference fails the run, whatever the files' banners say."""
    from agent_constitution.compile import verify  # lazy: only `doit check` creates these (7.0 ms)

    if not (root / MANIFEST).is_file():
        return None
    plan = _plan(root, cache)
    if not verify.compiled_here(plan):
        return None
    found = verify.differences(plan)
    return failed("\n".join(f"compiled output differs: {error}" for error in found) or None)


@reported
def _summary(cache, groups):
    from agent_constitution.checks.stage import summary_line  # lazy: only `doit check` creates these (29 ms)

    return failed(summary_line(cache, groups))


@reported
def _report(plan, review, cache, policy, waivers, today, root, subjects):
    # A module-level action: `doit -n N` pickles actions by reference.
    from agent_constitution.checks.stage import read_results, write_reports  # lazy: only `doit check` creates these (29 ms)

    results = read_results([group.result for group in plan.groups], plan.order)
    rules = {(segment, rule.ref): rule for group in plan.groups for segment, rule in group.pairs}
    return failed(write_reports(results, plan.not_run, review, cache, policy, waivers, today, root, subjects,
                                rules, plan.skipped))


class _LazyConfig(config_changed):
    """doit's `config_changed` over a value computed when doit asks whether the task is up to date
    (`doit list` never does), not when the task is created: the compiled outputs' fingerprint stats
    every output, the rules without a check are every (segment, rule) of the run."""

    def __init__(self, compute, *args):
        super().__init__("")
        self.compute, self.args = compute, args

    def __call__(self, task, values):
        self.config = self.compute(*self.args)
        return super().__call__(task, values)


def _unchecked(group) -> str:
    """What the results of the rules without a check are made of: each rule's revision, status,
    title and text once, and the rules of each segment."""
    import hashlib

    digest = hashlib.blake2b(digest_size=20)
    seen = set()
    for segment, rule in group.pairs:
        if id(rule) not in seen:
            seen.add(id(rule))
            digest.update(repr((rule.ref, rule.revision, rule.status, rule.title, rule.text)).encode() + b"\0")
        digest.update(f"{segment}\0{rule.ref}\n".encode())
    return digest.hexdigest()
