"""The stage functions doit runs: check one (segment, rule), write the reports, ingest verdicts.

Where things go, all under `cache/`:

    cache/checks/results/[<segment>/]<source>-<id>.json   one result per (segment, rule)
    cache/checks/report.json                              every result (docs/checks.md: the format)
    cache/checks/report.sarif                             the same as SARIF 2.1.0
    cache/review/<group>.md                               a reviewer group's queue
    cache/review/<group>.verdicts.toml                    the reviewer's verdicts (written by the reviewer)
    cache/review/feedback/<source>.toml                   disagreements with that source's checks
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from doit.exceptions import TaskFailed

from agent_constitution.checks import progress
from agent_constitution.checks.model import Outcome, Result, RuleCheck
from agent_constitution.checks.plan import Plan, plan
from agent_constitution.checks.report import counts, json_report, rule_pages, sarif, summary
from agent_constitution.checks.review import (
    ingest,
    needs_review,
    queues,
    read_verdicts,
    write_feedback,
    write_queues,
)
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan
from agent_constitution.checks.selection import Selection, select
from agent_constitution.checks.subjects import STAGED, commit_message, resolve_change
from agent_constitution.checks.waivers import Waiver, file_lines
from agent_constitution.checks.waivers import apply as apply_waivers
from agent_constitution.checks.waivers import inline as inline_waivers
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.readers import read_json

UNDECIDABLE_POLICIES = ("warn", "fail")


def review_folder(cache: Path) -> Path:
    return cache / "review"


def check_one(rule: RuleCheck, segment: str, subjects: Subjects, target: Path) -> dict:
    """Run one check and write its result; the returned outcome is kept by doit for the next run."""
    result = inline_waivers(run_check(rule, segment, subjects), file_lines(subjects.root))
    write_if_changed(target, json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    progress.tick(rule.ref)
    return {"outcome": "no-check" if result.outcome is None else result.outcome.value}


def retry_undecidable(task, values) -> bool | None:
    """doit `uptodate`: an undecidable result is decided again next run (a tool may have been installed)."""
    outcome = values.get("outcome")
    return None if outcome is None else outcome != Outcome.UNDECIDABLE.value


def write_reports(result_files: Sequence[Path], not_run: Sequence[str], review: Mapping[str, Sequence[str]],
                  cache: Path, undecidable: str, waivers: Sequence[Waiver] = (),
                  today: datetime.date | None = None, root: Path | None = None) -> TaskFailed | None:
    """Read the results, apply the waivers, write the JSON report, the SARIF log and the review queues,
    print the summary. Fails (non-zero exit) when a violation remains, or an undecidable one under
    `undecidable=fail`. `root` (default: the cache's parent) is the repository the SARIF locations
    must name files of, and whose lock gives the rule sources' repositories."""
    results = [Result.from_json(json.loads(path.read_text(encoding="utf-8"))) for path in result_files]
    waived = apply_waivers(results, waivers, today or datetime.date.today())
    results = list(waived.results)
    for note in waived.notes:
        print(f"warning: {note}", file=sys.stderr)
    write_if_changed(cache / "checks" / "report.json", json_report(results, not_run=not_run, notes=waived.notes),
                     within=cache)
    root = cache.parent if root is None else root
    write_if_changed(cache / "checks" / "report.sarif",
                     sarif(results, exists=lambda path: (root / path).is_file(), rule_pages=rule_pages(_locked_sources(root))),
                     within=cache)
    texts = queues(results, review)
    write_queues(review_folder(cache), texts)
    print(summary(results, not_run=not_run), end="")
    n = counts(results)
    if any(needs_review(result) for result in results):
        print(f"review queue{'s' if len(texts) > 1 else ''}: "
              + ", ".join(str((review_folder(cache) / f"{name}.md").relative_to(cache.parent)) for name in texts))
    if n["violation"]:
        return TaskFailed(f"{n['violation']} rule{'s' if n['violation'] > 1 else ''} violated")
    if n["undecidable"]:
        if undecidable == "fail":
            return TaskFailed(f"{n['undecidable']} check{'s' if n['undecidable'] > 1 else ''} undecidable "
                              "(undecidable=fail)")
        print(f"warning: {n['undecidable']} check{'s' if n['undecidable'] > 1 else ''} could not decide; "
              "a reviewer decides them (run with undecidable=fail to fail on them)", file=sys.stderr)
    return None


def _locked_sources(root: Path) -> list[tuple[str, str | None, str | None]]:
    """(name, url, commit) of every source in the lock; none when there is no readable lock (the
    report then has no helpUri, which is all the lock is read for)."""
    import tomllib

    from agent_constitution.ruleset.layout import LOCKFILE

    try:
        lock = tomllib.loads((root / LOCKFILE).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    def text(value: object) -> str | None:
        return value if isinstance(value, str) else None

    return [(item["name"], text(item.get("url")), text(item.get("commit"))) for item in lock.get("source", [])
            if isinstance(item, dict) and isinstance(item.get("name"), str)]


def ingest_verdicts(cache: Path) -> TaskFailed | None:
    """Record every verdict that disagrees with a check, per source, for its maintainers."""
    report = cache / "checks" / "report.json"
    if not report.is_file():
        return TaskFailed(str(UserError("no check report yet", file=report, fix="run `doit check` first")))
    folder = review_folder(cache)
    files = sorted(folder.glob("*.verdicts.toml"))
    if not files:
        print(f"no verdicts to ingest: a reviewer writes them to {folder.relative_to(cache.parent)}/<group>.verdicts.toml")
        return None
    try:
        results = _report_results(report)
        verdicts = {path.name.removesuffix(".verdicts.toml"): read_verdicts(path) for path in files}
        done = ingest(results, verdicts, report=report)
        written = write_feedback(folder / "feedback", done.disagreements)
    except UserError as error:
        return TaskFailed(str(error))
    found = [d for entries in done.disagreements.values() for d in entries]
    positives = sum(d.kind == "false-positive" for d in found)
    print(f"{len(found)} disagreement{'s' if len(found) != 1 else ''} with the checks "
          f"({positives} false positive, {len(found) - positives} false negative); "
          f"{done.agreed} agreed; {done.decided} decided what no check could")
    for path, added in written.items():
        shown = path.relative_to(cache.parent)
        print(f"{added} new recorded in {shown}" if added else f"already recorded in {shown}")
    if done.stale:
        print(f"warning: skipped {len(done.stale)} verdict{'s' if len(done.stale) > 1 else ''} on a result that "
              "changed since the review (the checks ran again); review the new queue and update or remove "
              "them:\n" + "\n".join(f"  {line}" for line in done.stale), file=sys.stderr)
    return None


def _report_results(report: Path) -> list[Result]:
    """The results of the JSON report `doit check` wrote (cache/ is the user's: it may have changed)."""
    try:
        return [Result.from_json(r) for r in read_json(report)["results"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise UserError("not a check report written by `doit check`", file=report,
                        fix="run `doit check` again to rewrite it") from None


@dataclass(frozen=True)
class Run:
    selection: Selection
    subjects: Subjects
    plan: Plan


def prepare(root: Path, cache: Path, *, change: str | None = None, record: str | None = None,
            only: str | None = None, message: str | None = None) -> Run:
    """Everything a run needs before its tasks exist: the selection, the one shared scan, the plan.
    `message` (a commit message file) is the message of the staged change unless `change` names another."""
    wanted = tuple(ref.strip() for ref in (only or "").split(",") if ref.strip())
    selection = select(root, cache, wanted)
    subjects = Subjects(
        scan=scan(root),
        segments=selection.segments,
        change=None if not (change or message) else resolve_change(root, change or STAGED,
                                                                     _message(message) if message else None),
        record=None if not record else _record(record),
    )
    return Run(selection, subjects, plan(selection, subjects, cache, only=wanted))


def _message(text: str) -> str:
    path = Path(text)
    try:
        return commit_message(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"message={text}: cannot read the commit message file ({error})",
                        fix="give the file git passes to the commit-msg hook (usually .git/COMMIT_EDITMSG)") from None


def _record(text: str) -> Path:
    path = Path(text).resolve()
    if not path.is_file():
        raise UserError(f"record={text}: no such file", fix="give the path of a session transcript (.jsonl)")
    return path
