"""The Stop hook: only the change and record rules, exit 2 with the violations on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import git, make_source, rule_toml, write
from .test_tasks import NO_FORCE_PUSH, NO_TODO, SMALL_COMMITS

NO_SECRETS_FILE = '''\
from agent_constitution.checks.api import Finding

RULE = 8


def check(change):
    return [Finding("adds a .env file", path=f.new_path) for f in change.files
            if f.old_path is None and f.new_path and f.new_path.endswith(".env")]
'''


@pytest.fixture
def project(repo: Path) -> Path:
    make_source(repo, {
        2: rule_toml(2, 'python = "r2"\ninputs = ["src/*.py"]'),  # the tree: never run at Stop
        6: rule_toml(6, 'subject = "change"\npython = "r6"'),
        7: rule_toml(7, 'subject = "record"\npython = "r7"'),
        8: rule_toml(8, 'subject = "change"\npython = "r8"'),
    }, {"r2": NO_TODO, "r6": SMALL_COMMITS, "r7": NO_FORCE_PUSH, "r8": NO_SECRETS_FILE})
    write(repo, {"src/a.py": "x = 1  # TODO: name this\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def stop(root: Path, payload: dict) -> subprocess.CompletedProcess:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
    return subprocess.run([sys.executable, "-m", "agent_constitution.checks.stop"], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, cwd=root / "src")


def transcript(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "session.jsonl"
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}
    path.write_text(json.dumps({"type": "assistant", "message": {"content": [use]}}) + "\n")
    return path


def test_a_clean_stop_passes_and_skips_the_tree_rules(project: Path, tmp_path: Path):
    run = stop(project, {"transcript_path": str(transcript(tmp_path, "git status"))})
    assert run.returncode == 0, run.stderr
    assert run.stderr == "" and run.stdout == ""  # rule 2 (the TODO in the tree) is not a Stop check


def test_a_violation_in_the_worktree_change_blocks_the_stop(project: Path, tmp_path: Path):
    write(project, {"prod.env": "KEY=1\n"})  # untracked, not ignored: part of the worktree's change
    run = stop(project, {"transcript_path": str(transcript(tmp_path, "git push --force"))})
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "agent-constitution: this session's change or record violates 2 rules; fix it before you stop:",
        "- ac:7 Rule 7: force push",
        "- ac:8 Rule 8: adds a .env file (prod.env)",
    ]


def test_a_second_stop_goes_through_and_tells_the_user(project: Path, tmp_path: Path):
    payload = {"transcript_path": str(transcript(tmp_path, "git push --force")), "stop_hook_active": True}
    run = stop(project, payload)
    assert run.returncode == 0
    assert "force push" in json.loads(run.stdout)["systemMessage"]


def test_a_missing_session_record_is_said_and_the_change_still_judged(project: Path, tmp_path: Path):
    run = stop(project, {"transcript_path": str(tmp_path / "gone.jsonl")})
    assert run.returncode == 0
    assert run.stderr.splitlines() == [f"agent-constitution: the session record {str(tmp_path / 'gone.jsonl')!r} is not a"
                                       " file; the rules that judge a session record were not checked"]
    write(project, {"prod.env": "KEY=1\n"})
    run = stop(project, {"transcript_path": str(tmp_path / "gone.jsonl")})
    assert run.returncode == 2 and "- ac:8 Rule 8: adds a .env file (prod.env)" in run.stderr


def test_a_stop_that_cannot_judge_blocks(project: Path):
    (project / "rules.toml").write_text("rules = [\n")
    run = stop(project, {})
    assert run.returncode == 2 and "could not run the checks" in run.stderr and "rules.toml" in run.stderr


def test_the_stop_hook_runs_on_this_repository():
    """It judges this repository from its memo, twice the same. Its speed is no test's business (the
    machines are shared): `bench/regress.py`, which CI runs, holds it to its committed ratio."""
    root = Path(__file__).resolve().parents[2]
    runs = [subprocess.run([sys.executable, "-m", "agent_constitution.checks.stop"], input="{}", text=True,
                           env={**os.environ, "CLAUDE_PROJECT_DIR": str(root)}, capture_output=True)
            for _ in range(2)]
    assert all(run.returncode in (0, 2) for run in runs), runs[-1].stderr
    assert runs[0].returncode == runs[1].returncode and runs[0].stderr == runs[1].stderr


def test_recorded_verdicts_decide_the_stop(project: Path, tmp_path: Path):
    """A reviewed false positive no longer blocks; a confirmed violation comes with the reviewer's reason."""
    from agent_constitution.checks.evidence import Reader
    from agent_constitution.checks.runner import Subjects
    from agent_constitution.checks.scan import Scan
    from agent_constitution.checks.subjects import WORKTREE, resolve_change
    from agent_constitution.checks.verdicts import Memory, Recorded, write_memory

    write(project, {"prod.env": "KEY=1\n"})
    record = str(transcript(tmp_path, "git push --force"))
    assert stop(project, {"transcript_path": record}).returncode == 2
    subjects = Subjects(Scan(project, ()), change=resolve_change(project, WORKTREE), record=Path(record))
    from agent_constitution.checks.stop import judge

    results, _ = judge(project, record)
    reader = Reader(subjects)
    digest = {r.ref: reader.evidence(r, None).digest for r in results if r.outcome is not None}
    write_memory(project, Memory((
        Recorded("ac:7", ".", 1, digest["ac:7"], "violation", "satisfied", "a force push to a fork", "default"),
        Recorded("ac:8", ".", 1, digest["ac:8"], "violation", "violated", "prod.env holds a key", "default",
                 ("prod.env:1",)),
    )))
    run = stop(project, {"transcript_path": record})
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "agent-constitution: this session's change or record violates 1 rule; fix it before you stop:",
        "- ac:8 Rule 8: confirmed by reviewer default: prod.env holds a key (prod.env:1)",
    ]


