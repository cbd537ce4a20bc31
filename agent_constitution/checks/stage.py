"""The stage functions doit runs: check one (segment, rule), write the reports, ingest verdicts.

They know nothing of doit: a stage that fails returns its failure's text (None when it succeeded),
and the task families turn that into a failed task (`tasks.actions.failed`).

Where things go, all under `cache/`:

    cache/checks/results/[<segment>/]<source>-<id>.json   one result per (segment, rule)
    cache/checks/report.json                              every result (docs/checks.md: the format)
    cache/checks/report.sarif                             the same as SARIF 2.1.0, every outcome (`kind`)
    cache/checks/code-scanning.sarif                      the SARIF subset GitHub code scanning takes
    cache/review/<group>.md                               a reviewer group's queue
    cache/review/queue.json                               every queued item, with its evidence (doit review)
    cache/review/log/<digest>.json                        a reviewer's prompt and answer, for audit
    cache/review/<group>.verdicts.toml                    the reviewer's verdicts (written by the reviewer)
    cache/review/feedback/<source>.toml                   disagreements with that source's checks
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_constitution import console
from agent_constitution.checks import memo, progress
from agent_constitution.checks.agent_work import RECORDED, agent_host
from agent_constitution.checks.model import Outcome, Result, RuleCheck, needs_review
from agent_constitution.checks.verdicts import (
    REVIEW_FILE, Memory, admitted, by_hand, confirmed, confirmed_lines, read_memory,
)
from agent_constitution.checks.verdicts import apply as apply_verdicts
from agent_constitution.checks.plan import Group, Job, Plan, plan
from agent_constitution.checks.report import (
    counts, json_report, read_report, reported_summary, rule_pages, sarif,
)
from agent_constitution.checks.contents import INDEX
from agent_constitution.checks.evidence import EVIDENCE_MEMO, Reader
from agent_constitution.checks.evidence import fixture as evidence_fixture
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan
from agent_constitution.checks.selection import Selection, select
from agent_constitution.layout import BASELINE, CHECKS, MANIFEST, REVIEW
from agent_constitution.checks.subjects import STAGED, commit_message, resolve_change
from agent_constitution.checks.waivers import Waiver, file_lines
from agent_constitution.checks.waivers import apply as apply_waivers
from agent_constitution.checks.waivers import inline as inline_waivers
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.readers import read_cached, read_json
from agent_constitution.ruleset.resolved import read_index

UNDECIDABLE_POLICIES = ("warn", "fail")
RETRY_AFTER = 600  # seconds an undecidable result stands while nothing it depends on and no PATH folder changed
ENDING = "ending.json"  # under cache/checks/: the last report's failure and the lines a failing run prints


def review_folder(cache: Path) -> Path:
    return cache / REVIEW


def check_group(group: Group, subjects: Subjects) -> dict | bool:
    """Run one check task (a rule in every segment it is judged in, or every rule without a check)
    and write its results, one per segment; the returned outcome is kept by doit for the next run."""
    lines = file_lines(subjects.root)
    results = []
    for job in group.jobs:
        results.append(inline_waivers(check_one(job, subjects), lines))
        progress.tick(job.rule.ref)
    try:
        write_if_changed(group.result, json.dumps([result.to_json() for result in results], indent=2,
                                                  ensure_ascii=False) + "\n")
    except UserError as error:  # a full disk or a read-only cache: the message, no traceback
        print(error, file=sys.stderr)
        return False
    if any(result.outcome is Outcome.UNDECIDABLE for result in results):
        return {"outcome": Outcome.UNDECIDABLE.value, "at": time.time(), "tools": tool_places()}
    return {"outcome": "decided"}


def check_one(job: Job, subjects: Subjects) -> Result:
    """One rule's result in one segment. With the run's memo folder, a result already judged on the
    same check and inputs (the job's file dependencies and configuration) is reused instead (see
    checks.memo); a rule without a check needs no memo."""
    return _remembered(job.rule, job.segment, subjects, job.file_dep, job.config)



def _remembered(rule: RuleCheck, segment: str, subjects: Subjects, deps: Sequence[Path],
                config: Mapping | None) -> Result:
    """The check's result: the memo's for the same check and inputs, else run (and kept)."""
    if subjects.memo is None or config is None:
        return run_check(rule, segment, subjects)
    digest, name = memo.key(deps, config), memo.name(rule.source, rule.id, segment)
    result = memo.recall(subjects.memo, name, digest)
    if result is not None and result.ref == rule.ref and result.segment == segment:
        return result
    result = run_check(rule, segment, subjects)
    try:
        memo.keep(subjects.memo, name, digest, result)
    except OSError:
        pass  # a memo that cannot be written (a full disk) only costs the next run this check
    return result


def retry_undecidable(task, values) -> bool | None:
    """doit `uptodate`: an undecidable result is decided again once a tool may have come (a folder of
    PATH changed, `tool_places`) or RETRY_AFTER seconds after it was decided (an index or a network
    that may answer now), not on every run: a check that runs a tool which cannot answer here
    (`uv lock --check` without its index) ran it again on every run with nothing changed."""
    outcome = values.get("outcome")
    if outcome is None or outcome != Outcome.UNDECIDABLE.value:
        return None if outcome is None else True
    at = values.get("at")
    return (isinstance(at, (int, float)) and 0 <= time.time() - at < RETRY_AFTER
            and values.get("tools") == tool_places())


def tool_places() -> str:
    """PATH and each of its folders' modification time: installing or removing a tool changes one."""
    places = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        try:
            places.append(f"{folder}\0{os.stat(folder or '.').st_mtime_ns}")
        except OSError:
            places.append(f"{folder}\0-")
    return "\n".join(places)


