"""Run the checks: one task per (segment, rule), then `checks:report` (summary, JSON, SARIF, review queues)
and `checks:summary` (the counts, on every run).

Command-line variables: `change=staged|worktree|REV|A..B` and `record=PATH` give the change and record
subjects; `message=PATH` (a commit message file, as git's commit-msg hook gets it) is the message of
the change (staged unless `change=` says otherwise); `rules=ac:12,ac:14` runs only those rules (superseded ones included); `undecidable=fail`
makes an undecidable check fail the run (default: a warning).
"""

from __future__ import annotations

import datetime

from doit import get_var
from doit.tools import config_changed

from agent_constitution.errors import UserError
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
        run = prepare(project.root, project.cache, change=get_var("change"), record=get_var("record"),
                      only=get_var("rules"), message=get_var("message"))
    except UserError as error:
        message = str(error)
        yield {"name": "report", "actions": [lambda: InputError(message)], "uptodate": [False],
               "doc": "could not plan the checks"}
        return
    today = datetime.date.today()
    progress.start(len(run.plan.jobs))
    for inputs in run.plan.inputs:
        yield {
            "name": inputs.name,
            "doc": f"Digest the files {' '.join(inputs.patterns)} matches [{inputs.segment}]",
            "actions": [(write_digest, [inputs, run.subjects])],
            "file_dep": [f"{inputs.root}/{path}" for path in inputs.files],
            "targets": [inputs.digest],
            "clean": True,
            # Matching no file, it has no file_dep, and doit would run a task with only targets every time.
            "uptodate": [config_changed({"files": len(inputs.files)})] if not inputs.files else [],
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
    # A recorded verdict holds for one subject digest, which covers files no check task depends on
    # when nothing changed its result: with verdicts recorded, the report is written every run.
    verdicts = (project.root / REVIEW_FILE).is_file()
    yield {
        "name": "report",
        "doc": "Summarise the results; write cache/checks/report.json, the SARIF logs and cache/review/*.md",
        "actions": [(_report, [[job.result for job in run.plan.jobs], run.plan.not_run,
                               run.selection.review, project.cache, policy, run.selection.waivers, today,
                               project.root, run.subjects, rules, run.plan.skipped])],
        "file_dep": [job.result for job in run.plan.jobs],
        "targets": [project.cache / CHECKS / name for name in ("report.json", "report.sarif", "code-scanning.sarif")],
        # Up to date when no result changed; a run with violations fails, so it reports again next time.
        # Waivers apply here, so editing one re-reports; `until` is compared with the date of the run.
        "uptodate": [config_changed({"not_run": run.plan.not_run, "review": run.selection.review, "policy": policy,
                                     "waivers": [repr(waiver) for waiver in run.selection.waivers],
                                     "today": today.isoformat() if run.selection.waivers else None}),
                     not verdicts],
        "verbosity": 2,
    }
    # Every run ends with the counts, as ruff and pre-commit end theirs, also when no result changed
    # and the report was up to date (doit runs nothing of an up-to-date task, so it would say nothing).
    yield {
        "name": "summary",
        "doc": "Print the counts of the report (cache/checks/report.json), also when nothing changed",
        "actions": [(_summary, [project.cache])],
        "task_dep": [f"{NAME}:report"],
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _summary(cache):
    from agent_constitution.checks.stage import summary_line

    return failed(summary_line(cache))


@reported
def _report(*args):
    # A module-level action: `doit -n N` pickles actions by reference.
    from agent_constitution.checks.stage import write_reports

    return failed(write_reports(*args))
