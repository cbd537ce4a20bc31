"""upgrade, outdated, replace (upgrade --branch: test_pull_request.py)."""

from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import read_lock, sync_lock
from agent_constitution.ruleset.upgrade import apply_upgrade, plan_upgrade, replace_superseded
from tests.ruleset.builders import commit_all, write_manifest, write_rule, write_source
from tests.ruleset.conftest import PIN


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def setup(tmp_path: Path) -> tuple[Path, Path]:
    upstream = tmp_path / "upstream"
    write_source(upstream, {7: {"parent": "git"}, 8: {"parent": "git"}})
    commit_all(upstream, "first")
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": PIN, "sources": {"ac": {"url": str(upstream), "branch": "main"}}, "rules": ["ac:7"]})
    sync_lock(repo)
    commit_all(repo, "start")
    return upstream, repo


def test_upgrade_moves_the_branch_and_diffs_changed_rules(tmp_path):
    upstream, repo = setup(tmp_path)
    old_commit = read_lock(repo).source[0].commit
    assert plan_upgrade(repo).report() == "everything is up to date"
    write_rule(upstream, 7, parent="git", revision=2, authority=["must-ask"])
    new_commit = commit_all(upstream, "refine 7")
    upgrade = plan_upgrade(repo)
    report = upgrade.report()
    assert f"ac: {old_commit[:12]} → {new_commit[:12]}" in report
    assert "ac:7: revision 1 → 2" in report
    assert "-revision = 1\n+revision = 2" in report
    assert read_lock(repo).source[0].commit == old_commit  # planning (outdated) writes nothing
    apply_upgrade(repo, upgrade)
    assert read_lock(repo).source[0].commit == new_commit
    assert sync_lock(repo, locked=True)[1] is False


def test_upgrade_needs_a_lock(project):
    project.manifest(rules=["ac:7"])
    with pytest.raises(UserError, match="rules.lock does not exist"):
        plan_upgrade(project.root)


def test_replace_keeps_comments_and_layout(project):
    write_rule(project.root / "src", 9, parent="git", status="superseded", superseded_by=10)
    write_rule(project.root / "src", 10, parent="git", status="superseded", superseded_by=11)
    write_rule(project.root / "src", 11, parent="git")
    text = """# our rules
rules = [
    "ac:9",  # the old one
    "ac:7",
]

[constitution]
source = "ac"
edition = "2026-10"
revision = "0.1"

[sources]
ac = { path = "src" }  # the local source

[[segment]]
path = "web"
rules = ["ac:10"]
"""
    (project.root / "rules.toml").write_text(text)
    assert replace_superseded(project.root) == [("ac:9", "ac:11"), ("ac:10", "ac:11")]
    assert (project.root / "rules.toml").read_text() == text.replace('"ac:9"', '"ac:11"').replace('"ac:10"', '"ac:11"')
    assert replace_superseded(project.root) == []


MANIFEST_TEXT = """# our rules
rules = ["ac:7"]   # one rule

[constitution]
source = "ac"
edition = "2026-10"
revision = "0.1"

[sources]
ac = {{ url = "{url}",   {field} = '{value}' }}  # pinned on purpose
"""


def test_upgrade_moves_a_tag_pin_editing_only_its_value(tmp_path):
    # Before, a tag never moved ("everything is up to date" beside "newer: v1.1.0"): the pin now follows.
    upstream = tmp_path / "upstream"
    write_source(upstream, {7: {"parent": "git"}})
    commit_all(upstream, "first", "v1.0.0")
    repo = tmp_path / "repo"
    repo.mkdir()
    text = MANIFEST_TEXT.format(url=upstream, field="tag", value="v1.0.0")
    (repo / "rules.toml").write_text(text)
    sync_lock(repo)
    lock_before = (repo / "rules.lock").read_bytes()
    assert plan_upgrade(repo).report() == "everything is up to date"
    write_rule(upstream, 7, parent="git", revision=2)
    second = commit_all(upstream, "second", "v1.1.0")
    commit_all(upstream, "a pre-release is not taken from a final release", "v2.0.0rc1")
    upgrade = plan_upgrade(repo)
    report = upgrade.report()
    assert f"ac: v1.0.0 ({read_lock(repo).source[0].commit[:12]}) → v1.1.0 ({second[:12]})" in report
    assert "rules.toml: [sources.ac] tag v1.0.0 → v1.1.0" in report
    assert "ac:7: revision 1 → 2" in report and "-revision = 1\n+revision = 2" in report
    assert (repo / "rules.lock").read_bytes() == lock_before  # planning writes nothing
    apply_upgrade(repo, upgrade)
    assert (repo / "rules.toml").read_text() == text.replace("'v1.0.0'", '"v1.1.0"')
    assert read_lock(repo).source[0].commit == second and read_lock(repo).source[0].tag == "v1.1.0"
    assert sync_lock(repo, locked=True)[1] is False


def test_upgrade_moves_a_rev_pin_to_the_default_branch_head(tmp_path):
    # The starter manifest `init` writes pins its trusted source by rev: upgrade now moves it forward.
    upstream = tmp_path / "upstream"
    write_source(upstream, {7: {"parent": "git"}})
    first = commit_all(upstream, "first")
    repo = tmp_path / "repo"
    repo.mkdir()
    text = MANIFEST_TEXT.format(url=upstream, field="rev", value=first[:12])
    (repo / "rules.toml").write_text(text)
    sync_lock(repo)
    lock_before = (repo / "rules.lock").read_bytes()
    upgrade = plan_upgrade(repo)
    assert upgrade.report() == "everything is up to date"
    apply_upgrade(repo, upgrade)
    assert (repo / "rules.lock").read_bytes() == lock_before and (repo / "rules.toml").read_text() == text
    write_rule(upstream, 7, parent="git", revision=2)
    second = commit_all(upstream, "second")
    upgrade = plan_upgrade(repo, "ac")
    assert f"rules.toml: [sources.ac] rev {first[:12]} → {second}" in upgrade.report()
    apply_upgrade(repo, upgrade)
    assert (repo / "rules.toml").read_text() == text.replace(f"'{first[:12]}'", f'"{second}"')
    assert read_lock(repo).source[0].commit == second
