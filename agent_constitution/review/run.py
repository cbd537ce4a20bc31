"""`doit review`: ask each reviewer group's command about its queue, and record the answers.

Only `doit review` imports this module (the reviewer clients, the verdict memory, the budgets and
the answer cache come with it); `checks.stage` keeps the check run's own stages.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.checks.evidence import Reader, fixture
from agent_constitution.checks.model import Result
from agent_constitution.checks.queues import ITEMS_FILE, group_of, labeller
from agent_constitution.checks.report import read_report
from agent_constitution.checks.reviewer import BadAnswer, Reviewer, ask, fabricated, in_ci, order, parse, prompt
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.scan import scan
from agent_constitution.checks.selection import Selection, select
from agent_constitution.checks.verdicts import (
    REVIEW_FILE, Memory, Recorded, answer_digest, propose, read_memory, review_key, seal, state, write_memory,
)
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.layout import CHECKS, MANIFEST, REVIEW
from agent_constitution.review import answers
from agent_constitution.review.budget import RunCaps, Spent, group_caps


@dataclass(frozen=True)
class Item:
    """One queued (or audited) result with the evidence its reviewer sees."""

    group: str
    result: Result
    digest: str
    excerpt: str
    files: tuple[str, ...]


def run_reviewers(root: Path, cache: Path, *, audit: int = 0, caps=None, today: datetime.date | None = None
                  ) -> str | None:
    """`doit review`: ask each group's reviewer command about the items of its queue that have no
    recorded verdict on their current subject (and, with `audit`, that many passing results, the
    riskiest first: review/audit.py), within the run's and the group's budgets (review/budget.py);
    an answer cached for the same command and subject (review/answers.py) is used instead of a call.
    Record every answer in `rules.review.toml`, with a proposal (and its draft) for each one that
    disagrees with the check. A reviewer that fails, answers what is not an answer, or quotes text
    its prompt does not hold, leaves its item queued with the reason (`cache/review/left.json`, and
    printed)."""
    folder = cache / REVIEW
    items_file = folder / ITEMS_FILE
    if not items_file.is_file():
        return str(UserError("no review queue yet", file=items_file, fix="run `doit check` first"))
    try:
        selection = select(root, cache)
        memory = read_memory(root)
    except UserError as error:
        return str(error)
    refused = in_ci(root, selection.reviewers)
    if refused is not None:
        return refused
    try:
        items = _queued(items_file) + _audited(root, cache, selection, memory, audit, today)
    except UserError as error:
        return str(error)
    asking = _Asking(root, folder, selection, memory, Spent(caps or RunCaps(), "the run"))
    for group in dict.fromkeys(item.group for item in items):
        asking.group(group, [item for item in items if item.group == group])
    asking.report()
    return None


def _cached(reviewer: Reviewer, raw: str | None, text: str):
    """The cached answer for this prompt when it parses and quotes nothing the prompt does not hold."""
    try:
        answer = None if raw is None else parse(reviewer.output, raw)
    except BadAnswer:
        return None
    return answer if answer is not None and not fabricated(answer, text) else None


class _Asking:
    """One `doit review` run: the verdicts and proposals so far, what was left queued, and the counts."""

    def __init__(self, root: Path, folder: Path, selection: Selection, memory: Memory, run_spent: Spent) -> None:
        self.root, self.folder, self.selection, self.memory = root, folder, selection, memory
        self.label = labeller(root, folder.parent)
        self.key = review_key()
        self.verdicts = {verdict.key: verdict for verdict in memory.verdicts}
        self.proposals = {(p.rule, p.segment, p.subject): p for p in memory.proposals}
        self.left: list[dict] = []
        self.asked = self.answered = self.cached = 0
        self.run_spent = run_spent

    def group(self, group: str, items: list[Item]) -> None:
        settings = self.selection.reviewers.get(group)
        reviewer = None if settings is None else Reviewer.from_settings(group, settings)
        budget = None if reviewer is None else Spent(group_caps(settings), f"group {group}")
        for item in order(items):
            result = item.result
            if (result.ref, result.segment, item.digest) in self.verdicts:
                continue
            if budget is None:
                answer, raw = None, None
                why = f'group "{group}" has no command: set preset or command in [review.{group}] of {MANIFEST}'
            else:
                answer, raw, why = self._answer(item, reviewer, budget)
            if why is not None:
                self.left.append({"group": group, "rule": result.ref, "segment": result.segment, "reason": why})
                continue
            self.answered += 1
            self._record(item, group, reviewer, answer, raw)

    def _answer(self, item: Item, reviewer: Reviewer, budget: Spent):
        """(answer, raw answer, None), or (None, raw, why not): from the answer cache, else asked."""
        result = item.result
        text = prompt(result, item.group, item.excerpt, lambda body: self.label(result.source, body))
        name = answers.key(reviewer.command, result.ref, result.revision, result.segment, item.digest)
        raw = answers.recall(name)
        answer = _cached(reviewer, raw, text)
        if answer is not None:
            self.cached += 1
            return answer, raw, None
        why = self.run_spent.exhausted() or budget.exhausted()
        if why is not None:
            return None, None, why
        self.asked += 1
        try:
            answer, raw = ask(reviewer, text, min(reviewer.timeout, max(min(budget.left(), self.run_spent.left()), 0.1)))
        except BadAnswer as error:
            why, raw, answer = str(error), getattr(error, "raw", ""), None
        for scope in (self.run_spent, budget):
            scope.spend(answer.tokens if answer else None, answer.cost if answer else None)
        if answer is not None:
            made_up = fabricated(answer, text)
            if made_up:
                why, answer = f"answer refused: it quotes text that is not in its prompt ({made_up[0][:80]!r})", None
            else:
                answers.keep(name, raw)
        _log(self.folder, item, reviewer, text, raw, why)
        return answer, raw, why

    def _record(self, item: Item, group: str, reviewer: Reviewer, answer, raw: str) -> None:
        """What the reviewer was and a digest of what it answered; sealed when the team's key is set."""
        result = item.result
        recorded = Recorded(rule=result.ref, segment=result.segment, revision=result.revision,
                            subject=item.digest, check_said=state(result), verdict=answer.verdict,
                            reason=answer.reason, reviewer=group, locations=answer.locations,
                            command=reviewer.command, answer=answer_digest(raw))
        if self.key is not None:
            recorded = dataclasses.replace(recorded, seal=seal(recorded, self.key))
        self.verdicts[recorded.key] = recorded
        source = self.selection.sources.get(result.source)
        proposal = propose(self.root, result, recorded, fixture(self.root, item.files),
                           Path(source["root"]) if source else None)
        if proposal is not None:
            self.proposals[(proposal.rule, proposal.segment, proposal.subject)] = proposal
        # After every answer: an interrupted run keeps what it paid for.
        write_memory(self.root, Memory(tuple(self.verdicts.values()), tuple(self.proposals.values())))

    def report(self) -> None:
        write_if_changed(self.folder / "left.json", json.dumps({"left": self.left}, indent=1, ensure_ascii=False) + "\n")
        new = len(self.proposals) - len(self.memory.proposals)
        print(f"asked {self.asked} item{'s' if self.asked != 1 else ''}, {self.answered} answered"
              f"{f' ({self.cached} from the answer cache)' if self.cached else ''}; "
              f"{new} new proposal{'s' if new != 1 else ''} to fix a check; verdicts in {REVIEW_FILE}")
        spent = self.run_spent
        reported = f"{spent.tokens} tokens, {spent.cost:.4f} USD reported" if spent.reported \
            else "no tokens or cost reported by the reviewers"
        print(f"spent: {spent.calls} call{'s' if spent.calls != 1 else ''}, "
              f"{time.monotonic() - spent.started:.1f} s, {reported}")
        for item in self.left:
            print(f"left queued: {item['rule']} in {item['segment']} ({item['group']}): {item['reason']}",
                  file=sys.stderr)