def read_results(result_files: Sequence[Path], order) -> list[Result]:
    """The results the check tasks wrote (each file a list), in the order `order` gives their
    (segment, ref) keys (`Plan.order`: as the selection lists them)."""
    found = {}
    for path in result_files:
        for data in json.loads(path.read_text(encoding="utf-8")):
            result = Result.from_json(data)
            found[result.segment, result.ref] = result
    return [found[key] for key in order(found)]


def write_reports(results: Sequence[Result], not_run: Sequence[str], review: Mapping[str, Sequence[str]],
                  cache: Path, undecidable: str, waivers: Sequence[Waiver] = (),
                  today: datetime.date | None = None, root: Path | None = None, subjects: Subjects | None = None,
                  rules: Mapping[tuple[str, str], RuleCheck] | None = None,
                  skipped: Sequence[tuple[Result, str]] = ()) -> str | None:
    """Apply the waivers and the recorded verdicts to the results, write the JSON report, the SARIF
    log and the review queues, and how the run ends (`ENDING`: `checks:summary` fails the run when a
    violation remains, or an undecidable one under `undecidable=fail`). Fails only when the inputs
    or the cache cannot be read or written. `root` (default: the subjects' root, else the
    cache's parent) is the repository the SARIF locations must name files of, and whose lock gives
    the rule sources' repositories."""
    today = today or datetime.date.today()
    waived = apply_waivers(results, waivers, today)
    root = (subjects.root if subjects is not None else cache.parent) if root is None else root
    try:
        results, adopted = _judged_as_adopted(list(waived.results), root, cache, subjects, rules, today)
        memory = read_memory(root)
    except UserError as error:
        return str(error)
    decided = _decide(results, [*waived.notes, *adopted], memory, cache, root, subjects, rules)
    texts = _write_files(decided, cache, root, not_run, review, skipped)
    try:
        write_if_changed(cache / CHECKS / ENDING, json.dumps(_say(decided, cache, root, subjects, not_run, texts,
                                                                  undecidable), ensure_ascii=False) + "\n",
                         within=cache)
    except UserError as error:
        return str(error)
    return None


