"""`.pre-commit-hooks.yaml`: pre-commit installs this package from a clone of the repository and runs
both hooks, with nothing installed by hand (`pre-commit try-repo`). pre-commit builds a virtualenv
and pip-installs the package and its dependencies (from the package index, or pip's configured
wheel folders): the one test that needs them, tens of seconds.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from agent_constitution.covenant.init import main as covenant_init

PROJECT = Path(__file__).resolve().parents[1]
HOOKS = {"agent-constitution-check": "agent-constitution check change=staged",
         "agent-constitution-covenant": "pdks covenant check --diff --staged"}


def test_the_published_hooks():
    hooks = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    assert {hook["id"]: hook["entry"] for hook in hooks} == HOOKS
    assert all(hook["language"] == "python" and hook["pass_filenames"] is False for hook in hooks)


@pytest.mark.slow
def test_pre_commit_try_repo_runs_both_hooks(tmp_path, monkeypatch):
    clone = tmp_path / "agent-constitution"
    subprocess.run(["git", "clone", "-q", str(PROJECT), str(clone)], check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    repo = tmp_path / "host"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "rules.toml").write_text(
        'rules = ["ac:git"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
        f'[sources]\nac = {{ url = "{clone.as_uri()}", rev = "{head}", trust = true }}\n'
    )
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"),
           "AGENT_CONSTITUTION_CACHE": str(tmp_path / "rule-cache")}
    env.pop("CI", None)
    monkeypatch.chdir(repo)
    assert covenant_init([]) == 0  # the starter polydeukes.config.yaml
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(clone), "--verbose"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=600)

    done = try_repo()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rules checked:" in done.stdout
    assert done.stdout.count("Passed") == 2
    (repo / "rules.toml").write_text("rules = [\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    done = try_repo()  # the environment is reused: no second install
    assert done.returncode == 1
    assert "error: rules.toml: not valid TOML" in done.stdout  # pre-commit shows the hook's stderr
