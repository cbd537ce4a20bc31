"""`doit check` and `doit review-ingest` end to end, in a fresh doit process each time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from .conftest import MANIFEST, PASSING, git, make_source, rule_toml, write
from .test_report import SCHEMA

NO_TODO = '''\
from agent_constitution.checks.api import Finding

RULE = 2


def check(repo):
    return [Finding("TODO left in code", path, number)
            for path in repo.glob("src/*.py")
            for number, line in enumerate(repo.read_text(path).splitlines(), 1) if "TODO" in line]
'''

SMALL_COMMITS = '''\
from agent_constitution.checks.api import Finding

RULE = 6


def check(change):
    return [Finding("more than 2 files in one change")] if len(change.files) > 2 else []
'''


NO_FORCE_PUSH = '''\
from agent_constitution.checks.api import Finding

RULE = 7


def check(record):
    return [Finding("force push") for _, command in record.shell_commands() if "--force" in command]
'''


def doit(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True, env=env)


def executed(run: subprocess.CompletedProcess) -> set[str]:
    """The rule check tasks a run executed (not the report, the summary or the compiled-output comparison, not
    the digests of input sets)."""
    names = {line[3:].strip() for line in run.stdout.splitlines() if line.startswith(".  checks:")}
    return {name for name in names if name not in ("checks:report", "checks:summary", "checks:compiled")
            and not name.startswith("checks:inputs:")}


@pytest.fixture
def project(repo: Path) -> Path:
    marker = repo / "superseded-ran"
    make_source(repo, {
        1: rule_toml(1, 'python = "r1"\ninputs = ["README.md"]', extra="supersedes = 5\n"),
        2: rule_toml(2, 'python = "r2"\ninputs = ["src/*.py"]'),
        3: rule_toml(3),
        4: rule_toml(4, 'command = ["gofmt-missing-here", "-l", "."]\ntools = ["gofmt-missing-here"]'),
        5: rule_toml(5, 'python = "r5"', status="superseded", extra="superseded_by = 1\n"),
        6: rule_toml(6, 'subject = "change"\npython = "r6"'),
        7: rule_toml(7, 'subject = "record"\npython = "r7"'),
    }, {
        "r1": PASSING.format(id=1),
        "r2": NO_TODO,
        "r5": f"open({str(marker)!r}, 'w').close()\nRULE = 5\nSUPERSEDED = True\ndef check(repo):\n    return []\n",
        "r6": SMALL_COMMITS,
        "r7": NO_FORCE_PUSH,
    })
    write(repo, {"src/a.py": "x = 1  # TODO: name this\n", "src/b.py": "y = 2\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def test_check_reports_and_fails_on_a_violation(project: Path):
    run = doit(project, "checks")
    assert run.returncode == 1, run.stdout + run.stderr
    # ac:3 has no check: it is one of the rules of `checks:no-check`.
    assert executed(run) == {"checks:ac:1", "checks:ac:2", "checks:no-check", "checks:ac:4"}
    assert "violations (1)\n  ac:2 Rule 2\n    src/a.py:1: TODO left in code\n" in run.stdout
    assert "missing tool: gofmt-missing-here" in run.stdout
    assert "ac:6 in .: checks a change" in run.stdout
    assert "4 rules checked: 1 passed, 1 violated, 1 undecidable, 1 without a check" in run.stdout
    assert not (project / "superseded-ran").exists()
    report = json.loads((project / "cache/checks/report.json").read_text())
    assert [(r["ref"], r["outcome"]) for r in report["results"]] == [
        ("ac:1", "pass"), ("ac:2", "violation"), ("ac:3", None), ("ac:4", "undecidable")]
    jsonschema.validate(json.loads((project / "cache/checks/report.sarif").read_text()), SCHEMA)
    queue = (project / "cache/review/default.md").read_text()
    assert "## ac:2 in .: violation" in queue and "## ac:3 in .: no check" in queue


def test_unchanged_subject_reruns_nothing(project: Path):
    doit(project, "checks")
    again = doit(project, "checks")
    # Nothing runs again, not even the undecidable check while no folder of PATH changed.
    assert executed(again) == set()
    assert "-- checks:ac:1" in again.stdout and "-- checks:ac:2" in again.stdout and "-- checks:ac:4" in again.stdout
    assert "violations (1)" in again.stdout and again.returncode == 1
    os.utime(project / "src/a.py", (1, 1))  # touched, same content: nothing to re-check
    assert executed(doit(project, "checks")) == set()
    (project / "src/a.py").write_text("x = 1\n")
    fixed = doit(project, "checks")
    assert executed(fixed) == {"checks:ac:2", "checks:ac:4"}  # ac:4 reads every file
    assert fixed.returncode == 0 and "warning: 1 check could not decide" in fixed.stderr
    write(project, {"src/c.py": "# TODO\n"})  # a new file matching an input glob
    assert executed(doit(project, "checks")) == {"checks:ac:2", "checks:ac:4"}


def test_an_undecidable_check_is_decided_again_once_a_tool_may_have_come(project: Path, tmp_path: Path):
    doit(project, "checks")
    tools = tmp_path / "bin"
    tools.mkdir()
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    assert executed(doit(project, "checks", env=env)) == {"checks:ac:4"}  # a new folder on PATH
    assert executed(doit(project, "checks", env=env)) == set()
    (tools / "gofmt-missing-here").write_text("#!/bin/sh\nexit 0\n")
    (tools / "gofmt-missing-here").chmod(0o755)
    os.utime(tools, ns=(1, 1))  # the folder's time changed, as installing a tool changes it
    run = doit(project, "checks", env=env)
    assert executed(run) == {"checks:ac:4"} and "could not decide" not in run.stderr


def test_an_undecidable_result_stands_for_a_while_only():
    from agent_constitution.checks.stage import RETRY_AFTER, retry_undecidable, tool_places

    now = time.time()
    assert retry_undecidable(None, {"outcome": "undecidable", "at": now - 1, "tools": tool_places()}) is True
    assert retry_undecidable(None, {"outcome": "undecidable", "at": now - RETRY_AFTER - 1, "tools": tool_places()}) is False
    assert retry_undecidable(None, {"outcome": "undecidable", "at": now - 1, "tools": "elsewhere"}) is False
    assert retry_undecidable(None, {"outcome": "undecidable"}) is False
    assert retry_undecidable(None, {"outcome": "decided"}) is True
    assert retry_undecidable(None, {}) is None


def test_every_run_ends_with_the_counts_once(project: Path):
    count = "rules checked: "
    failing = doit(project, "checks", "rules=ac:1,ac:2")
    assert failing.returncode == 1 and failing.stdout.count(count) == 1
    assert ".  checks:summary" in failing.stdout  # it prints them and fails; the report does not
    (project / "src/a.py").write_text("x = 1\n")
    passing = doit(project, "checks", "rules=ac:1,ac:2")
    assert passing.returncode == 0 and passing.stdout.count(count) == 1
    assert passing.stdout.rstrip().endswith("2 rules checked: 2 passed, 0 violated, 0 undecidable, 0 without a check")
    again = doit(project, "checks", "rules=ac:1,ac:2")  # nothing changed: the report is up to date
    assert "-- checks:report" in again.stdout and executed(again) == set()
    assert again.stdout.rstrip().endswith("2 rules checked: 2 passed, 0 violated, 0 undecidable, 0 without a check")
    assert again.stdout.count(count) == 1


def test_an_edited_rule_is_seen_by_the_next_run(project: Path):
    """The resolution a run reads from cache/resolved/ is not reused once a rule changed."""
    doit(project, "checks")
    assert (project / "cache/resolved/index.json").is_file()
    rule = project / "rules/2.toml"
    rule.write_text(rule.read_text().replace("revision = 1", "revision = 2"))
    again = doit(project, "checks")
    assert "checks:ac:2" in executed(again)
    report = json.loads((project / "cache/checks/report.json").read_text())
    assert {r["ref"]: r["revision"] for r in report["results"]}["ac:2"] == 2


def test_parallel_run_gives_the_same_report(project: Path):
    assert doit(project, "-n", "2", "checks").returncode == 1
    parallel = (project / "cache/checks/report.json").read_text()
    assert doit(project, "-a", "checks").returncode == 1  # -a: every task again, serially
    assert (project / "cache/checks/report.json").read_text() == parallel


def test_an_up_to_date_report_prints_what_a_fresh_run_lists(project: Path):
    def said(run: subprocess.CompletedProcess) -> list[str]:
        return [line for line in run.stdout.splitlines() if not line.startswith((".  ", "-- "))]

    (project / "src/a.py").write_text("x = 1\n")
    fresh = doit(project, "checks", "change=staged")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    again = doit(project, "checks", "change=staged")
    assert "-- checks:report" in again.stdout  # up to date: nothing but the summary task ran it
    assert "undecidable (1)" in said(fresh) and "  ac:4 Rule 4" in said(fresh)
    assert "review queue: cache/review/default.md" in said(fresh)
    assert said(again) == said(fresh)


def test_undecidable_policy(project: Path):
    (project / "src/a.py").write_text("x = 1\n")
    assert doit(project, "checks").returncode == 0
    strict = doit(project, "checks", "undecidable=fail")
    assert strict.returncode != 0 and "1 check undecidable (undecidable=fail)" in strict.stdout + strict.stderr


def test_superseded_rule_runs_only_when_asked_by_id(project: Path):
    run = doit(project, "checks", "rules=ac:5")
    assert executed(run) == {"checks:ac:5"} and (project / "superseded-ran").exists()
    assert "1 rule checked: 1 passed" in run.stdout


def test_change_subject(project: Path):
    write(project, {"x.txt": "1", "y.txt": "2", "z.txt": "3"})
    git(project, "add", "x.txt", "y.txt", "z.txt")
    run = doit(project, "checks", "change=staged")
    assert "checks:ac:6" in executed(run)
    assert "  ac:6 Rule 6\n    more than 2 files in one change\n" in run.stdout
    assert executed(doit(project, "checks", "change=staged")) == set()  # nothing changed, ac:4 still undecidable
    git(project, "reset", "-q", "z.txt")
    assert "checks:ac:6" in executed(doit(project, "checks", "change=staged"))


def test_untrusted_source_outside_the_repo(project: Path, tmp_path: Path):
    other = tmp_path / "other"
    make_source(other, {1: rule_toml(1, 'python = "r1"')}, {"r1": PASSING.format(id=1)})
    (project / "rules.toml").write_text(MANIFEST.format(name="team", spec=f'{{ path = "{other}" }}'))
    run = doit(project, "checks")
    assert "untrusted source: 'team' is not trusted" in run.stdout and run.returncode == 0
    (project / "rules.toml").write_text(MANIFEST.format(name="team", spec=f'{{ path = "{other}", trust = true }}'))
    assert "1 rule checked: 1 passed" in doit(project, "checks").stdout


def test_bad_manifest_is_one_clear_error(project: Path):
    (project / "rules.toml").write_text("sourcez = 1\n" + MANIFEST.format(name="ac", spec='{ path = "." }'))
    run = doit(project, "checks")
    assert run.returncode != 0 and "error: rules.toml: sourcez: unknown key" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_review_round_trip(project: Path):
    doit(project, "checks")
    (project / "cache/review/default.verdicts.toml").write_text('''
[[verdict]]
rule = "ac:2"
verdict = "satisfied"
reason = "the TODO names an issue, which the rule allows"
location = "src/a.py:1"

[[verdict]]
rule = "ac:1"
verdict = "violated"
reason = "README.md is empty of content"
''')
    run = doit(project, "review-ingest")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 disagreements with the checks (1 false positive, 1 false negative)" in run.stdout
    feedback = (project / "cache/review/feedback/ac.toml").read_text()
    assert 'kind = "false-positive"' in feedback and 'check = "python:r2"' in feedback
    assert 'kind = "false-negative"' in feedback


def test_segments_are_checked_as_their_own_repositories(project: Path):
    with (project / "rules.toml").open("a") as manifest:
        manifest.write('\n[[segment]]\npath = "svc"\n')
    write(project, {"svc/src/x.py": "# TODO in the service\n", "svc/README.md": "svc\n"})
    run = doit(project, "checks")
    # One task per rule, judging it in every segment that selects it: the tasks do not multiply
    # by segments.
    assert "checks:ac:2" in executed(run) and not any("svc/" in name for name in executed(run))
    assert "  ac:2 Rule 2  [svc]\n    svc/src/x.py:1: TODO left in code\n" in run.stdout
    assert "  ac:2 Rule 2\n    src/a.py:1: TODO left in code\n" in run.stdout  # the root does not see svc/
    kept = json.loads((project / "cache/checks/results/ac-2.json").read_text())
    assert [(result["segment"], result["outcome"]) for result in kept] == [(".", "violation"), ("svc", "violation")]


def test_segments_narrows_a_run_to_those_segments(project: Path):
    with (project / "rules.toml").open("a") as manifest:
        manifest.write('\n[[segment]]\npath = "svc"\n')
    write(project, {"svc/src/x.py": "# TODO in the service\n", "svc/README.md": "svc\n"})
    run = doit(project, "checks", "segments=svc", "rules=ac:2")
    assert executed(run) == {"checks:ac:2"} and run.returncode == 1
    assert "  ac:2 Rule 2  [svc]\n    svc/src/x.py:1: TODO left in code\n" in run.stdout
    assert "src/a.py:1" not in run.stdout  # the root segment is not judged
    report = json.loads((project / "cache/checks/report.json").read_text())
    assert [(r["segment"], r["ref"]) for r in report["results"]] == [("svc", "ac:2")]
    whole = doit(project, "checks")
    assert "checks:ac:2" in executed(whole) and "src/a.py:1: TODO" in whole.stdout
    unknown = doit(project, "checks", "segments=nowhere")
    assert unknown.returncode != 0 and "segments=nowhere: nowhere is not a segment of rules.toml" in unknown.stdout + unknown.stderr
    assert "Traceback" not in unknown.stdout + unknown.stderr


def test_one_scan_serves_every_check_of_a_run(project: Path, monkeypatch):
    from agent_constitution.checks import stage

    with (project / "rules.toml").open("a") as manifest:
        manifest.write('\n[[segment]]\npath = "svc"\n')
    write(project, {"svc/README.md": "svc\n"})
    calls = []
    original = stage.scan
    monkeypatch.setattr(stage, "scan", lambda root: calls.append(root) or original(root))
    run = stage.prepare(project, project / "cache")
    assert calls == [project]
    assert len(run.plan.jobs) >= 8 and len({job.segment for job in run.plan.jobs}) == 2


def test_record_subject(project: Path, tmp_path: Path):
    session = tmp_path / "session.jsonl"
    use = {"type": "tool_use", "name": "Bash", "input": {"command": "git push --force"}}
    session.write_text(json.dumps({"type": "assistant", "message": {"content": [use]}}) + "\n")
    run = doit(project, "checks", f"record={session}")
    assert "checks:ac:7" in executed(run) and "  ac:7 Rule 7\n    force push\n" in run.stdout
    assert executed(doit(project, "checks", f"record={session}")) == set()
    missing = doit(project, "checks", "record=nowhere.jsonl")
    assert missing.returncode != 0 and "record=nowhere.jsonl: no such file" in missing.stderr  # errors on stderr


def test_an_untracked_nested_repository_is_skipped(project: Path):
    """git lists it as a folder; the input set of a check that may read anything must not open it."""
    write(project, {"vendor/lib/x.py": "z = 3  # TODO\n"})
    git(project / "vendor" / "lib", "init", "-q")
    run = doit(project, "checks")
    assert "Traceback" not in run.stdout + run.stderr and "IsADirectoryError" not in run.stdout + run.stderr
    assert "4 rules checked: 1 passed, 1 violated, 1 undecidable, 1 without a check" in run.stdout


def test_a_codex_rollout_is_a_record_subject_too(project: Path, tmp_path: Path):
    rollout = tmp_path / "rollout-2026-11-30T10-00-00-0199.jsonl"
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1",
            "arguments": json.dumps({"cmd": "git push --force origin main"})}
    rollout.write_text(json.dumps({"timestamp": "2026-11-30T10:00:00Z", "type": "session_meta", "payload": {"id": "0199"}})
                       + "\n" + json.dumps({"timestamp": "2026-11-30T10:00:01Z", "type": "response_item", "payload": call})
                       + "\n")
    run = doit(project, "checks", f"record={rollout}")
    assert "  ac:7 Rule 7\n    force push\n" in run.stdout
    unknown = tmp_path / "other.jsonl"
    unknown.write_text('{"event": "tool", "cmd": "git push --force"}\n')
    run = doit(project, "checks", f"record={unknown}")
    assert "not a session record of Claude Code, Codex or Gemini CLI" in run.stdout


def test_the_selection_is_kept_while_the_resolution_is_the_same(project: Path, monkeypatch):
    """A run reads each segment's resolution document once; the next reads the kept selection (each
    distinct rule once), and a damaged or stale one is read again from the documents."""
    from agent_constitution.checks import selection

    doit(project, "checks")
    first = selection.select(project, project / "cache")
    assert (project / "cache/checks/selection.json").is_file()
    reads = []
    original = selection.read_resolved
    monkeypatch.setattr(selection, "read_resolved", lambda path: reads.append(path) or original(path))
    assert selection.select(project, project / "cache") == first and reads == []
    (project / "cache/checks/selection.json").write_text("{not json")
    assert selection.select(project, project / "cache") == first and reads
    kept = json.loads((project / "cache/checks/selection.json").read_text())
    assert [ref for ref in kept["rules"]][0][:2] == ["ac", 1] and kept["segments"][0][0] == "."


def test_a_rewritten_document_is_the_only_one_read_again_for_the_selection(project: Path, monkeypatch):
    """Each segment's entry of the kept selection holds while its document is the one it was made
    from: a one-rule edit rewrites a few documents, and only those are read again."""
    from agent_constitution.checks import selection
    from agent_constitution.fsio import write_atomic
    from agent_constitution.ruleset.resolved import resolved_path

    with (project / "rules.toml").open("a") as manifest:
        manifest.write('\n[[segment]]\npath = "svc"\n')
    write(project, {"svc/README.md": "svc\n"})
    doit(project, "checks")
    cache = project / "cache"
    first = selection.select(project, cache)
    reads = []
    original = selection.read_resolved
    monkeypatch.setattr(selection, "read_resolved", lambda path: reads.append(path) or original(path))
    document = resolved_path(cache, "svc")
    text = document.read_text()
    write_atomic(document, text)  # the same bytes in a new file, as the lock stage writes one
    assert selection.select(project, cache) == first and reads == [document]
    write_atomic(document, text.replace('"Rule 2"', '"Rule 2, reworded"'))
    edited = selection.select(project, cache)
    assert reads == [document, document]
    assert [rule.title for rule in edited.rules["svc"] if rule.id == 2] == ["Rule 2, reworded"]
    assert [rule.title for rule in edited.rules["."] if rule.id == 2] == ["Rule 2"]
    assert selection.select(project, cache) == edited and len(reads) == 2


def test_a_kept_selection_of_the_wrong_shape_is_read_again_from_the_documents(project: Path):
    """The cache is the user's to edit: a kept selection that parses but holds the wrong shapes (a
    source that is no table, a row too short, a rule number out of range) is no selection, and no
    traceback."""
    from agent_constitution.checks import selection

    doit(project, "checks")
    cache = project / "cache"
    first = selection.select(project, cache)
    path = cache / "checks/selection.json"
    good = json.loads(path.read_text())
    stamps = [segment[1] for segment in good["segments"]]
    for broken in ({**good, "sources": {"ac": 5}},
                   {**good, "sources": ["ac"]},
                   {**good, "rules": [row[:3] for row in good["rules"]]},
                   {**good, "segments": [[".", stamps[0], [10**6]]]},
                   {**good, "segments": [[".", stamps[0], "01"]]},
                   {**good, "segments": "."}):
        path.write_text(json.dumps(broken))
        assert selection.select(project, cache) == first, broken