def _queued(items_file: Path) -> list[Item]:
    return [Item(item["group"], Result.from_json(item["result"]), item["digest"], item["excerpt"],
                 tuple(item["files"]))
            for item in json.loads(items_file.read_text(encoding="utf-8"))["items"]]


def _audited(root: Path, cache: Path, selection: Selection, memory: Memory, n: int,
             today: datetime.date | None) -> list[Item]:
    """The passing results of the last report chosen for the audit (`n` of them), as queue items with
    their evidence."""
    if n <= 0:
        return []
    from agent_constitution.review.audit import choose  # lazy: only an audit chooses results

    report = cache / CHECKS / "report.json"
    if not report.is_file():
        raise UserError("no check report yet", file=report, fix="run `doit check` first")
    chosen = choose(read_report(report), n, memory, today)
    rules = {(segment, rule.ref): rule for segment, found in selection.rules.items() for rule in found}
    reader = Reader(Subjects(scan(root), selection.segments))
    items = []
    for result in chosen:
        seen = reader.evidence(result, rules.get((result.segment, result.ref)))
        items.append(Item(group_of(result.ref, selection.review), result, seen.digest, seen.excerpt, seen.files))
    return items


def _log(folder: Path, item: Item, reviewer, text: str, raw: str, why: str | None) -> None:
    """The prompt and the reviewer's raw answer, for audit: one file per item and subject."""
    name = f"{item.result.ref.replace(':', '-')}-{item.digest.removeprefix('sha256:')[:16]}.json"
    write_if_changed(folder / "log" / name, json.dumps({
        "rule": item.result.ref, "segment": item.result.segment, "subject": item.digest, "group": item.group,
        "command": list(reviewer.command), "prompt": text, "answer": raw, "error": why,
    }, indent=1, ensure_ascii=False) + "\n")
