"""The doit wiring: lock, resolve, verify, and --locked, run as a user runs them."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.ruleset.conftest import PIN, Project


def doit(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AGENT_CONSTITUTION_CACHE": str(root.parent / "user-cache")}
    env.pop("CI", None)
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True, env=env)


def test_lock_resolve_and_locked(project: Project):
    project.manifest(rules=["ac:4"], choices={"ac:ci-service": "ac:5"}, segment=[{"path": "web/app", "rules": ["ac:9"]}])
    (project.root / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")
    done = doit(project.root, "fetch", "resolve", "verify")
    assert done.returncode == 0, done.stderr
    assert ".  fetch:ac" in done.stdout
    assert "wrote rules.lock" in done.stdout and "constitution ac 2026-10 revision 0.1" in done.stdout
    data = json.loads((project.root / "cache" / "resolved" / "web__app.json").read_text())
    assert data["segment"] == "web/app" and data["constitution"]["revision"] == PIN["revision"]
    assert [(r["id"], r["why"]) for r in data["rules"]] == [
        (1, "required-by ac:2"), (2, "required-by ac:4"), (4, "selected"), (5, "required-by ac:4"), (9, "selected"),
    ]
    assert data["sources"]["ac"]["trust"] is True
    again = doit(project.root, "fetch", "lock", "verify", "resolve")
    assert again.returncode == 0, again.stderr
    for task in ("fetch:ac", "lock", "verify", "resolve"):  # one task for every segment's resolution
        assert f"-- {task}\n" in again.stdout  # unchanged inputs run nothing
    project.manifest(rules=["ac:7"])
    locked = doit(project.root, "lock", "--locked")
    assert locked.returncode != 0
    assert "the lockfile needs to be updated, but --locked was given" in locked.stdout + locked.stderr
    assert "Traceback" not in locked.stdout + locked.stderr
    via_compile = doit(project.root, "lock", "locked=1")
    assert via_compile.returncode != 0 and "--locked was given" in via_compile.stdout + via_compile.stderr


def test_upgrade_task_with_branch(tmp_path: Path):
    from tests.compile.support import write_fixture_source
    from tests.ruleset.builders import commit_all, write_manifest

    upstream = write_fixture_source(tmp_path / "upstream")
    commit_all(upstream, "first")
    repo = tmp_path / "repo"
    pin = {"source": "ac", "edition": "2026-12", "revision": "0.2"}
    write_manifest(repo, {"constitution": pin, "sources": {"ac": {"url": str(upstream)}}, "rules": ["ac:7"]})
    (repo / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")
    (repo / ".gitignore").write_text("cache/\n")
    assert doit(repo, "compile").returncode == 0
    commit_all(repo, "start")
    rule = upstream / "rules" / "7.toml"
    rule.write_text(rule.read_text().replace("revision = 1", "revision = 2"))
    commit_all(upstream, "second")
    outdated = doit(repo, "outdated")
    assert "ac:7: revision 1 → 2" in outdated.stdout
    done = doit(repo, "upgrade", "--branch", "rules-upgrade")
    assert done.returncode == 0, done.stdout + done.stderr
    # The branch carries the lock and what compile rewrote from it (the AGENTS.md header names the commit).
    assert "committed on branch rules-upgrade: AGENTS.md, rules.lock" in done.stdout
    assert (repo / "cache" / "upgrade" / "rules-upgrade.md").is_file()
