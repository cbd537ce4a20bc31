"""Windsurf switched on the way a user does it: `agent-constitution init` (the starter's selection,
the `ac:instructions` package among it), then `pdks init --host windsurf`, which creates
`.windsurf/` and so turns Windsurf on for compile; then compile twice. Every compile succeeds and
the second changes nothing: no state leaves every compile failing (issue #31)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the commands as installed: `agent-constitution`, `pdks`

pytestmark = pytest.mark.slow


def run(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def test_init_then_pdks_init_for_windsurf_then_compile_twice(tmp_path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "GITHUB_ACTIONS", "GITLAB_CI")}
    # the starter's source is this checkout (its committed HEAD), fetched into a cache of the test's own
    env.update(AGENT_CONSTITUTION_STARTER_URL=PROJECT.as_uri(), AGENT_CONSTITUTION_CACHE=str(tmp_path / "cache"))
    started = run(["agent-constitution", "init"], repo, env)
    assert "rules.toml: written" in started.stdout
    assert "ac:instructions" in (repo / "rules.toml").read_text()
    run(["pdks", "init", "--host", "windsurf"], repo, env)
    assert (repo / ".windsurf").is_dir()
    first = run(["agent-constitution", "compile"], repo, env)
    assert "windsurf" in first.stdout + first.stderr  # Windsurf is on: its skills are written
    second = run(["agent-constitution", "compile"], repo, env)
    assert not [line for line in second.stdout.splitlines() if line.startswith(("created ", "updated ", "removed "))], \
        second.stdout