@dataclass(frozen=True)
class _Decided:
    """The run's results once waivers, the baseline, the change's base and the recorded verdicts
    have decided what they can: the notes said, the verdicts applied, the evidence each reviewer
    would see, and the violations a reviewer confirmed."""

    results: list[Result]
    notes: list[str]
    applied: Mapping
    evidence: Mapping
    found: Mapping

    @property
    def asking(self) -> list[Result]:
        """The results no recorded verdict decided: what the review queues ask about."""
        return [r for r in self.results if (r.segment, r.ref) not in self.applied]


def _decide(results: list[Result], notes: list[str], memory, cache: Path, root: Path, subjects: Subjects | None,
            rules: Mapping[tuple[str, str], RuleCheck] | None) -> _Decided:
    """The waived and adopted results with the recorded verdicts (`memory`, as the index admits
    them) applied; the notes printed on stderr as they arise."""
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)
    try:
        memory, refused = _counted(memory, cache, root)
    except UserError as error:
        return str(error)
    reader = Reader(subjects or Subjects(scan(root)), memo=cache / CHECKS / EVIDENCE_MEMO)
    judged = memory.judged()
    evidence = {(r.segment, r.ref): reader.evidence(r, (rules or {}).get((r.segment, r.ref)))
                for r in results if needs_review(r) or (r.segment, r.ref) in judged}
    reader.save()
    results, applied = apply_verdicts(results, {key: item.digest for key, item in evidence.items()}, memory)
    for note in [*refused, *by_hand(applied)]:
        print(f"note: {note}", file=sys.stderr)
    return _Decided(results, notes, applied, evidence, confirmed(applied))


def _counted(memory: Memory, cache: Path, root: Path) -> tuple[Memory, list[str]]:
    """The verdicts that count under their groups' requirements, and a note for each left out."""
    index = read_index(cache)
    groups = index.review if index is not None else {}
    memory, refused = admitted(memory, groups)
    if any(not verdict.by_hand for verdict in memory.verdicts):
        # A reviewer command's verdicts decide only once its group is calibrated (checks/calibration.py).
        from agent_constitution.checks.calibration import gated  # lazy: pydantic, only where a reviewer's verdicts are kept

        memory, advisory = gated(memory, groups, root)
        refused += advisory
    return memory, refused


def _write_files(decided: _Decided, cache: Path, root: Path, not_run: Sequence[str],
                 review: Mapping[str, Sequence[str]], skipped: Sequence[tuple[Result, str]]) -> dict[str, str]:
    """Write the JSON report, the two SARIF logs, the review queues and their items; the queues' texts."""
    from agent_constitution.checks.queues import labeller, queues, write_items, write_queues  # lazy: only where verdicts are kept

    results = decided.results
    # For the agent that fixes them: each confirmed violation with the reviewer's reason and places.
    handed = {rule: [{"segment": v.segment, "reviewer": v.reviewer, "reason": v.reason, "locations": list(v.locations)}
                     for v in verdicts] for rule, verdicts in decided.found.items()}
    write_if_changed(cache / CHECKS / "report.json",
                     json_report(results, not_run=not_run, notes=decided.notes, confirmed=handed), within=cache)
    index = read_index(cache)
    pages = rule_pages(index.locked if index is not None else ())
    for name, every_outcome in (("report.sarif", True), ("code-scanning.sarif", False)):
        write_if_changed(cache / CHECKS / name,
                         sarif(results, exists=lambda path: (root / path).is_file(), rule_pages=pages,
                               every_outcome=every_outcome, not_run=skipped),
                         within=cache)
    asking = decided.asking
    texts = queues(asking, review, labeller(root, cache))
    write_queues(review_folder(cache), texts)
    write_items(review_folder(cache), [r for r in asking if needs_review(r)], review, decided.evidence)
    return texts


