"""Budgets, what each preset's output says it spent, and the audit's choice of passing results."""

from __future__ import annotations

import datetime
import json

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.reviewer import parse
from agent_constitution.checks.verdicts import Memory, Proposal, Recorded
from agent_constitution.review import answers
from agent_constitution.review.audit import choose, risk
from agent_constitution.review.budget import RunCaps, Spent

ANSWER = json.dumps({"verdict": "violated", "reason": "r", "locations": [], "quotes": []})
SUBJECT = "sha256:" + "0" * 64


def test_each_preset_reports_what_its_cli_prints():
    claude = parse("claude", json.dumps({"result": ANSWER, "total_cost_usd": 0.0123, "modelUsage": {"claude-x": {}},
                                         "usage": {"input_tokens": 10, "output_tokens": 5,
                                                   "cache_read_input_tokens": 100, "cache_creation_input_tokens": 1}}))
    assert (claude.tokens, claude.cost, claude.model) == (116, 0.0123, "claude-x")
    codex = parse("codex", "\n".join(json.dumps(event) for event in (
        {"type": "item.completed", "item": {"type": "agent_message", "text": ANSWER}},
        {"type": "turn.completed", "usage": {"input_tokens": 40, "cached_input_tokens": 30, "output_tokens": 2}})))
    assert (codex.tokens, codex.cost, codex.model) == (42, None, "")
    gemini = parse("gemini", json.dumps({"response": ANSWER, "stats": {"models": {
        "gemini-2.5-pro": {"tokens": {"total": 70}}, "gemini-2.5-flash": {"tokens": {"total": 7}}}}}))
    assert (gemini.tokens, gemini.cost, gemini.model) == (77, None, "gemini-2.5-flash,gemini-2.5-pro")
    plain = parse("answer", ANSWER)
    assert (plain.tokens, plain.cost, plain.verdict) == (None, None, "violated")
    # Nonsense where a count belongs is no count, never an exception.
    odd = parse("claude", json.dumps({"result": ANSWER, "total_cost_usd": "a lot", "usage": {"input_tokens": -5}}))
    assert (odd.tokens, odd.cost) == (0, None)


def test_a_budget_says_which_cap_is_spent():
    spent = Spent(RunCaps(calls=3, tokens=100, cost=0.05), "the run")
    assert spent.exhausted() is None
    spent.spend(60, None)
    assert spent.exhausted() is None and spent.reported
    spent.spend(60, 0.01)
    assert spent.exhausted() == "the run's budget of 100 tokens is spent (120 reported)"
    unreported = Spent(RunCaps(tokens=1, cost=0.01), "group g")
    for _ in range(5):
        unreported.spend(None, None)
    assert unreported.exhausted() is None and not unreported.reported   # a cap on what is never reported
    assert Spent(RunCaps(seconds=0.0), "group g").exhausted() == "group g's budget of 0 seconds is spent"


@given(st.lists(st.tuples(st.integers(0, 500), st.floats(0, 1)), max_size=30), st.integers(1, 20))
def test_spending_stops_at_the_first_cap_reached(spends, calls):
    spent = Spent(RunCaps(calls=calls, tokens=1000, cost=1.0), "the run")
    for tokens, cost in spends:
        if spent.exhausted():
            break
        spent.spend(tokens, cost)
    assert spent.calls <= calls
    assert spent.tokens < 1000 + 500 and spent.cost < 1.0 + 1.0


def passing(ref: str, revision: int = 1) -> Result:
    return Result(".", ref, Outcome.PASS, revision=revision)


def test_the_audit_takes_the_riskiest_passing_results_first():
    results = [passing("ac:1"), passing("ac:2", 3), passing("ac:3"), passing("ac:4"),
               Result(".", "ac:5", Outcome.VIOLATION)]
    memory = Memory(
        verdicts=tuple(Recorded(ref, ".", revision, SUBJECT, "pass", "satisfied", "r", "g")
                       for ref, revision in (("ac:1", 1), ("ac:2", 2), ("ac:3", 1), ("ac:4", 1))),
        proposals=(Proposal("ac:3", 1, "false-positive", ".", "python:r3", "violation", "r", "g", SUBJECT),),
    )
    # ac:3 has a proposal on record (2), ac:2's check changed since its verdict (1), ac:1 and ac:4 neither.
    assert [risk(result, memory) for result in results[:4]] == [0.0, 1.0, 2.0, 0.0]
    day = datetime.date(2026, 12, 2)
    chosen = choose(results, 3, memory, day)
    assert [result.ref for result in chosen[:2]] == ["ac:3", "ac:2"] and chosen[2].ref in ("ac:1", "ac:4")
    assert all(result.outcome is Outcome.PASS for result in choose(results, 10, memory, day))
    assert len(choose(results, 10, memory, day)) == 4 and choose(results, 0, memory, day) == []
    # Among the equally risky, other days draw others in time.
    thirds = {choose(results, 3, memory, day + datetime.timedelta(days=n))[2].ref for n in range(20)}
    assert thirds == {"ac:1", "ac:4"}


def test_a_never_judged_rule_counts_as_changed():
    assert risk(passing("ac:9"), Memory()) == 1.0


def test_the_answer_cache_keeps_and_misses(tmp_path):
    name = answers.key(("claude", "-p"), "ac:2", 1, ".", SUBJECT)
    assert name != answers.key(("claude", "-p"), "ac:2", 2, ".", SUBJECT)
    assert answers.recall(name, tmp_path) is None
    answers.keep(name, "raw answer", tmp_path)
    assert answers.recall(name, tmp_path) == "raw answer"
    (tmp_path / name[:2] / f"{name}.json").write_text("{not json")
    assert answers.recall(name, tmp_path) is None
    (tmp_path / "blocked").write_text("a file where the folder goes")
    answers.keep(name, "raw", tmp_path / "blocked")        # cannot be written: no error
