"""Run the checks: one task per (segment, rule), then `checks:report` (summary, JSON, SARIF, review queues)
and `checks:summary` (the counts, on every run).

Command-line variables: `change=staged|worktree|REV|A..B` and `record=PATH` give the change and record
subjects; `message=PATH` (a commit message file, as git's commit-msg hook gets it) is the message of
the change (staged unless `change=` says otherwise); `rules=ac:12,ac:14` runs only those rules (superseded ones included); `undecidable=fail`
makes an undecidable check fail the run (default: a warning).
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
from agent_constitution.tasks.actions import InputError, failed, reported

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
    "undecidable": ("warn|fail", "whether an undecidable check fails the run (default: warn)"),
    "locked": ("1", "fail when rules.lock was made under another organisation policy (`--locked`; CI set: the same)"),
}


def tasks(project):
    from agent_constitution.checks import progress
    from agent_constitution.checks.plan import write_digest
    from agent_constitution.checks.verdicts import REVIEW_FILE
    from agent_constitution.checks.stage import (
        UNDECIDABLE_POLICIES,
        check_one,
        prepare,
        retry_undecidable,
    )

    try:
        policy = get_var("undecidable") or "warn"
        if policy not in UNDECIDABLE_POLICIES:
            raise UserError(f"undecidable={policy}: expected one of {', '.join(UNDECIDABLE_POLICIES)}")
        from agent_constitution.policy.gate import check_gate

        check_gate(project.root)  # the organisation policy first: its breach is the answer
        run = prepare(project.root, project.cache, change=get_var("change"), record=get_var("record"),
                      only=get_var("rules"), message=get_var("message"))
    except UserError as error:
        message = str(error)
        yield {"name": "report", "actions": [lambda: InputError(message)], "uptodate": [False],
               "doc": "could not plan the checks"}
        return
    today = datetime.date.today()
    if not get_var("rules"):
        yield {
            "name": "compiled",
            "doc": "Check that every compiled output (AGENTS.md regions, parts, shims, skills, hooks) is what compile writes",
            "actions": [(_compiled, [project.root, project.cache])],
            # Compared again when an output, the lock, a resolution or the compile code changed.
            "uptodate": [_compiled_uptodate(project.root, project.cache)],
            "verbosity": 2,
        }
    progress.start(len(run.plan.jobs))
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
    for job in run.plan.jobs:
        yield {
            "name": job.name,
            "doc": f"{job.rule.title} [{job.segment}]",
            "actions": [(check_one, [job.rule, job.segment, run.subjects, job.result, job.file_dep, job.config])],
            "file_dep": list(job.file_dep),
            "targets": [job.result],
            "clean": True,
            "uptodate": [config_changed(job.config), retry_undecidable],
        }
    rules = {(segment, rule.ref): rule for segment, found in run.selection.rules.items() for rule in found}
    baseline = project.root / BASELINE_FILE
    # A recorded verdict holds for one subject digest, which covers files no check task depends on
    # when nothing changed its result: with verdicts recorded, the report is written every run.
    verdicts = (project.root / REVIEW_FILE).is_file()
    yield {
        "name": "report",
        "doc": "Summarise the results; write cache/checks/report.json, the SARIF logs and cache/review/*.md",
        "actions": [(_report, [[job.result for job in run.plan.jobs], run.plan.not_run,
                               run.selection.review, project.cache, policy, run.selection.waivers, today,
                               project.root, run.subjects, rules, run.plan.skipped])],
        # The baseline says which findings fail; a change says which are new (its base, by tree id).
        "file_dep": [job.result for job in run.plan.jobs] + ([baseline] if baseline.is_file() else []),
        "targets": [project.cache / CHECKS / name for name in ("report.json", "report.sarif", "code-scanning.sarif")],
        # Up to date when no result changed; a run with violations fails, so it reports again next time.
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
    # and the report was up to date (doit runs nothing of an up-to-date task, so it would say nothing).
    yield {
        "name": "summary",
        "doc": "Print the counts of the report (cache/checks/report.json), also when nothing changed",
        "actions": [(_summary, [project.cache, list(run.selection.review)])],
        "task_dep": [f"{NAME}:report"],
        "uptodate": [False],
        "verbosity": 2,
    }


def _stat_unchanged(task, values, inputs, subjects, own) -> bool:
    """doit `uptodate` of an input set: its files have the stat identities they had when it was last digested."""
    from agent_constitution.checks.plan import stat_signature

    return values.get("stat") == stat_signature(inputs, subjects, own)


def _plan(root, cache):
    from agent_constitution.compile.outputs.base import Plan
    from agent_constitution.ruleset.layout import MANIFEST
    from agent_constitution.tasks.agents import read_settings

    settings, segments = read_settings(root / MANIFEST)
    return Plan(root, cache, settings, tuple(segments))


def _compiled_uptodate(root, cache):
    """Up to date while no output, lock, resolution or compile code changed (a file that cannot be
    read: never, so the action reports it)."""
    from agent_constitution.compile import verify
    from agent_constitution.ruleset.layout import MANIFEST
    from agent_constitution.tasks.agents import compiler_digest

    if not (root / MANIFEST).is_file():
        return False
    try:
        return config_changed({"outputs": verify.fingerprint(_plan(root, cache)), "compiler": compiler_digest()})
    except (OSError, UserError):
        return False


@reported
def _compiled(root, cache):
    """The outputs compile owns, compared with what it would write (`compile.verify`); any
    difference fails the run, whatever the files' banners say."""
    from agent_constitution.compile import verify
    from agent_constitution.ruleset.layout import MANIFEST

    if not (root / MANIFEST).is_file():
        return None
    plan = _plan(root, cache)
    if not verify.compiled_here(plan):
        return None
    found = verify.differences(plan)
    return failed("\n".join(f"compiled output differs: {error}" for error in found) or None)


@reported
def _summary(cache, groups):
    from agent_constitution.checks.stage import summary_line

    return failed(summary_line(cache, groups))


@reported
def _report(*args):
    # A module-level action: `doit -n N` pickles actions by reference.
    from agent_constitution.checks.stage import write_reports

    return failed(write_reports(*args))