def _say(decided: _Decided, cache: Path, root: Path, subjects: Subjects | None, not_run: Sequence[str],
         texts: Mapping[str, str], undecidable: str) -> dict:
    """How the run ends (`ENDING`): its failure, or None, and what a failing run prints, which
    `checks:summary` prints (`summary_line`) whether or not this task ran.

    The report task itself never fails on a violation: a failed task is run again by doit on the
    next run, which wrote the report again over an unchanged tree (0.34 s of a 1.1 s no-op on an
    11,000-file repository); the summary runs every time and fails instead.
    `agent-constitution check --output-format F` prints the report itself once the run is done."""
    results = decided.results
    n = counts(results)
    failing = n["violation"] or (n["undecidable"] and undecidable == "fail")
    # What the report says (its summary, the count line) `checks:summary` prints from it, in this
    # run's colours; kept here: what a failing run prints besides, in the full format (`shown`) and
    # also only when not quiet (`said`, before the count line).
    shown, said = [], []
    reviewed = len(decided.applied)
    if failing:
        if decided.found:
            titles = {r.ref: r.title for r in decided.results}
            shown.append("confirmed by a reviewer (fix these):\n" + "\n".join(confirmed_lines(decided.found, titles)))
    if reviewed:
        line = f"{reviewed} result{'s' if reviewed > 1 else ''} decided by a recorded verdict ({REVIEW_FILE})"
        if failing:
            said.append(line)
        elif console.settings.output_format == "full" and not console.quiet():
            print(line)
    if failing and any(needs_review(result) for result in decided.asking):
        said.append(_queue_line(cache, list(texts)))
    failure = None
    if n["violation"]:
        said.extend(filter(None, [adoption_hint(results, root, subjects)]))
        failure = f"{n['violation']} rule{_s(n['violation'])} violated"
    elif n["undecidable"] and undecidable == "fail":
        failure = f"{n['undecidable']} check{_s(n['undecidable'])} undecidable (undecidable=fail)"
    elif n["undecidable"]:
        print(f"warning: {n['undecidable']} check{_s(n['undecidable'])} could not decide; "
              "a reviewer decides them (run with undecidable=fail to fail on them)", file=sys.stderr)
    return {"failure": failure, "shown": shown, "said": said}


def _s(count: int) -> str:
    return "s" if count > 1 else ""


def _judged_as_adopted(results: list[Result], root: Path, cache: Path, subjects: Subjects | None,
                       rules: Mapping[tuple[str, str], RuleCheck] | None, today: datetime.date
                       ) -> tuple[list[Result], list[str]]:
    """The results with what rules.baseline.toml accepts moved to `baselined` and, under a change,
    what the change's base already had moved to `preexisting`; and the notes to print."""
    notes: list[str] = []
    if os.path.lexists(root / BASELINE):  # the baseline's model (pydantic) only where there is one
        from agent_constitution.checks import baseline  # lazy: pydantic, only where a baseline is read

        applied = baseline.apply(results, baseline.read(root), today)
        results, notes = list(applied.results), applied.notes()
    else:
        results = list(results)
    if subjects is not None and subjects.change is not None:
        from agent_constitution.checks.change_base import split  # lazy: only a change's run reads its base

        results = split(results, root, cache, subjects.change, rules or {}, subjects.segments)
    return results, notes


def adoption_hint(results: Sequence[Result], root: Path, subjects: Subjects | None) -> str | None:
    """On a whole-repository run with repository findings and no rules.baseline.toml: how to adopt
    the checks as the repository is (init's offer of a baseline, made when the check finds them)."""
    if (subjects is not None and subjects.change is not None) or (root / BASELINE).exists():
        return None
    found = sum(len(r.findings) for r in results if r.outcome is Outcome.VIOLATION and r.subject == "repository")
    if not found:
        return None
    return (f"hint: to adopt the checks on this repository as it is, `agent-constitution baseline` accepts these "
            f"{found} finding{'s' if found > 1 else ''} in {BASELINE} (commit it); check then fails only on new "
            "ones, and a commit (change=staged) only on what it adds")


