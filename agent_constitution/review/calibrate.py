"""`agent-constitution review calibrate`: a reviewer group's agreement with labelled cases.

Each case is put to the group's reviewer as a rule without a check (so the check's outcome cannot
lead it): the rule's text, the case's evidence, and a canary the answer must quote. The verdicts
against the labels give the confusion matrix for "violated", precision and recall with Wilson 95 %
intervals and Cohen's kappa, overall and per rule; `probes` cases are asked again padded, reordered
and renamed (`review.probes`), and a changed verdict is a failed probe. A verdict whose quotes are not
in its prompt is refused (scored as no verdict). The result goes on record in `rules.calibration.toml`
with the command, the model and the date (`checks.calibration`), where the gate reads it.
"""

from __future__ import annotations

import datetime
import hashlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.checks.model import Result, RuleCheck
from agent_constitution.checks.reviewer import Answer, ask, BadAnswer, fabricated, in_ci, prompt, Reviewer
from agent_constitution.checks import calibration as record
from agent_constitution.review import cases as reading, probes as probing
from agent_constitution.review.cases import Case, CASES_FILE
from agent_constitution.checks.calibration import Calibration, RuleAgreement, rounded
from agent_constitution.review.stats import Matrix, scores
from agent_constitution.checks.evidence import Reader, shown_files
from agent_constitution.checks.review import labeller
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.scan import scan
from agent_constitution.checks.selection import select
from agent_constitution.checks.verdicts import review_key
from agent_constitution.errors import UserError
from agent_constitution.layout import MANIFEST

Asker = Callable[[Case, str, str], Answer]      # (case, probe, prompt) → the answer; raises BadAnswer


@dataclass(frozen=True)
class Trial:
    case: Case
    probe: str              # "" for the case itself, else the probe's name
    verdict: str            # satisfied | violated | cannot-tell (also: no answer, or a refused one)
    problem: str = ""       # why the answer does not count as given: refused, failed
    seconds: float = 0.0
    tokens: int | None = None
    cost: float | None = None
    model: str = ""
    canary: bool = True     # the canary was quoted


@dataclass(frozen=True)
class Report:
    group: str
    command: tuple[str, ...]
    date: datetime.date
    trials: tuple[Trial, ...]
    skipped: tuple[str, ...] = ()
    model: str = ""
    stats_seconds: float = field(default=0.0, compare=False)

    @property
    def base(self) -> list[Trial]:
        return [trial for trial in self.trials if not trial.probe]

    def matrix(self, rule: str | None = None) -> Matrix:
        return Matrix.of((trial.case.label, trial.verdict) for trial in self.base
                         if trial.case.label != "noise" and (rule is None or trial.case.rule == rule))

    def probe_failures(self) -> list[str]:
        """One line per failed probe: a variant whose verdict changed, or a canary not quoted."""
        verdicts = {trial.case.id: trial.verdict for trial in self.base}
        failed = [f"{trial.case.id}: not quoting its canary" for trial in self.base if not trial.canary]
        failed += [f"{trial.case.id} {trial.probe}: {verdicts[trial.case.id]} became {trial.verdict}"
                   for trial in self.trials if trial.probe and trial.verdict != verdicts.get(trial.case.id)]
        return failed

    @property
    def probes(self) -> int:
        return len(self.base) + sum(1 for trial in self.trials if trial.probe)

    def calibration(self) -> Calibration:
        matrix, failed = self.matrix(), self.probe_failures()
        return rounded(Calibration(
            group=self.group, command=self.command, model=self.model, date=self.date, cases=matrix.cases,
            noise=sum(1 for trial in self.base if trial.case.label == "noise"),
            tp=matrix.tp, fp=matrix.fp, fn=matrix.fn, tn=matrix.tn,
            cannot_tell=matrix.unsure_violated + matrix.unsure_satisfied,
            **_scored(scores(matrix)),
            probes=self.probes, probe_failures=len(failed),
            **self._spent(),
            rules=self._rule_agreements(),
        ))

    def _rule_agreements(self) -> dict[str, RuleAgreement]:
        rules = {}
        for ref in sorted({trial.case.rule for trial in self.base if trial.case.label != "noise"}):
            m = self.matrix(ref)
            rules[ref] = RuleAgreement(m.cases, m.tp, m.fp, m.fn, m.tn, m.unsure_violated + m.unsure_satisfied)
        return rules

    def _spent(self) -> dict:
        """What the run cost: its calls, the refused and failed ones, seconds, tokens and money."""
        tokens = _total(trial.tokens for trial in self.trials)
        cost = _total(trial.cost for trial in self.trials)
        return dict(
            refused=sum(1 for trial in self.trials if trial.problem.startswith("refused")),
            failed=sum(1 for trial in self.trials if trial.problem.startswith("failed")),
            calls=len(self.trials), seconds=round(sum(trial.seconds for trial in self.trials), 3),
            tokens=tokens, cost=None if cost is None else round(cost, 6),
        )


