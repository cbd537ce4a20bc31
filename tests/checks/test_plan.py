"""Planning: input sets shared between checks, their digests, and what gets no job."""

from __future__ import annotations

import os
from pathlib import Path

from agent_constitution.checks.plan import plan, write_digest
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.scan import scan
from agent_constitution.checks.selection import Selection

from .conftest import reading, rule, write


def planned(root: Path, rules, segments=(".",), **subjects):
    selection = Selection(tuple(segments), {segment: tuple(rules) for segment in segments}, {})
    return plan(selection, Subjects(scan(root), segments, **subjects), root / "cache")


def test_checks_reading_the_same_files_share_one_input_set(tmp_path: Path):
    write(tmp_path, {"a.py": "1", "b/c.py": "2", "d.md": "3", "rules/checks/r1.py": "", "rules/checks/_util.py": ""})
    result = planned(tmp_path, [
        rule(tmp_path, 1, python="r1", inputs=["**/*.py"]),
        rule(tmp_path, 2, python="r2", inputs=["**/*.py"]),
        rule(tmp_path, 3, python="r3"),
        rule(tmp_path, 4),
    ])
    py, anything = result.inputs
    assert (py.patterns, py.files) == (("**/*.py",), ("a.py", "b/c.py", "rules/checks/_util.py", "rules/checks/r1.py"))
    assert anything.patterns == ("**",) and "d.md" in anything.files
    first, second, third, unchecked = result.jobs
    assert first.file_dep == (tmp_path / "rules/1.toml", tmp_path / "rules/checks/r1.py",
                              tmp_path / "rules/checks/_util.py", py.digest)
    assert second.file_dep[-1] == py.digest and third.file_dep[-1] == anything.digest
    # A rule without a check depends on no file: its result is its revision, status and texts,
    # which the `checks:no-check` task compares.
    assert unchecked.file_dep == () and unchecked.config is None
    assert [group.name for group in result.groups] == ["ac:1", "ac:2", "ac:3", "no-check"]


def test_digest_follows_content_not_timestamps(tmp_path: Path):
    write(tmp_path, {"a.py": "1"})
    [inputs] = planned(tmp_path, [rule(tmp_path, 1, python="r1", inputs=["*.py"])]).inputs

    def run() -> str:  # each run scans and reads afresh
        write_digest(inputs, Subjects(scan(tmp_path)))
        return inputs.digest.read_text()

    first = run()
    os.utime(tmp_path / "a.py", (1, 1))
    assert run() == first
    write(tmp_path, {"a.py": "2"})
    assert run() != first


def test_a_run_reads_each_file_once_for_the_digests_and_the_checks(tmp_path: Path, monkeypatch):
    write(tmp_path, {"a.py": "x = 1\n"})
    subjects = Subjects(scan(tmp_path))
    [inputs] = planned(tmp_path, [rule(tmp_path, 1, python="r1", inputs=["*.py"])]).inputs
    reads = []
    reading(monkeypatch, reads)
    write_digest(inputs, subjects)
    view = subjects.get("repository", ".")
    assert view.text("a.py") == view.read_text("a.py") == "x = 1\n"
    assert [name for name in reads if name == "a.py"] == ["a.py"]


def test_superseded_repealed_and_missing_subjects_get_no_job(tmp_path: Path):
    superseded = rule(tmp_path, 1, python="r1", status="superseded")
    repealed = rule(tmp_path, 2, python="r1", status="repealed")
    change = rule(tmp_path, 3, python="r3", subject="change")
    record = rule(tmp_path, 4, python="r4", subject="record")
    result = planned(tmp_path, [superseded, repealed, change, record])
    assert result.jobs == ()
    assert result.not_run == ("ac:3 in .: checks a change (run with change=staged or change=A..B)",
                              "ac:4 in .: checks a session record (run with record=PATH)")
    selection = Selection((".",), {".": (superseded, repealed)}, {})
    by_id = plan(selection, Subjects(scan(tmp_path)), tmp_path / "cache", only=("ac:1", "ac:2"))
    assert [job.rule.ref for job in by_id.jobs] == ["ac:1"]