def write_baseline(root: Path, cache: Path, prune: bool = False) -> str | None:
    """`agent-constitution baseline`: run the repository's rules and write every finding to
    rules.baseline.toml (`prune`: only remove the entries whose finding no longer occurs)."""
    from agent_constitution.checks import baseline  # lazy: pydantic: only where a baseline is read or written
    from agent_constitution.checks.waivers import apply as apply_manifest  # lazy: only where findings are waived here

    try:
        kept = baseline.read(root)
        run = prepare(root, cache)
    except UserError as error:
        return str(error)
    results = [inline_waivers(run_check(job.rule, job.segment, run.subjects), file_lines(root))
               for job in run.plan.jobs if job.rule.check is not None and job.rule.check.subject == "repository"]
    results = list(apply_manifest(results, run.selection.waivers, datetime.date.today()).results)
    if prune and kept is None:
        return str(UserError(f"no {baseline.BASELINE_FILE} to prune", file=root / baseline.BASELINE_FILE,
                             fix="run `agent-constitution baseline` to write one"))
    if prune:
        found = baseline.pruned(kept, results)
        removed = len(kept.finding) - len(found)
        print(f"{baseline.BASELINE_FILE}: removed {removed} entr{'y' if removed == 1 else 'ies'} that no longer "
              f"occur{'s' if removed == 1 else ''}; {len(found)} left")
    else:
        found = baseline.entries(results, kept)
        rules = len({entry.rule for entry in found})
        print(f"{baseline.BASELINE_FILE}: {len(found)} finding{'' if len(found) == 1 else 's'} of "
              f"{rules} rule{'' if rules == 1 else 's'}; `check` now fails only on findings beyond them")
    write_if_changed(root / baseline.BASELINE_FILE, baseline.dumps(found))
    return None


def summary_line(cache: Path, groups: Sequence[str] = ()) -> str | None:
    """The summary of the last report, for `checks:summary`, the same whether this run wrote the
    report or it was up to date: a failing run's summary, count line and failure (`ENDING`); what a
    passing run lists (the undecidable rules, the waived findings, …), the review queues to read
    (`groups`: the review groups, in their order) and the count line; a failure when there is no
    report."""
    path = cache / CHECKS / "report.json"
    text = reported_summary(path, detail=console.settings.show_tasks)
    ending = _ending(cache)
    if text is None or ending is None:
        return f"no report in {path}: run the checks again (`doit forget checks`)"
    if console.settings.output_format != "full":
        return ending["failure"]
    details, _, last = text.rstrip("\n").rpartition("\n")
    if details:
        print(details)
    if ending["failure"] is not None:
        for line in ending["shown"]:
            print(line)
        if not console.quiet():
            for line in [*ending["said"], last]:
                print(line)
        return ending["failure"]
    if not console.quiet():
        written = {path.stem for path in review_folder(cache).glob("*.md")}  # the report task's queues
        queues = [name for name in groups if name in written] + sorted(written - set(groups))
        if queues and any(needs_review(Result.from_json(item)) for item in read_json(path)["results"]):
            print(_queue_line(cache, queues))
        print(last)
    return None


def _ending(cache: Path) -> dict | None:
    """The last report's `ENDING`, or None when it is missing or not one."""
    try:
        found = json.loads(read_cached(cache / CHECKS / ENDING) or b"null")
    except (OSError, ValueError):
        return None
    ok = (isinstance(found, dict) and isinstance(found.get("failure"), (str, type(None)))
          and all(isinstance(found.get(key), list) and all(isinstance(line, str) for line in found[key])
                  for key in ("shown", "said")))
    return found if ok else None


def _queue_line(cache: Path, names: Sequence[str]) -> str:
    return f"review queue{'s' if len(names) > 1 else ''}: " + ", ".join(
        str((review_folder(cache) / f"{name}.md").relative_to(cache.parent)) for name in names)




