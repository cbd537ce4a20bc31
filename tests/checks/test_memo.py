"""Results kept by what they were judged on: per file for `check_file` modules, per check for every check."""

from __future__ import annotations

from pathlib import Path

from agent_constitution.checks.model import Outcome
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan
from agent_constitution.checks.plan import Job
from agent_constitution.checks.stage import check_one

from .conftest import make_source, reading, rule, write

# Logs every file it judges, so a test sees which files were judged again (the check runs in a worker).
PER_FILE = '''\
from agent_constitution.checks.api import Finding

RULE = 1


def check(repo):
    raise AssertionError("the runner calls check_file")


def check_file(path, text):
    with open({log!r}, "a") as log:
        log.write(path + "\\n")
    return [Finding("TODO left", path, number) for number, line in enumerate(text.splitlines(), 1) if "TODO" in line]
'''


def judged(log: Path) -> list[str]:
    judged = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return sorted(judged)


def test_an_unchanged_file_is_not_judged_again(tmp_path: Path):
    root, log = tmp_path / "repo", tmp_path / "judged.log"
    make_source(root, {}, {"r1": PER_FILE.format(log=str(log))})
    write(root, {"a.py": "x = 1  # TODO\n", "b.py": "y = 2\n", "data.bin": "\0\0"})
    check = rule(root, python="r1", inputs=["*.py", "*.bin"])

    def run():
        return run_check(check, ".", Subjects(scan(root), memo=tmp_path / "memo"))

    first = run()
    assert judged(log) == ["a.py", "b.py"]  # a binary is not text: not judged
    assert first.outcome is Outcome.VIOLATION and [(f.path, f.line) for f in first.findings] == [("a.py", 1)]
    assert run() == first and judged(log) == []
    write(root, {"b.py": "y = 3  # TODO\n"})
    again = run()
    assert judged(log) == ["b.py"]
    assert [(f.path, f.line) for f in again.findings] == [("a.py", 1), ("b.py", 1)]


def test_a_new_check_version_judges_every_file_again(tmp_path: Path):
    root, log = tmp_path / "repo", tmp_path / "judged.log"
    make_source(root, {}, {"r1": PER_FILE.format(log=str(log))})
    write(root, {"a.py": "x = 1\n"})
    check = rule(root, python="r1", inputs=["*.py"])
    run_check(check, ".", Subjects(scan(root), memo=tmp_path / "memo"))
    judged(log)
    write(root, {"rules/checks/r1.py": PER_FILE.format(log=str(log)) + "# changed\n"})
    run_check(check, ".", Subjects(scan(root), memo=tmp_path / "memo"))
    assert judged(log) == ["a.py"]


WHOLE = '''\
from agent_constitution.checks.api import Finding

RULE = 1


def check(repo):
    with open({log!r}, "a") as log:
        log.write("ran\\n")
    return [] if "ok" in repo.read_text("a.txt") else [Finding("not ok", "a.txt")]
'''


def test_a_result_is_kept_for_the_check_and_its_inputs(tmp_path: Path):
    """A state seen before (a branch switched back) is answered from the memo, without running."""
    root, log = tmp_path / "repo", tmp_path / "judged.log"
    make_source(root, {}, {"r1": WHOLE.format(log=str(log))})
    write(root, {"a.txt": "ok\n"})
    check = rule(root, python="r1", inputs=["a.txt"])
    job = Job(".", check, (root / "rules/checks/r1.py", root / "a.txt"), {"revision": 1})

    def run() -> str:
        return check_one(job, Subjects(scan(root), memo=root / "cache/checks/memo")).outcome.value

    assert run() == "pass" and judged(log) == ["ran"]
    write(root, {"a.txt": "bad\n"})
    assert run() == "violation" and judged(log) == ["ran"]
    write(root, {"a.txt": "ok\n"})
    assert run() == "pass" and judged(log) == []
    assert run() == "pass" and judged(log) == []
    for kept in (root / "cache/checks/memo/results").glob("*/*.json"):
        kept.write_text("{not json")
    assert run() == "pass" and judged(log) == ["ran"]  # a memo that does not read is judged again, never trusted


def test_undecidable_results_are_not_kept(tmp_path: Path):
    root = tmp_path / "repo"
    make_source(root, {}, {"r1": "RULE = 1\ndef check(repo):\n    return 1 / 0\n"})
    subjects = Subjects(scan(root), memo=root / "cache/checks/memo")
    job = Job(".", rule(root, python="r1"), (), {"revision": 1})
    assert check_one(job, subjects).outcome.value == "undecidable"
    assert not list((root / "cache/checks/memo").glob("results/*/*.json"))


def test_a_check_keeps_its_newest_states_only(tmp_path: Path):
    from agent_constitution.checks import memo

    root = tmp_path / "repo"
    make_source(root, {}, {"r1": "RULE = 1\ndef check(repo):\n    return []\n"})
    result = run_check(rule(root, python="r1"), ".", Subjects(scan(root)))
    name = memo.name("ac", 1, ".")
    for number in range(memo.KEPT_PER_CHECK + 3):
        memo.keep(tmp_path / "memo", name, f"{number:04d}", result)
    assert len(list((tmp_path / "memo/results" / name).iterdir())) == memo.KEPT_PER_CHECK
    assert memo.recall(tmp_path / "memo", name, f"{memo.KEPT_PER_CHECK + 2:04d}") == result


def test_a_settled_unchanged_file_is_not_even_read(tmp_path: Path, monkeypatch):
    import os

    from agent_constitution.checks import memo
    from agent_constitution.checks.api import Finding, Repository

    root = tmp_path / "repo"
    write(root, {"old.py": "# TODO\n", "new.py": "x = 1\n"})
    os.utime(root / "old.py", (1_000_000, 1_000_000))  # long settled; new.py was just written
    check = rule(root, python="r1", inputs=["*.py"])
    judged: list[str] = []

    def check_file(path, text):
        judged.append(path)
        return [Finding("TODO", path, 1)] if "TODO" in text else []

    def run():
        repo = Repository(root, ("new.py", "old.py"))
        return memo.per_file(check_file, repo, check, ".", tmp_path / "memo")

    assert [f.path for f in run()] == ["old.py"] and sorted(judged) == ["new.py", "old.py"]
    judged.clear()
    reads: list[str] = []
    reading(monkeypatch, reads)
    assert [f.path for f in run()] == ["old.py"]
    assert judged == [] and "old.py" not in reads  # new.py is too recent to trust its time: read, not judged
    assert "new.py" in reads
