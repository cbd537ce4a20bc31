"""Upgrades over a real git source tagged v1.0.0 … v3.0.0, with text, check code, status and constitution
changes: each failure measured before (tag sources could not be upgraded, diffs were partial, scripts had
to sit under rules/) asserted as the behaviour it has now."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.ruleset.lock import read_lock, sync_lock
from agent_constitution.ruleset.upgrade import apply_upgrade, plan_upgrade
from tests.ruleset.builders import commit_all, write_manifest, write_rule, write_source

SCRIPT = "scripts/check_9.py"  # outside rules/: the whole tree is cached
PIN = {"source": "ac", "edition": "2026-10", "revision": "0.1"}


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def release(root: Path, tag: str, *, text7: str, code8: str, script9: str, status9: str = "active",
            revisions: tuple[int, int, int] = (1, 1, 1), constitution: str = "0.1") -> str:
    rules = {
        7: {"parent": "git", "revision": revisions[0]},
        8: {"parent": "git", "revision": revisions[1], "check": {"python": "r8"}},
        9: {"parent": "git", "revision": revisions[2], "status": status9,
            "check": {"command": [sys.executable, f"{{source}}/{SCRIPT}"]},
            **({"superseded_by": 10} if status9 == "superseded" else {})},
        10: {"parent": "git", **({"supersedes": 9} if status9 == "superseded" else {})},
    }
    write_source(root, rules, revision=constitution)
    write_rule(root, 7, **rules[7])
    text = (root / "rules" / "7.toml").read_text().replace("Text of rule 7.", text7)
    (root / "rules" / "7.toml").write_text(text)
    (root / "rules" / "checks").mkdir(exist_ok=True)
    (root / "rules" / "checks" / "r8.py").write_text(code8)
    (root / SCRIPT).parent.mkdir(exist_ok=True)
    (root / SCRIPT).write_text(script9)
    (root / "constitution" / "2026-10" / "constitution.md").write_text(f"# Constitution {constitution}\n")
    return commit_all(root, tag, tag)


@pytest.fixture
def upstream(tmp_path: Path) -> dict[str, str]:
    root = tmp_path / "upstream"
    commits = {
        "v1.0.0": release(root, "v1.0.0", text7="Keep commits small.", code8="RULE = 8\n", script9="print(1)\n"),
        "v2.0.0": release(root, "v2.0.0", text7="Keep commits small and focused.", code8="RULE = 8\n",
                          script9="print(1)\n", revisions=(2, 1, 1)),
        "v3.0.0": release(root, "v3.0.0", text7="Keep commits small and focused.", code8="RULE = 8  # stricter\n",
                          script9="print(2)\n", status9="superseded", revisions=(2, 2, 2), constitution="0.2"),
    }
    return commits


def project(tmp_path: Path, request: dict, revision: str = "0.1") -> Path:
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": {**PIN, "revision": revision}, "sources": {"ac": {"url": str(tmp_path / "upstream"), **request}},
                          "rules": ["ac:7", "ac:8", "ac:9"]})
    sync_lock(repo)
    return repo


def change(upgrade, ref):
    return next(item for item in upgrade.rules if item.ref == ref)


def test_a_tag_source_upgrades_to_the_newest_tag_with_every_kind_of_diff(tmp_path, upstream):
    repo = project(tmp_path, {"tag": "v1.0.0"})
    upgrade = plan_upgrade(repo)
    report = upgrade.report()
    assert "rules.toml: [sources.ac] tag v1.0.0 → v3.0.0" in report
    assert f"ac: v1.0.0 ({upstream['v1.0.0'][:12]}) → v3.0.0 ({upstream['v3.0.0'][:12]})" in report
    seven, eight, nine = (change(upgrade, f"ac:{n}") for n in (7, 8, 9))
    assert seven.summary == "text changed" and "-en = \"Keep commits small.\"" in seven.diff
    assert eight.summary == "check code changed" and "+RULE = 8  # stricter" in eight.diff
    assert "--- a/ac:8/rules/checks/r8.py" in eight.diff
    assert nine.summary == "status active → superseded (by 10); check code changed"
    assert f"--- a/ac:9/{SCRIPT}\n+++ b/ac:9/{SCRIPT}\n" in nine.diff and "-print(1)\n+print(2)" in nine.diff
    # The constitution does not move with the rules: v3.0.0 publishes 0.2, the binding stays at 0.1.
    assert upgrade.constitution is None
    assert "constitution kept at revision 0.1" in report and "publishes revision 0.2" in report
    apply_upgrade(repo, upgrade)
    lock = read_lock(repo)
    assert lock.source[0].tag == "v3.0.0" and lock.source[0].commit == upstream["v3.0.0"]
    assert (lock.constitution.revision, lock.constitution.commit) == ("0.1", upstream["v1.0.0"])
    assert sync_lock(repo, locked=True)[1] is False


def test_a_range_moves_inside_it_and_outdated_names_the_newest_beyond(tmp_path, upstream):
    repo = project(tmp_path, {"version": ">=1, <3"})
    assert read_lock(repo).source[0].version == "v2.0.0"  # the newest in range at lock time
    lock = (repo / "rules.lock").read_bytes()
    upgrade = plan_upgrade(repo)
    assert upgrade.report().startswith("everything is up to date")
    assert [(row.name, row.request, row.upgrade == row.locked, row.newest) for row in upgrade.rows] == [
        ("ac", "version >=1, <3", True, "v3.0.0")]
    apply_upgrade(repo, upgrade)
    assert (repo / "rules.lock").read_bytes() == lock  # nothing moved: byte-identical


def test_a_branch_source_between_tags_and_an_unchanged_lock(tmp_path, upstream):
    repo = project(tmp_path, {"branch": "main"}, revision="0.2")  # the head publishes 0.2
    lock = (repo / "rules.lock").read_bytes()
    assert read_lock(repo).source[0].commit == upstream["v3.0.0"]
    assert plan_upgrade(repo).report() == "everything is up to date"
    assert sync_lock(repo)[1] is False and (repo / "rules.lock").read_bytes() == lock


def doit(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=repo, env=env, capture_output=True, text=True)


def test_outdated_and_upgrade_rule_from_the_command_line(tmp_path, upstream):
    other = tmp_path / "other"
    write_source(other, {1: {"parent": "git"}}, name="team", constitution=None)
    commit_all(other, "team v1", "v1.0.0")
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": PIN, "rules": ["ac:7", "team:1"], "sources": {
        "ac": {"url": str(tmp_path / "upstream"), "tag": "v1.0.0"}, "team": {"url": str(other), "tag": "v1.0.0"}}})
    (repo / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    sync_lock(repo)
    write_rule(other, 1, parent="git", revision=2)
    commit_all(other, "team v1.1", "v1.1.0")
    run = doit(repo, "outdated")
    assert run.returncode == 0, run.stdout + run.stderr
    table = [line for line in run.stdout.splitlines() if not line.startswith(". ")]  # doit's task line
    assert table[0].split() == ["source", "follows", "locked", "upgrade", "newest"]
    assert table[1].split() == ["ac", "tag", "v1.0.0", "v1.0.0", f"({upstream['v1.0.0'][:12]})", "v3.0.0",
                                f"({upstream['v3.0.0'][:12]})", "-"]
    assert table[2].split()[:3] == ["team", "tag", "v1.0.0"] and table[2].split()[-1] == "-"
    assert "team:1: revision 1 → 2" in run.stdout
    before = (repo / "rules.toml").read_text()
    run = doit(repo, "upgrade", "--rule", "ac:7")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ac:7: revision 1 → 2: text changed" in run.stdout and "team" not in run.stdout
    assert "wrote rules.toml and rules.lock" in run.stdout
    assert (repo / "rules.toml").read_text() == before.replace('tag = "v1.0.0"', 'tag = "v3.0.0"', 1)
    names = {source.name: source.tag for source in read_lock(repo).source}
    assert names == {"ac": "v3.0.0", "team": "v1.0.0"}
    run = doit(repo, "upgrade", "--rule", "ac:99")
    assert run.returncode != 0 and "'ac:99' is not a rule the lock selects" in run.stdout + run.stderr