def ingest_verdicts(cache: Path) -> str | None:
    """Record every verdict that disagrees with a check, per source, for its maintainers."""
    # review (pydantic, tomlkit) only where the review files are written or read: not in a no-op run
    from agent_constitution.checks.review import ingest, read_verdicts, write_feedback  # lazy: pydantic, tomlkit: only where verdict files are read

    report = cache / CHECKS / "report.json"
    if not report.is_file():
        return str(UserError("no check report yet", file=report, fix="run `doit check` first"))
    folder = review_folder(cache)
    files = sorted(folder.glob("*.verdicts.toml"))
    if not files:
        print(f"no verdicts to ingest: a reviewer writes them to {folder.relative_to(cache.parent)}/<group>.verdicts.toml")
        return None
    try:
        results = read_report(report)
        verdicts = {path.name.removesuffix(".verdicts.toml"): read_verdicts(path) for path in files}
        done = ingest(results, verdicts, report=report)
        written = write_feedback(folder / "feedback", done.disagreements)
    except UserError as error:
        return str(error)
    try:
        recorded = _record_disagreements(cache.parent, cache, results, verdicts)
    except UserError as error:
        return str(error)
    found = [d for entries in done.disagreements.values() for d in entries]
    positives = sum(d.kind == "false-positive" for d in found)
    print(f"{len(found)} disagreement{'s' if len(found) != 1 else ''} with the checks "
          f"({positives} false positive, {len(found) - positives} false negative); "
          f"{done.agreed} agreed; {done.decided} decided what no check could")
    for path, added in written.items():
        shown = path.relative_to(cache.parent)
        print(f"{added} new recorded in {shown}" if added else f"already recorded in {shown}")
    if recorded:
        print(f"{recorded} proposal{'s' if recorded != 1 else ''} to fix a check recorded in {REVIEW_FILE}")
    if done.stale:
        print(f"warning: skipped {len(done.stale)} verdict{'s' if len(done.stale) > 1 else ''} on a result that "
              "changed since the review (the checks ran again); review the new queue and update or remove "
              "them:\n" + "\n".join(f"  {line}" for line in done.stale), file=sys.stderr)
    return None


def _record_disagreements(root: Path, cache: Path, results: Sequence[Result], verdicts: Mapping) -> int:
    """Hand-written verdicts that disagree with a check, recorded in rules.review.toml as `doit review`
    records a reviewer's: the verdict on the subject as it is now, and the proposal with its draft.
    Returns the number of new proposals."""
    from agent_constitution.checks.verdicts import Recorded, kind_of, propose, state, write_memory  # lazy: only where verdicts are recorded

    by_key = {(result.segment, result.ref): result for result in results}
    wanted = [(group, verdict, by_key[(verdict.segment, verdict.rule)]) for group, given in verdicts.items()
              for verdict in given if (verdict.segment, verdict.rule) in by_key]
    wanted = [(group, verdict, result) for group, verdict, result in wanted
              if (verdict.outcome is None or verdict.outcome == state(result))
              and kind_of(result, verdict.verdict) is not None]
    if not wanted:
        return 0
    selection = select(root, cache)
    rules = {(segment, rule.ref): rule for segment, found in selection.rules.items() for rule in found}
    reader = Reader(Subjects(scan(root), selection.segments))
    memory = read_memory(root)
    recorded = {verdict.key: verdict for verdict in memory.verdicts}
    proposals = {(p.rule, p.segment, p.subject): p for p in memory.proposals}
    for group, verdict, result in wanted:
        seen = reader.evidence(result, rules.get((result.segment, result.ref)))
        entry = Recorded(rule=result.ref, segment=result.segment, revision=result.revision, subject=seen.digest,
                         check_said=state(result), verdict=verdict.verdict, reason=verdict.reason,
                         reviewer=group, locations=(verdict.location,) if verdict.location else ())
        recorded[entry.key] = entry
        source = selection.sources.get(result.source)
        fixture = evidence_fixture(root, seen.files)
        proposal = propose(root, result, entry, fixture, Path(source["root"]) if source else None)
        proposals[(proposal.rule, proposal.segment, proposal.subject)] = proposal
    write_memory(root, Memory(tuple(recorded.values()), tuple(proposals.values())))
    return len(proposals) - len(memory.proposals)


