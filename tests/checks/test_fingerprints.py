"""Fingerprints are a function of the finding (rule, path, words), not of its line; the baseline file
is canonical (the same findings give the same bytes) and reads back what it wrote."""

from __future__ import annotations

import datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.checks import baseline
from agent_constitution.checks.api import Finding
from agent_constitution.checks.fingerprints import fingerprint, printed, unique
from agent_constitution.checks.model import Outcome, Result

reasons = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)
paths = st.one_of(st.none(), st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}\.(py|yml|md)", fullmatch=True))
findings = st.lists(st.builds(Finding, reasons, paths, st.one_of(st.none(), st.integers(1, 500))), max_size=12)


def violation(found, segment=".", ref="ac:1") -> Result:
    return Result(segment=segment, ref=ref, outcome=Outcome.VIOLATION, findings=tuple(found), title="Rule 1")


@given(findings, st.integers(1, 50))
def test_moving_findings_down_keeps_their_fingerprints(found, shift):
    moved = [Finding(f.reason, f.path, None if f.line is None else f.line + shift) for f in found]
    assert sorted(p.fingerprint for p in printed(violation(found))) == \
        sorted(p.fingerprint for p in printed(violation(moved)))


@given(findings)
def test_every_finding_of_a_result_has_its_own_fingerprint(found):
    prints = [p.fingerprint for p in printed(violation(found))]
    assert len(set(prints)) == len(prints)


@given(findings)
def test_a_shared_finding_is_one_problem_naming_its_segments(found):
    pathless = [Finding(f.reason) for f in found]
    problems = unique([violation(pathless, segment) for segment in (".", "a", "b")])
    assert len(problems) == len({p.fingerprint for p in printed(violation(pathless))})
    assert all(p.segments == (".", "a", "b") for p in problems)


def test_the_words_count_not_the_spacing():
    assert fingerprint("ac:1", "a.yml", "not  pinned\n") == fingerprint("ac:1", "a.yml", "not pinned")
    assert fingerprint("ac:1", "a.yml", "x") != fingerprint("ac:2", "a.yml", "x") != fingerprint("ac:1", "b.yml", "x")
    assert fingerprint("ac:1", "a.yml", "x", 2).endswith("#2")


@settings(max_examples=50)
@given(st.lists(st.tuples(st.sampled_from(["ac:1", "ac:12", "team:3"]), findings), max_size=4),
       st.randoms(use_true_random=False))
def test_the_baseline_is_canonical_and_reads_back(tmp_path_factory, groups, shuffle):
    results = [violation(found, ref=ref) for ref, found in groups]
    entries = baseline.entries(results)
    text = baseline.dumps(entries)
    shuffled = list(results)
    shuffle.shuffle(shuffled)
    assert baseline.dumps(baseline.entries(shuffled)) == text  # order of results does not matter
    root = tmp_path_factory.mktemp("b")
    (root / "rules.baseline.toml").write_text(text, encoding="utf-8")
    read = baseline.read(root)
    assert [e.fingerprint for e in read.finding] == [e.fingerprint for e in entries]
    applied = baseline.apply(results, read, datetime.date(2026, 12, 1))
    assert all(r.outcome is Outcome.PASS for r in applied.results) and not applied.stale


def test_the_baseline_keeps_until_of_entries_it_writes_again(tmp_path: Path):
    found = [Finding("not pinned", "a.yml", 3)]
    [entry] = baseline.entries([violation(found)])
    kept = baseline.BaselineFile(finding=(entry.model_copy(update={"until": datetime.date(2027, 1, 1)}),))
    [again] = baseline.entries([violation(found)], kept)
    assert again.until == datetime.date(2027, 1, 1)
    assert "until = 2027-01-01" in baseline.dumps([again])


def test_without_detail_what_does_not_fail_is_counted_not_listed():
    from agent_constitution.checks.report import summary

    old = Result(segment=".", ref="ac:1", outcome=Outcome.PASS, title="Rule 1",
                 preexisting=(Finding("not pinned", "a.yml", 3),), baselined=(Finding("no permissions", "b.yml"),))
    short = summary([old], detail=False)
    assert "pre-existing: in the base of the change, not failing it (1; -v lists them)\n" in short
    assert "accepted by rules.baseline.toml (1; -v lists them)\n" in short and "a.yml" not in short
    full = summary([old])
    assert "  ac:1: a.yml:3: not pinned\n" in full and "  ac:1: b.yml: no permissions\n" in full