# --- the circuit breaker, one problem once, and a machine without the tool -------------------------

MESSAGE_RULE = '''\
from agent_constitution.checks.api import Finding

RULE = 9


def check(change):
    return [Finding("commit has no attribution trailer")]
'''


def test_a_repeated_stop_for_the_same_findings_ends_the_session(project: Path, tmp_path: Path):
    write(project, {"prod.env": "KEY=1\n"})
    payload = {"session_id": "s1", "transcript_path": str(transcript(tmp_path, "git status"))}
    assert stop(project, payload).returncode == 2  # asked once
    again = stop(project, {**payload, "stop_hook_active": True})
    assert again.returncode == 0
    told = json.loads(again.stdout)["systemMessage"]
    assert told.startswith("agent-constitution: the session ends with these problems unresolved")
    assert "- ac:8 Rule 8: adds a .env file (prod.env)" in told
    # Without the host's flag too: the same findings do not block the same session twice.
    assert stop(project, payload).returncode == 0
    # A new problem blocks once more; another session starts afresh.
    write(project, {"other.env": "KEY=2\n"})
    assert stop(project, {**payload, "stop_hook_active": True}).returncode == 2
    assert stop(project, {**payload, "session_id": "s2"}).returncode == 2


def test_findings_that_change_at_every_stop_end_after_a_few_blocks(project: Path, tmp_path: Path):
    payload = {"session_id": "s3", "transcript_path": str(transcript(tmp_path, "git status"))}
    outcomes = []
    for number in range(6):
        write(project, {f"f{number}.env": "KEY=1\n"})
        outcomes.append(stop(project, {**payload, "stop_hook_active": number > 0}).returncode)
    assert outcomes == [2, 2, 2, 0, 0, 0]


def test_a_problem_many_segments_see_is_said_once(repo: Path, tmp_path: Path):
    make_source(repo, {9: rule_toml(9, 'subject = "change"\npython = "r9"')}, {"r9": MESSAGE_RULE})
    with (repo / "rules.toml").open("a") as manifest:
        manifest.write('\n[[segment]]\npath = "a"\n\n[[segment]]\npath = "b"\n')
    write(repo, {"a/x.txt": "1\n", "b/y.txt": "2\n", "src/z.txt": "3\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    run = stop(repo, {"session_id": "seg"})
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "agent-constitution: this session's change or record violates 1 rule; fix it before you stop:",
        "- ac:9 Rule 9: commit has no attribution trailer [., a, b]",
    ]


@pytest.mark.parametrize("policy, payloads, expected", [
    ("warn", [{}], [0]),
    ("block", [{}, {"stop_hook_active": True}], [2, 0]),
])
def test_the_compiled_stop_hook_on_a_machine_without_the_tool(tmp_path: Path, policy: str, payloads, expected):
    from agent_constitution.compile import hooks
    from agent_constitution.hosts import launcher

    root = tmp_path / "teammate"
    root.mkdir()
    (root / "rules.toml").write_text(f'rules = []\n[compile]\nstop-missing-tool = "{policy}"\n')
    from agent_constitution.wiring import spoken

    command = spoken(launcher.wrapped(launcher.stop_hook(missing=launcher.stop_policy(root)), launcher.NAME), root)
    assert hooks.stop_command(root, policy) in (command, *(spoken(launcher.wrapped(launcher.stop_hook(missing=policy), how), root)
                                                   for how in (launcher.UV, launcher.PATH)))
    empty = tmp_path / "bin"
    empty.mkdir()
    for payload, status in zip(payloads, expected):
        run = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                             env={"PATH": str(empty)}, cwd=root)
        assert run.returncode == status, run.stderr
        assert "this session cannot be judged here" in run.stderr and "Agent: install nothing" in run.stderr
        assert "uv tool install" not in run.stderr  # rule ac:69: nothing tells the agent to install a tool
    # The repository's CI may ask for `block` whatever the committed setting says.
    run = subprocess.run(["/bin/sh", "-c", command], input="{}", capture_output=True, text=True,
                         env={"PATH": str(empty), launcher.POLICY_VARIABLE: "block"}, cwd=root)
    assert run.returncode == 2


def test_a_protected_file_changed_since_the_judge_last_looked_blocks_the_stop_once(project: Path, tmp_path: Path):
    # The covenant judge's after-the-fact look (issue 37): the last call of a turn has no later hook
    # call to report what it wrote past the judge, so the Stop hook compares the digests too.
    write(project, {"polydeukes.config.yaml": "languages: { py: { productionGlob: 'src/**', testCmd: 'x {scope}' } }\n"
                                              "protectedPaths: ['gate']\n",
                    "gate/guard.sh": "exit 0\n"})
    ignore = project / ".gitignore"
    ignore.write_text((ignore.read_text() if ignore.exists() else "") + ".polydeukes/\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "gate")
    payload = {"transcript_path": str(transcript(tmp_path, "git status"))}
    assert stop(project, payload).returncode == 0  # the first look records
    write(project, {"gate/guard.sh": "exit 1\n"})
    run = stop(project, payload)
    assert run.returncode == 2
    assert run.stderr.startswith("agent-constitution: protected path gate changed since the judge last looked,"
                                 " and no judged call wrote it")
    assert stop(project, payload).returncode == 0  # reported once