def test_a_repository_scoped_rule_is_judged_once_at_the_root_over_every_file(tmp_path: Path):
    write(tmp_path, {"top.md": "1", "svc/a.md": "2", "web/b.md": "3"})
    whole = rule(tmp_path, 1, python="r1", scope="repository", inputs=["**/*.md"])
    per_segment = rule(tmp_path, 2, python="r2", inputs=["**/*.md"])
    result = planned(tmp_path, [whole, per_segment], segments=(".", "svc", "web"))
    assert [(job.segment, job.rule.ref) for job in result.jobs] == [
        (".", "ac:1"), (".", "ac:2"), ("svc", "ac:2"), ("web", "ac:2")]
    files = {(inputs.segment, inputs.patterns): inputs.files for inputs in result.inputs}
    assert set(files) == {(".", ("**/*.md",)), ("svc", ("**/*.md",)), ("web", ("**/*.md",))}
    by_scope = sorted(inputs.files for inputs in result.inputs if inputs.segment == ".")
    assert by_scope == [("svc/a.md", "top.md", "web/b.md"), ("top.md",)]


def test_a_segment_check_may_depend_on_files_of_the_whole_repository(tmp_path: Path):
    write(tmp_path, {".gitattributes": "*.bin filter=lfs\n", "svc/x.bin": "1", "svc/.gitattributes": ""})
    checked = rule(tmp_path, 1, python="r1", inputs=["**/*", "/**/.gitattributes"])
    result = planned(tmp_path, [checked], segments=(".", "svc"))
    svc = next(inputs for inputs in result.inputs if inputs.segment == "svc")
    assert svc.files == ("svc/.gitattributes", "svc/x.bin", ".gitattributes")


def test_a_rule_not_run_is_listed_once_with_its_segments(tmp_path: Path):
    record = rule(tmp_path, 4, python="r4", subject="record")
    result = planned(tmp_path, [record], segments=(".", "svc", "web"))
    assert result.not_run == ("ac:4 in ., svc, web: checks a session record (run with record=PATH)",)


def test_a_result_never_lands_outside_the_cache(tmp_path: Path):
    import pytest

    from agent_constitution.errors import UserError

    from dataclasses import replace

    write(tmp_path, {"a.py": "1"})
    # A result is named by its rule, not its segment: a segment path leading out changes no target.
    result = planned(tmp_path, [rule(tmp_path, 1, python="r1")], segments=("../../../../elsewhere",))
    assert [group.result for group in result.groups] == [tmp_path / "cache/checks/results/ac-1.json"]
    with pytest.raises(UserError, match="not a name a result file can have"):
        planned(tmp_path, [replace(rule(tmp_path, 1, python="r1"), source="../../x")])
    assert not (tmp_path.parent / "elsewhere").exists()


def test_the_checks_that_judge_files_one_at_a_time_are_the_plans_in_its_order(tmp_path: Path):
    from agent_constitution.checks.stage import _file_checks, _python_of_repository

    write(tmp_path, {"a/x.py": "1", "b/y.py": "2"})
    rules = [rule(tmp_path, 3, python="r3"), rule(tmp_path, 1, python="r1"), rule(tmp_path, 2, command=["true"]),
             rule(tmp_path, 4, python="r4", trusted=False), rule(tmp_path, 5, python="r5", scope="repository"),
             rule(tmp_path, 6)]
    result = planned(tmp_path, rules, segments=(".", "a", "b"))
    expected = tuple((job.segment, job.rule) for job in result.jobs if _python_of_repository(job.rule))
    assert [(segment, job.ref) for segment, job in expected] == [
        (".", "ac:3"), (".", "ac:1"), (".", "ac:5"), ("a", "ac:3"), ("a", "ac:1"), ("b", "ac:3"), ("b", "ac:1")]
    assert _file_checks(result) == expected
    assert _file_checks(planned(tmp_path, rules[2:4] + rules[5:])) == ()
