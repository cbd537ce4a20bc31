"""What upgrade shows per rule: check code (python module, external script) and status changes too."""

from pathlib import Path

import pytest

from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.ruleset.upgrade import plan_upgrade
from tests.ruleset.builders import commit_all, write_manifest, write_rule, write_source
from tests.ruleset.conftest import PIN

SCRIPT = "rules/scripts/check_8.py"


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def setup(tmp_path: Path) -> tuple[Path, Path]:
    upstream = tmp_path / "upstream"
    write_source(upstream, {
        7: {"parent": "git", "check": {"python": "r7"}},
        8: {"parent": "git", "check": {"command": ["python3", f"{{source}}/{SCRIPT}"]}},
        9: {"parent": "git"},
        10: {"parent": "git"},
    })
    (upstream / "rules" / "checks").mkdir()
    (upstream / "rules" / "checks" / "r7.py").write_text("def check(context):\n    return []\n")
    (upstream / SCRIPT).parent.mkdir()
    (upstream / SCRIPT).write_text("print('ok')\n")
    commit_all(upstream, "first")
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": PIN, "sources": {"ac": {"url": str(upstream), "branch": "main"}},
                          "rules": ["ac:7", "ac:8", "ac:9"]})
    sync_lock(repo)
    return upstream, repo


def change(upgrade, ref):
    return next(item for item in upgrade.rules if item.ref == ref)


def test_a_python_check_change_shows_its_code_diff(tmp_path):
    upstream, repo = setup(tmp_path)
    write_rule(upstream, 7, parent="git", revision=2, check={"python": "r7"})
    (upstream / "rules" / "checks" / "r7.py").write_text("def check(context):\n    return ['finding']\n")
    commit_all(upstream, "stricter check 7")
    upgrade = plan_upgrade(repo)
    found = change(upgrade, "ac:7")
    assert found.summary == "check code changed"
    assert "--- a/ac:7/rules/checks/r7.py\n+++ b/ac:7/rules/checks/r7.py" in found.diff
    assert "-    return []\n+    return ['finding']" in found.diff
    assert "ac:7: revision 1 → 2: check code changed\n--- a/ac:7/rule" in upgrade.report()


def test_an_external_script_change_shows_without_a_revision_bump(tmp_path):
    upstream, repo = setup(tmp_path)
    (upstream / SCRIPT).write_text("print('stricter')\n")
    commit_all(upstream, "stricter script")
    upgrade = plan_upgrade(repo)
    (found,) = upgrade.rules
    assert (found.ref, found.old_revision, found.new_revision) == ("ac:8", 1, 1)
    assert f"--- a/ac:8/{SCRIPT}" in found.diff and "-print('ok')\n+print('stricter')" in found.diff
    assert "/rule\n" not in found.diff  # the rule file itself did not change
    assert upgrade.report().splitlines()[1] == "ac:8: revision 1, unchanged: check code changed"


def test_a_status_change_shows_with_its_successor(tmp_path):
    upstream, repo = setup(tmp_path)
    write_rule(upstream, 9, parent="git", revision=2, status="superseded", superseded_by=10)
    write_rule(upstream, 10, parent="git", supersedes=9)
    commit_all(upstream, "supersede 9")
    upgrade = plan_upgrade(repo)
    found = change(upgrade, "ac:9")
    assert found.summary == "status active → superseded (by 10)"
    assert '\n-status = "active"\n' in found.diff and '\n+status = "superseded"\n' in found.diff
    assert "\n+superseded_by = 10\n" in found.diff
    assert "ac:9: revision 1 → 2: status active → superseded (by 10)" in upgrade.report()


def test_a_text_change_names_the_field(tmp_path):
    upstream, repo = setup(tmp_path)
    path = upstream / "rules" / "9.toml"
    path.write_text(path.read_text().replace("revision = 1", "revision = 2").replace("Text of rule 9.", "New text."))
    commit_all(upstream, "reword 9")
    assert change(plan_upgrade(repo), "ac:9").summary == "text changed"


def test_leaving_the_default_set_is_listed_without_a_revision(tmp_path):
    upstream, repo = setup(tmp_path)
    path = upstream / "rules" / "9.toml"
    path.write_text(path.read_text().replace('parent = "git"', 'parent = "git"\ndefault = false'))
    commit_all(upstream, "9 becomes opt-in")
    found = change(plan_upgrade(repo), "ac:9")
    assert (found.old_revision, found.new_revision, found.summary) == (1, 1, "default set changed")


def test_an_unchanged_rule_is_not_listed(tmp_path):
    upstream, repo = setup(tmp_path)
    (upstream / "README.md").write_text("docs only\n")
    commit_all(upstream, "docs")
    upgrade = plan_upgrade(repo)
    assert len(upgrade.sources) == 1 and upgrade.rules == ()


def test_a_constitution_move_is_reported_and_in_the_pull_request(tmp_path):
    from agent_constitution.ruleset.pull_request import pull_request

    upstream, repo = setup(tmp_path)
    (upstream / "constitution" / "2026-10" / "constitution.md").write_text("# Constitution\n\nAmended.\n")
    new_commit = commit_all(upstream, "amend the constitution")
    upgrade = plan_upgrade(repo)
    assert upgrade.constitution is not None and upgrade.constitution.name == "ac"
    assert upgrade.constitution.new == f"2026-10 revision 0.1 ({new_commit[:12]})"
    assert "constitution (ac): 2026-10 revision 0.1 (" in upgrade.report()
    _, body = pull_request(upgrade)
    assert f"## Constitution\n\n- ac: {upgrade.constitution.old} → {upgrade.constitution.new}\n" in body
