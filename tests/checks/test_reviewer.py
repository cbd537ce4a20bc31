"""`doit review`: reviewer commands (scripted stand-ins for the agent CLIs), verdicts, proposals."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from agent_constitution.checks.api import Finding
from agent_constitution.checks.evidence import Reader
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.reviewer import PRESETS, BadAnswer, Reviewer, ask, parse, prompt
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.scan import scan

from .conftest import git, make_source, rule_toml, write
from .test_tasks import NO_TODO, doit

# What each CLI prints in its documented headless JSON mode, around the reply `{answer}`; each
# stand-in also checks that it was called with the flags of its preset, and counts its calls.
STAND_INS = {
    "claude": '''
        assert sys.argv[1:5] == ["-p", "--output-format", "json", "--json-schema"], sys.argv
        json.loads(sys.argv[5])
        print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 10,
                          "num_turns": 1, "result": answer, "session_id": "s", "total_cost_usd": 0.01}))
    ''',
    "codex": '''
        assert sys.argv[1:3] == ["exec", "--json"] and sys.argv[-1] == "-", sys.argv
        json.load(open(sys.argv[sys.argv.index("--output-schema") + 1]))
        for event in ({"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                      {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": answer}},
                      {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}}):
            print(json.dumps(event))
    ''',
    "gemini": '''
        assert sys.argv[1] == "-p" and sys.argv[3:] == ["--output-format", "json"], sys.argv
        print(json.dumps({"response": "```json\\n" + answer + "\\n```", "stats": {"models": {}}}))
    ''',
}

HEAD = '''\
#!{python}
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["STAND_IN_CALLS"], "a") as calls:
    calls.write(prompt.split("## The rule: ")[1].split(",")[0] + "\\n")
assert os.listdir(".") == [], "the reviewer runs in an empty folder"
if "TODO left in code" in prompt:
    answer = json.dumps({{"verdict": "satisfied", "reason": "the TODO is inside a string, not a to-do",
                         "locations": ["src/a.py:1"]}})
else:
    answer = json.dumps({{"verdict": os.environ.get("STAND_IN_VERDICT", "cannot-tell"),
                         "reason": "a file listing cannot show it", "locations": []}})
'''


def stand_ins(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    for name, body in STAND_INS.items():
        path = folder / name
        path.write_text(HEAD.format(python=sys.executable) + textwrap.dedent(body))
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.fixture
def reviewed(repo: Path, tmp_path: Path) -> Path:
    """A repository with a rule whose check has a known false positive (a TODO inside a string) and a
    rule without a check, reviewed by the `claude` preset (a stand-in on PATH)."""
    make_source(repo, {2: rule_toml(2, 'python = "r2"\ninputs = ["src/*.py"]'),
                       3: rule_toml(3).replace("It matters.", "It matters, like {@rule:2}.")}, {"r2": NO_TODO})
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text() + '[review.default]\nrules = ["ac:*"]\npreset = "claude"\n')
    write(repo, {"src/a.py": 'x = "TODO"  # a string\n', "secret.log": "password=hunter2\n"})
    calibrated(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def calibrated(root: Path, group: str = "default", command: tuple[str, ...] = PRESETS["claude"].command,
               key: bytes | None = None, **scores) -> None:
    """A calibration on record for the group's command, above the default thresholds unless `scores`
    say otherwise (its verdicts then decide outcomes)."""
    import datetime

    from agent_constitution.checks import calibration as record

    values = dict(group=group, command=command, model="", date=datetime.date(2026, 12, 1), cases=40, noise=0,
                  tp=20, fp=0, fn=0, tn=20, cannot_tell=0, kappa=1.0, precision=1.0, recall=1.0,
                  precision_low=0.84, precision_high=1.0, recall_low=0.84, recall_high=1.0, probes=70,
                  probe_failures=0, refused=0, failed=0, calls=70, seconds=1.0, tokens=None, cost=None)
    record.recorded(root, record.Calibration(**{**values, **scores}), key)


def review(root: Path, tmp_path: Path, **extra: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    calls = tmp_path / "calls.txt"
    calls.write_text("")
    # A user cache of the test's own: answers cached by another test's identical subject are not its.
    env = {**os.environ, "PATH": f"{stand_ins(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}",
           "STAND_IN_CALLS": str(calls), "AGENT_CONSTITUTION_CACHE": str(tmp_path / "user-cache"), **extra}
    run = subprocess.run([sys.executable, "-m", "doit", "review"], cwd=root, capture_output=True, text=True, env=env)
    return run, calls.read_text().split()


def test_a_verdict_closes_the_loop_until_the_subject_changes(reviewed: Path, tmp_path: Path):
    first = doit(reviewed, "checks")
    assert first.returncode == 1, first.stdout + first.stderr
    queue = (reviewed / "cache/review/default.md").read_text()
    assert "It matters, like ac:2." in queue and "{@rule:2}" not in queue
    run, calls = review(reviewed, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(calls) == ["ac:2", "ac:3"]
    prompt_of_3 = json.loads(next((reviewed / "cache/review/log").glob("ac-3-*.json")).read_text())["prompt"]
    assert "> Rule 3 requires something. It matters, like ac:2." in prompt_of_3
    assert "asked 2 items, 2 answered; 1 new proposal" in run.stdout

    memory = tomllib.loads((reviewed / "rules.review.toml").read_text())
    assert {(v["rule"], v["verdict"]) for v in memory["verdict"]} == {("ac:2", "satisfied"), ("ac:3", "cannot-tell")}
    [proposal] = memory["proposal"]
    assert proposal["rule"] == "ac:2" and proposal["kind"] == "false-positive"
    assert proposal["fixture"] == ["src/a.py"] and "TODO left in code" in proposal["check-said"]
    patch = reviewed / proposal["draft"]
    assert "+revision = 2" in patch.read_text() and '+x = "TODO"  # a string' in patch.read_text()
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=reviewed, check=True)
    log = json.loads(next((reviewed / "cache/review/log").glob("ac-2-*.json")).read_text())
    assert "TODO left in code" in log["prompt"] and '"result"' in log["answer"]

    again = doit(reviewed, "checks")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 results decided by a recorded verdict" in again.stdout
    run, calls = review(reviewed, tmp_path)
    assert calls == [] and "asked 0 items" in run.stdout

    (reviewed / "src/a.py").write_text('x = "TODO"  # still a string\n')
    edited = doit(reviewed, "checks")
    assert edited.returncode == 1
    run, calls = review(reviewed, tmp_path)
    assert calls == ["ac:2"]   # the unchecked rule's subject (the file listing) did not change


def test_a_confirmed_violation_is_handed_to_the_fixer(reviewed: Path, tmp_path: Path):
    doit(reviewed, "checks")
    review(reviewed, tmp_path, STAND_IN_VERDICT="violated")
    run = doit(reviewed, "checks")
    assert run.returncode == 1
    assert "confirmed by a reviewer (fix these):\n- ac:3 Rule 3:\n    a file listing cannot show it\n" in run.stdout
    report = json.loads((reviewed / "cache/checks/report.json").read_text())
    assert {r["ref"]: r["outcome"] for r in report["results"]}["ac:3"] == "violation"
    assert report["confirmed"] == {"ac:3": [{"segment": ".", "reviewer": "default", "reason": "a file listing cannot show it",
                                             "locations": report["confirmed"]["ac:3"][0]["locations"]}]}
    assert "## ac:3" not in (reviewed / "cache/review/default.md").read_text()   # not asked again


def test_a_failing_or_malformed_reviewer_leaves_items_queued(reviewed: Path, tmp_path: Path):
    manifest = reviewed / "rules.toml"
    manifest.write_text(manifest.read_text().replace(
        'preset = "claude"', f'command = ["{sys.executable}", "-c", "print(\'not json\')"]\nmax-items = 1'))
    doit(reviewed, "checks")
    run, _ = review(reviewed, tmp_path)
    assert run.returncode == 0
    left = json.loads((reviewed / "cache/review/left.json").read_text())["left"]
    assert [item["reason"][:16] for item in left] == ["malformed output", "group default's "]
    assert not (reviewed / "rules.review.toml").exists()   # nothing answered: nothing recorded


def test_a_group_without_a_command_is_left_for_a_person(reviewed: Path, tmp_path: Path):
    manifest = reviewed / "rules.toml"
    manifest.write_text(manifest.read_text().replace('preset = "claude"\n', ""))
    doit(reviewed, "checks")
    run, calls = review(reviewed, tmp_path)
    assert calls == [] and 'group "default" has no command' in run.stderr


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_reads_its_cli_output(preset: str, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", f"{stand_ins(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STAND_IN_CALLS", str(tmp_path / "calls.txt"))
    reviewer = Reviewer.from_settings("g", {"preset": preset, "timeout": 30, "max_items": 1, "max_seconds": 60})
    result = Result(".", "ac:2", Outcome.VIOLATION, (Finding("TODO left in code", "src/a.py", 1),), check="python:r2")
    answer, raw = ask(reviewer, prompt(result, "g", "(nothing)", lambda text: text), 30)
    assert answer.verdict == "satisfied" and answer.locations == ("src/a.py:1",) and raw


@pytest.mark.parametrize("stdout, message", [
    ('{"verdict": "maybe", "reason": "x", "locations": []}', "verdict 'maybe'"),
    ('{"verdict": "satisfied", "reason": "", "locations": []}', "reason must be"),
    ('{"verdict": "satisfied", "reason": "x", "locations": [], "extra": 1}', "unknown keys extra"),
    ("[1]", "not a JSON object"),
])
def test_malformed_answers_say_why(stdout: str, message: str):
    with pytest.raises(BadAnswer, match=message):
        parse("answer", stdout)


def test_the_reviewer_sees_only_what_the_check_saw(reviewed: Path):
    result = Result(".", "ac:2", Outcome.VIOLATION, (Finding("bad", "secret.log", 1), Finding("TODO", "src/a.py", 1)))
    seen = Reader(Subjects(scan(reviewed))).evidence(result, None)
    assert "hunter2" not in seen.excerpt and "`secret.log`: not shown" in seen.excerpt
    assert '   1 | x = "TODO"  # a string' in seen.excerpt and seen.files == ("src/a.py",)


def test_prompt_renders_references_as_labels():
    result = Result(".", "ac:2", None, text="Follow {@rule:7} and {@rule:other:3}.")
    from agent_constitution.checks.review import labeller

    label = labeller(Path("/nonexistent"), Path("/nonexistent/cache"))
    text = prompt(result, "g", "", lambda body: label("ac", body))
    assert "> Follow ac:7 and other:3." in text and "{@" not in text.split("## What the check said")[0]


def test_a_base_manifest_cannot_name_a_reviewer(reviewed: Path, tmp_path: Path):
    marker = tmp_path / "ran"
    command = json.dumps([sys.executable, "-c", f"open({str(marker)!r}, 'w')"])
    write(reviewed, {"team/base.toml": f'[review.default]\nrules = ["ac:*"]\ncommand = {command}\n'})
    manifest = reviewed / "rules.toml"
    text = manifest.read_text().replace('[review.default]\nrules = ["ac:*"]\npreset = "claude"\n', "")
    manifest.write_text('extends = "team/base.toml"\n' + text)
    assert "checks:report" in doit(reviewed, "checks").stdout
    run, calls = review(reviewed, tmp_path)
    assert not marker.exists() and calls == [] and "has no command" in run.stderr


def test_a_hand_written_false_negative_becomes_a_proposal(reviewed: Path):
    (reviewed / "src/a.py").write_text("x = 1  # FIXME: name this\n")
    assert doit(reviewed, "checks").returncode == 0
    write(reviewed, {"cache/review/default.verdicts.toml": '''\
        [[verdict]]
        rule = "ac:2"
        outcome = "pass"
        verdict = "violated"
        reason = "a FIXME is a to-do too"
        location = "src/a.py:1"
    '''})
    run = doit(reviewed, "review-ingest")
    assert "1 proposal to fix a check recorded in rules.review.toml" in run.stdout, run.stdout + run.stderr
    [proposal] = tomllib.loads((reviewed / "rules.review.toml").read_text())["proposal"]
    assert proposal["kind"] == "false-negative" and proposal["check-said"] == "pass"
    assert '+outcome = "violation"' in (reviewed / proposal["draft"]).read_text()
    again = doit(reviewed, "checks")
    assert again.returncode == 1 and "- ac:2 Rule 2:\n    a FIXME is a to-do too (src/a.py:1)" in again.stdout


@pytest.mark.parametrize("body, field", [
    ('preset = "copilot"', "preset"),
    ("timeout = 0", "timeout"),
    ("max-items = -1", "max-items"),
    ("command = []", "command"),
    ("budget = 3", "budget"),
])
def test_reviewer_settings_are_validated(tmp_path: Path, body: str, field: str):
    from agent_constitution.errors import UserError
    from agent_constitution.ruleset.models import Manifest, load

    path = tmp_path / "rules.toml"
    path.write_text(f'[review.default]\nrules = ["ac:*"]\n{body}\n')
    with pytest.raises(UserError) as error:
        load(Manifest, path, "rules.toml")
    assert field in str(error.value)


def test_a_false_positive_of_a_third_party_source_is_an_issue_body(tmp_path: Path):
    from agent_constitution.checks.verdicts import Recorded, propose

    root = tmp_path / "repo"
    root.mkdir()
    result = Result(".", "team:4", Outcome.VIOLATION, (Finding("TODO left in code", "src/a.py", 1),),
                    check="python:r4", revision=3)
    verdict = Recorded("team:4", ".", 3, "sha256:" + "ab" * 32, "violation", "satisfied", "a string", "default")
    proposal = propose(root, result, verdict, {"src/a.py": 'x = "TODO"\n'}, tmp_path / "elsewhere")
    assert proposal.draft == "" and proposal.issue.endswith(".issue.md")
    body = (root / proposal.issue).read_text()
    assert "false-positive of team:4's check (revision 3)" in body and 'x = "TODO"' in body


@pytest.mark.parametrize("code, message", [
    ("import time; time.sleep(5)", "timeout"),
    ("import sys; print('quota exceeded', file=sys.stderr); sys.exit(3)", "exited with 3: quota exceeded"),
])
def test_a_reviewer_that_fails_says_why(code: str, message: str):
    reviewer = Reviewer("g", (sys.executable, "-c", code), "answer", 0.5)
    with pytest.raises(BadAnswer, match=message):
        ask(reviewer, "prompt", reviewer.timeout)
    with pytest.raises(BadAnswer, match="command not found"):
        ask(Reviewer("g", ("no-such-reviewer-here",), "answer", 1), "prompt", 1)