def _total(values):
    """The sum of the values a reviewer reported, or None when it reported none."""
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def _scored(found) -> dict:
    """kappa, precision and recall, with the bounds of each interval when there is one."""
    precision, recall = found.precision_interval, found.recall_interval
    return dict(
        kappa=found.kappa, precision=found.precision, recall=found.recall,
        precision_low=precision.low if precision else None, precision_high=precision.high if precision else None,
        recall_low=recall.low if recall else None, recall_high=recall.high if recall else None,
    )


def run(cases: Sequence[Case], ask: Asker, rules: Mapping[str, RuleCheck], evidence: Callable[[Case], str | None],
        *, group: str, command: Sequence[str] = (), probes: int = 10, seed: int = 0,
        label: Callable[[str, str], str] = lambda source, text: text, model: str = "",
        today: datetime.date | None = None) -> Report:
    """Ask the reviewer about every case and `probes` of them again as each probe varies them."""
    trials: list[Trial] = []
    skipped: list[str] = []
    shown: dict[str, tuple[Result, str]] = {}
    for case in cases:
        rule = rules.get(case.rule)
        if rule is None:
            skipped.append(f"{case.id}: no rule {case.rule} is selected in this repository")
            continue
        excerpt = evidence(case)
        if excerpt is None:
            skipped.append(f"{case.id}: its evidence cannot be shown (see the warning above)")
            continue
        result = Result(case.segment, case.rule, None, revision=rule.revision, status=rule.status,
                        title=rule.title, text=rule.text)
        shown[case.id] = (result, excerpt)
        trials.append(_trial(case, "", result, excerpt, ask, group, label, probing.canary(case.id, seed)))
    chosen = sorted((trial.case for trial in trials),
                    key=lambda case: hashlib.sha256(f"{seed}\0{case.id}".encode()).digest())[:max(probes, 0)]
    for case in chosen:
        trials += _probed(case, *shown[case.id], ask, group, label)
    models = sorted({part for trial in trials for part in trial.model.split(",") if part})
    return Report(group, tuple(command), today or datetime.date.today(), tuple(trials), tuple(skipped),
                  ",".join(models) or model)


def _probed(case: Case, result: Result, excerpt: str, ask: Asker, group: str,
            label: Callable[[str, str], str]) -> list[Trial]:
    """The case asked again under each probe's variant of its evidence (a probe that does not apply: none)."""
    trials = []
    for name in probing.VARIANTS:
        varied = probing.variant(name, excerpt)
        if varied is not None:
            trials.append(_trial(case, name, result, varied, ask, group, label, None))
    return trials


def _trial(case: Case, probe: str, result: Result, excerpt: str, ask: Asker, group: str,
           label: Callable[[str, str], str], canary: str | None) -> Trial:
    text = prompt(result, group, excerpt, lambda body: label(result.source, body), canary=canary)
    start = time.monotonic()
    try:
        answer = ask(case, probe, text)
    except BadAnswer as error:
        return Trial(case, probe, "cannot-tell", f"failed: {error}", time.monotonic() - start, canary=canary is None)
    seconds = time.monotonic() - start
    made_up = fabricated(answer, text)
    if made_up:
        return Trial(case, probe, "cannot-tell", f"refused: quotes text not in its prompt: {made_up[0][:80]!r}",
                     seconds, answer.tokens, answer.cost, answer.model, canary=canary is None)
    quoted = canary is None or any(canary in quote for quote in answer.quotes)
    return Trial(case, probe, answer.verdict, "", seconds, answer.tokens, answer.cost, answer.model, quoted)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


_UNJUDGED = "\0"


