"""A repository that tracks some of the project's own outputs under `cache/` (a report committed by
hand, `git add -f`) still checks: those files are judged like any tracked file, but no check task
depends on them, since doit would see a task depending on its own target (a cycle) and stop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.checks.conftest import git, make_source, rule_toml

CHECK = '''\
from agent_constitution.checks.api import Finding

RULE = 1
SUPERSEDED = False


def check(repo):
    return [Finding(f"{path} is large", path=path) for path in repo.files if b"x" * 11 in repo.read_bytes(path)]
'''


def doit(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True)


def test_tracked_outputs_under_cache(repo: Path):
    make_source(repo, {1: rule_toml(1, 'python = "one"')}, {"one": CHECK})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    first = doit(repo, "checks")
    assert first.returncode == 0, first.stdout + first.stderr
    outputs = sorted(str(path.relative_to(repo)) for path in (repo / "cache").rglob("*") if path.is_file())
    assert "cache/checks/report.json" in outputs
    git(repo, "add", "-f", *outputs)
    git(repo, "commit", "-qm", "track the outputs")
    for _ in range(2):
        again = doit(repo, "checks")
        assert "Cyclic" not in again.stdout + again.stderr
        assert again.returncode == 0, again.stdout + again.stderr
    # Still judged: a tracked file under cache/ that breaks the rule is found.
    (repo / "cache" / "checks" / "inputs").mkdir(parents=True, exist_ok=True)
    (repo / "cache" / "notes.txt").write_text("x" * 20)
    git(repo, "add", "-f", "cache/notes.txt")
    failed = doit(repo, "checks")
    assert failed.returncode == 1 and "cache/notes.txt is large" in failed.stdout + failed.stderr, failed.stdout