@dataclass(frozen=True)
class Run:
    selection: Selection
    subjects: Subjects
    plan: Plan


def prepare(root: Path, cache: Path, *, change: str | None = None, record: str | None = None,
            only: str | None = None, segments: str | None = None, message: str | None = None) -> Run:
    """Everything a run needs before its tasks exist: the selection, the one shared scan, the plan.
    `only` and `segments` are the command line's `rules=` and `segments=` (comma-separated).
    `message` (a commit message file) is the message of the staged change unless `change` names another."""
    wanted = tuple(ref.strip() for ref in (only or "").split(",") if ref.strip())
    folders = tuple(folder.strip().strip("/") or "." for folder in (segments or "").split(",") if folder.strip())
    selection = select(root, cache, wanted)
    scanned = scan(root)
    scanned.contents.keep_index(cache / CHECKS / INDEX)
    subjects = Subjects(
        scan=scanned,
        segments=selection.segments,
        memo=cache / "checks" / "memo",
        change=_change(root, change, message),
        record=_record(record),
        agent=agent_host(os.environ) or (RECORDED if record else None),
        in_force={segment: frozenset(rule.ref for rule in rules) for segment, rules in selection.rules.items()},
    )
    unknown = [folder for folder in folders if folder not in selection.segments]
    if unknown:
        raise UserError(f"segments={segments}: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a "
                        f"segment of {MANIFEST}", fix="name segments by their folder, as [[segment]] path gives it "
                        f"(the root is .): {', '.join(selection.segments[:8])}")
    planned = plan(selection, subjects, cache, only=wanted, segments=folders)
    subjects.file_checks = _file_checks(planned)
    return Run(selection, subjects, planned)


def _file_checks(planned: Plan) -> tuple[tuple[str, RuleCheck], ...]:
    """(segment, rule) of each job of `planned.jobs` whose rule `_python_of_repository` takes, in that
    order, from the groups' pairs: making every job to keep those few was a fifth of `doit list` at
    5,000 rules x 1,000 segments (76,000 jobs, each with its own copy of its configuration)."""
    # A (segment, rule) pair is in one group (its rule's, or the one of the rules without a check).
    wanted = {(segment, rule.ref): (segment, rule) for group in planned.groups for segment, rule in group.pairs
              if _python_of_repository(rule)}
    return tuple(wanted[key] for key in planned.order(wanted)) if wanted else ()


def _python_of_repository(rule: RuleCheck) -> bool:
    """A python check of the repository that runs: one that may judge files one at a time."""
    return rule.check is not None and rule.trusted and bool(rule.check.python) and rule.check.subject == "repository"


def _change(root: Path, change: str | None, message: str | None):
    """The change named for the run (`message` alone: the staged change with that message), or None."""
    if not (change or message):
        return None
    return resolve_change(root, change or STAGED, _message(message) if message else None)


def _message(text: str) -> str:
    path = Path(text)
    if not path.exists():
        # `message=` takes git's commit-msg file; the message itself given instead is the likely mistake.
        raise UserError(f"message={text}: no such file; message= takes the path of a file holding the commit "
                        "message (what git gives the commit-msg hook), not the message's text",
                        fix="write the message to a file and pass its path (message=.git/COMMIT_EDITMSG)")
    try:
        return commit_message(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"message={text}: cannot read the commit message file ({error})",
                        fix="give the file git passes to the commit-msg hook (usually .git/COMMIT_EDITMSG)") from None


def _record(text: str | None) -> Path | None:
    if not text:
        return None
    path = Path(text).resolve()
    if not path.is_file():
        raise UserError(f"record={text}: no such file", fix="give the path of a session transcript (.jsonl)")
    return path