def text(report: Report, gate: str | None = _UNJUDGED) -> str:
    """The calibration report as `review calibrate` prints it; `gate`: why the gate stays closed, None
    when it opens (not given: no gate line)."""
    entry = report.calibration()
    found = scores(report.matrix())
    lines = [f"calibration of reviewer group {report.group!r} ({' '.join(report.command)[:100]}), "
             f"model {entry.model or 'not reported'}, {entry.date}",
             f"cases: {entry.cases} scored, {entry.noise} labelled noise (not scored), {len(report.skipped)} skipped",
             "confusion matrix (label ↓, verdict →):   violated  satisfied  cannot-tell",
             f"  violated                               {entry.tp:8}  {entry.fn:9}  {report.matrix().unsure_violated:11}",
             f"  satisfied                              {entry.fp:8}  {entry.tn:9}  {report.matrix().unsure_satisfied:11}"]
    def interval(value):
        return "" if value is None else f" [{value.low:.3f}, {value.high:.3f}]"
    lines.append(f"precision (violated) {_percent(found.precision)}{interval(found.precision_interval)}; "
                 f"recall (violated) {_percent(found.recall)}{interval(found.recall_interval)}; "
                 f"kappa {_percent(found.kappa)}; agreement {_percent(found.agreement)}"
                 f"{interval(found.agreement_interval)} (Wilson 95 %)")
    failures = report.probe_failures()
    lines.append(f"probes: {len(failures)} of {entry.probes} failed (padded, reordered, renamed; canaries)")
    lines += [f"  {line}" for line in failures[:20]]
    lines.append(f"cost: {entry.calls} calls, {entry.seconds:.1f} s, tokens {entry.tokens if entry.tokens is not None else 'not reported'}, "
                 f"cost {entry.cost if entry.cost is not None else 'not reported'}; {entry.refused} answers refused "
                 f"(fabricated quotes), {entry.failed} failed")
    rows = [(ref, agreement) for ref, agreement in entry.rules.items()]
    if rows:
        lines.append("per rule: cases, agreed, missed violations (fn), false alarms (fp), cannot-tell")
        lines += [f"  {ref}: {a.cases}, {a.tp + a.tn}, {a.fn}, {a.fp}, {a.cannot_tell}" for ref, a in rows]
    lines += [f"skipped {line}" for line in report.skipped[:20]]
    if gate == _UNJUDGED:
        pass
    elif gate is not None:
        lines.append(f"gate: closed, verdicts of {report.group!r} stay advisory: {gate}")
    else:
        lines.append(f"gate: open, verdicts of {report.group!r} decide outcomes")
    return "\n".join(lines) + "\n"


# --- the field corpus's repositories --------------------------------------------------------------

PLACEHOLDER = "@RULES@"


def field_checkout(label_file: Path, work: Path, rules_root: Path) -> Path:
    """The field repository of `label_file` (its `<name>.bundle` beside it) cloned into `work` and
    adopted as the field runner adopts it (its manifest body written as rules.toml, the rule source
    at `rules_root`, then `compile`), so that labels judged on compile's outputs see them. Raises
    UserError with the step that failed."""
    import tomllib


    spec = tomllib.loads(label_file.read_text(encoding="utf-8"))
    bundle = label_file.with_suffix(".bundle")
    repo = work / label_file.stem
    done = subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(repo)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise UserError(f"git clone of {bundle.name} failed: {done.stderr.strip()[-300:]}", file=bundle,
                        fix="give a label file with its bundle beside it")
    body = spec.get("manifest", {}).get("body", "")
    if PLACEHOLDER not in body:
        raise UserError(f"[manifest] body has no {PLACEHOLDER}", file=label_file, field="manifest.body",
                        fix="use a field corpus label file")
    (repo / "rules.toml").write_text(body.replace(PLACEHOLDER, str(rules_root)), encoding="utf-8")
    (repo / "cache").mkdir(exist_ok=True)
    (repo / "cache" / ".gitignore").write_text("*\n", encoding="utf-8")
    env = {key: value for key, value in __import__("os").environ.items() if key not in ("CI", "GITHUB_ACTIONS")}
    env["AGENT_CONSTITUTION_CACHE"] = str(work / "user-cache")
    env["AGENT_CONSTITUTION_CONFIG"] = str(work / "user-config")
    done = subprocess.run([sys.executable, "-c", "import sys\nfrom agent_constitution.cli import main\n"
                           "sys.exit(main(['-q', 'compile']))"], cwd=repo, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise UserError(f"compile of the adopted {label_file.stem} failed: {(done.stderr or done.stdout).strip()[-300:]}",
                        file=label_file, fix="run the field runner on it to see why")
    return repo


class FieldEvidence:
    """The evidence of field cases: each repository adopted once, each case as its check's inputs show it."""

    def __init__(self, rules_root: Path):
        self.rules_root = rules_root
        self._work = Path(tempfile.mkdtemp(prefix="agc-calibrate-"))
        self._readers: dict[str, tuple | None] = {}

    def __call__(self, case: Case) -> str | None:
        if case.files:
            return shown_files(dict(case.files))
        if case.origin not in self._readers:
            try:
                repo = field_checkout(Path(case.origin), self._work, self.rules_root)
                selection = select(repo, repo / "cache")
                rules = {(segment, rule.ref): rule for segment, found in selection.rules.items() for rule in found}
                self._readers[case.origin] = (Reader(Subjects(scan(repo), selection.segments)), rules)
            except UserError as error:
                print(f"warning: the cases of {Path(case.origin).name} are skipped: {error}", file=sys.stderr)
                self._readers[case.origin] = None
        found = self._readers[case.origin]
        if found is None:
            return None
        reader, rules = found
        rule = rules.get((case.segment, case.rule))
        if rule is None:
            return None
        result = Result(case.segment, case.rule, None, check=rule.check.describe if rule.check else None,
                        subject=rule.check.subject if rule.check else "repository", revision=rule.revision)
        return reader.evidence(result, rule).excerpt

    def close(self) -> None:
        import shutil

        shutil.rmtree(self._work, ignore_errors=True)


def case_files(root: Path, names: str) -> list[Path]:
    """The label files `cases=` names (comma-separated files or folders; a folder: its *.toml), by
    default the project's rules.cases.toml and the field corpus folder when they exist."""
    wanted = [part.strip() for part in names.split(",") if part.strip()] or [
        name for name in (CASES_FILE, "bench/field/corpus") if (root / name).exists()]
    files: list[Path] = []
    for name in wanted:
        path = (root / name) if not Path(name).is_absolute() else Path(name)
        if path.is_dir():
            files += sorted(path.glob("*.toml"))
        elif path.is_file():
            files.append(path)
        else:
            raise UserError(f"--cases {name}: no such file or folder", fix="give label files or folders of them")
    if not files:
        raise UserError("no labelled cases to calibrate on",
                        fix="write rules.cases.toml (docs/checks.md, \"Calibrating a reviewer\") or pass cases=FOLDER")
    return files


def calibrate(root: Path, cache: Path, *, group: str = "", cases: str = "", probes: int = 10, seed: int = 0,
              rules_root: str = "", today: datetime.date | None = None) -> str | None:
    """`review calibrate`: run the group's reviewer on the cases, print the report, put it on record.
    Bad input raises UserError (the task fails with exit 2); a refusal in CI is returned."""
    selection = select(root, cache)
    name, settings, reviewer = _reviewer(selection.reviewers, group)
    refused = in_ci(root, selection.reviewers)
    if refused is not None:
        return refused
    found = [case for path in case_files(root, cases) for case in reading.read(path)]
    known = {rule.ref: rule for rules in selection.rules.values() for rule in rules}
    evidence = FieldEvidence(Path(rules_root) if rules_root else root)
    try:
        report = run(found, lambda case, probe, text: ask(reviewer, text, reviewer.timeout)[0], known,
                     evidence, group=name, command=reviewer.command, probes=probes, seed=seed,
                     label=labeller(root, cache), model=_model_flag(reviewer.command), today=today)
    finally:
        evidence.close()
    key = review_key()
    record.recorded(root, report.calibration(), key)
    gate = record.gate(record.read(root), name, reviewer.command, settings, key)
    print(text(report, gate), end="")
    print(f"recorded in {record.CALIBRATION_FILE}")
    return None


def _reviewer(reviewers, group: str):
    """The group to calibrate (`group`, else the one group with a reviewer command), its settings and
    its `Reviewer`."""
    with_command = [name for name, settings in reviewers.items() if Reviewer.from_settings(name, settings) is not None]
    name = group or (with_command[0] if len(with_command) == 1 else "")
    if not name:
        raise UserError("name the reviewer group to calibrate" if with_command else
                        "no [review] group has a reviewer command to calibrate",
                        file=MANIFEST, field="review",
                        fix=f"pass --group NAME (one of {', '.join(with_command)})" if with_command
                        else "set preset or command in a [review.<group>] table")
    settings = reviewers.get(name)
    reviewer = None if settings is None else Reviewer.from_settings(name, settings)
    if reviewer is None:
        raise UserError(f"[review.{name}] has no reviewer command", file=MANIFEST, field=f"review.{name}",
                        fix="set preset or command in it")
    return name, settings, reviewer


def _model_flag(command: Sequence[str]) -> str:
    """The model a command names (`--model M`, `-m M`, `--model=M`), or ""."""
    for index, part in enumerate(command):
        if part in ("--model", "-m") and index + 1 < len(command):
            return command[index + 1]
        if part.startswith("--model="):
            return part.partition("=")[2]
    return ""
