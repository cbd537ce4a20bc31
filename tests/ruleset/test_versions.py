"""Versions on sources: ranges in rules.toml and source.toml, chosen with backtracking (ruleset.versions)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import read_lock, sync_lock
from agent_constitution.ruleset.resolve import resolve
from agent_constitution.ruleset.upgrade import apply_upgrade, plan_upgrade
from tests.ruleset.builders import commit_all, write_manifest, write_source
from tests.ruleset.conftest import PIN


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def tagged(root: Path, name: str, versions: dict[str, dict[str, str]], rule_id: int = 1) -> dict[str, str]:
    """A git source `name` with one rule; per tag, the ranges its source.toml declares (name → (url, range))."""
    commits = {}
    for tag, ranges in versions.items():
        write_source(
            root, {rule_id: {"parent": "git", "revision": len(commits) + 1}}, name=name,
            sources={dep: {"url": url, "versions": versions_} for dep, (url, versions_) in ranges.items()},
        )
        commits[tag] = commit_all(root, f"{name} {tag}", tag)
    return commits


def manifest(repo: Path, sources: dict, rules: list[str], constitution: str = "ac") -> Path:
    return write_manifest(repo, {"constitution": {**PIN, "source": constitution}, "sources": sources, "rules": rules})


def test_a_range_follows_the_newest_tag_inside_it_and_the_lock_records_both(tmp_path):
    up = tmp_path / "up"
    commits = tagged(up, "ac", {"v1.0.0": {}, "1.2.0": {}, "v1.3.0rc1": {}, "v2.0.0": {}, "v1.4-x.y": {}})
    repo = tmp_path / "repo"
    manifest(repo, {"ac": {"url": str(up), "version": ">=1, <2"}}, ["ac:1"])
    sync_lock(repo)
    locked = read_lock(repo).source[0]
    assert (locked.range, locked.version, locked.commit) == (">=1, <2", "1.2.0", commits["1.2.0"])
    text = (repo / "rules.lock").read_text()
    assert 'range = ">=1, <2"\nversion = "1.2.0"' in text
    # A new tag inside the range does not move the lock; only upgrade does.
    write_source(up, {1: {"parent": "git", "revision": 9}}, name="ac")
    newer = commit_all(up, "1.5", "v1.5.0")
    assert sync_lock(repo)[1] is False
    assert (repo / "rules.lock").read_text() == text
    upgrade = plan_upgrade(repo)
    assert upgrade.rows[0].upgrade == f"v1.5.0 ({newer[:12]})" and upgrade.rows[0].newest == "v2.0.0"
    table = upgrade.table()
    assert table.splitlines()[0].split() == ["source", "follows", "locked", "upgrade", "newest"]
    assert "ac      version >=1, <2" in table and table.rstrip().endswith("v2.0.0")
    assert "ac: tags v1.4-x.y are not PEP 440 versions and are ignored" in upgrade.report()
    apply_upgrade(repo, upgrade)
    assert read_lock(repo).source[0].version == "v1.5.0"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"version": ">=1", "tag": "v1.0.0"}, "give at most one of version, tag, branch, rev (found version, tag)"),
        ({"version": "1.2 or later"}, "'1.2 or later' is not a version range"),
        ({"versions": ">=1"}, "sources.ac.versions: unknown key"),
    ],
)
def test_a_source_entry_is_checked_where_it_is_written(tmp_path, entry, message):
    repo = tmp_path / "repo"
    manifest(repo, {"ac": {"url": "github.com/x/y", **entry}}, [])
    with pytest.raises(UserError) as caught:
        resolve(repo)
    assert message in str(caught.value) and "rules.toml" in str(caught.value)


def chain(tmp_path: Path) -> dict[str, dict[str, str]]:
    """c has v1 and v2; b v1 needs c <2, b v2 needs c >=2; a (a folder, the manifest's) needs b >=1."""
    c = tmp_path / "c"
    b = tmp_path / "b"
    commits = {"c": tagged(c, "c", {"v1.0.0": {}, "v2.0.0": {}}, rule_id=3)}
    commits["b"] = tagged(b, "b", {"v1.0.0": {"c": (str(c), "<2")}, "v2.0.0": {"c": (str(c), ">=2")}}, rule_id=2)
    write_source(tmp_path / "a", {1: {"parent": "git", "requires": ["b:2"]}}, name="ac",
                 sources={"b": {"url": str(b), "versions": ">=1"}})
    return commits


def test_backtracking_finds_the_chain_greedy_choice_misses(tmp_path):
    # Greedy takes b v2.0.0 (newest in >=1), which needs c >=2, while rules.toml pins c at v1.0.0.
    commits = chain(tmp_path)
    repo = tmp_path / "repo"
    manifest(repo, {"ac": {"path": "../a"}, "c": {"url": str(tmp_path / "c"), "tag": "v1.0.0"}}, ["ac:1", "c:3"])
    resolution, _ = sync_lock(repo)
    assert [(rule.source, rule.id) for rule in resolution.segment(".").rules] == [("ac", 1), ("b", 2), ("c", 3)]
    chosen = {source.name: (source.version, source.commit) for source in read_lock(repo).source}
    assert chosen["b"] == ("v1.0.0", commits["b"]["v1.0.0"])
    assert chosen["c"] == (None, commits["c"]["v1.0.0"])


def test_a_conflict_names_the_chain_and_a_downgrade(tmp_path):
    chain(tmp_path)
    repo = tmp_path / "repo"
    manifest(repo, {
        "ac": {"path": "../a"},
        "b": {"url": str(tmp_path / "b"), "version": ">=2"},
        "c": {"url": str(tmp_path / "c"), "tag": "v1.0.0"},
    }, ["ac:1", "c:3"])
    with pytest.raises(UserError) as caught:
        resolve(repo)
    message = str(caught.value)
    assert message.startswith("error: no version of source c (")
    lines = message.splitlines()
    assert "  rules.toml follows b with version >=2 → v2.0.0" in lines
    assert "  b v2.0.0 (rules/source.toml [sources.c]) accepts c >=2" in lines
    assert any(line.startswith("  rules.toml follows c at tag v1.0.0 (commit ") for line in lines)
    fix = lines[-1]
    assert fix.startswith("  fix: ")
    assert 'in rules.toml [sources.c], follow a version every other declaration accepts: version = ">=2" (or tag = "v2.0.0")' in fix
    assert 'pin b to <=1.0.0: set version = "<=1.0.0" in rules.toml [sources.b] (v1.0.0 fits)' in fix


def test_an_unchanged_lock_with_ranges_needs_no_network(tmp_path, capsys, monkeypatch):
    # The locked versions satisfy every declaration, so nothing lists tags or fetches: the sources may be gone.
    chain(tmp_path)
    repo = tmp_path / "repo"
    manifest(repo, {"ac": {"path": "../a"}, "c": {"url": str(tmp_path / "c"), "tag": "v1.0.0"}}, ["ac:1", "c:3"])
    sync_lock(repo)
    text = (repo / "rules.lock").read_bytes()
    for name in ("b", "c"):
        (tmp_path / name).rename(tmp_path / f"{name}-gone")
    capsys.readouterr()
    resolution, wrote = sync_lock(repo)
    assert capsys.readouterr().err == ""  # no tag listed, nothing fetched, no warning
    assert not wrote and (repo / "rules.lock").read_bytes() == text
    assert {resolution.world.names[key]: item.version for key, item in resolution.fetched.items()}["b"] == "v1.0.0"
    # A locked run verifies every locked commit against its repository (docs/rules.md): with the
    # repositories gone it fails, unless the build says it is offline, when it warns that nothing was verified.
    with pytest.raises(UserError, match="could not be verified"):
        sync_lock(repo, locked=True)
    monkeypatch.setenv("AGENT_CONSTITUTION_OFFLINE", "1")
    capsys.readouterr()
    _, wrote = sync_lock(repo, locked=True)
    assert not wrote and (repo / "rules.lock").read_bytes() == text
    assert "not verified" in capsys.readouterr().err


def test_a_source_moved_to_another_url_keeps_its_locked_commit(tmp_path, capsys):
    # Before, changing the URL silently re-resolved the branch: the mirror's head came in unasked.
    upstream = tmp_path / "up"
    first = tagged(upstream, "ac", {"v1.0.0": {}})["v1.0.0"]
    repo = tmp_path / "repo"
    manifest(repo, {"ac": {"url": str(upstream), "branch": "main"}}, ["ac:1"])
    sync_lock(repo)
    mirror = tmp_path / "mirror"
    subprocess.run(["git", "clone", "-q", "--mirror", str(upstream), str(mirror)], check=True)
    write_source(upstream, {1: {"parent": "git", "revision": 5}}, name="ac")
    newer = commit_all(upstream, "newer")
    subprocess.run(["git", "-C", str(mirror), "fetch", "-q", str(upstream), "main:main"], check=True)
    manifest(repo, {"ac": {"url": str(mirror), "branch": "main"}}, ["ac:1"])
    sync_lock(repo)
    assert read_lock(repo).source[0].commit == first and read_lock(repo).source[0].url == str(mirror)
    # A new address without that commit (another history) resolves the branch there, and says so.
    other = tmp_path / "other"
    head = tagged(other, "ac", {"v9.0.0": {}})["v9.0.0"]
    manifest(repo, {"ac": {"url": str(other), "branch": "main"}}, ["ac:1"])
    capsys.readouterr()
    sync_lock(repo)
    assert read_lock(repo).source[0].commit == head != newer
    assert (f"note: source ac moved from {mirror} to {other}, which has no commit {first[:12]} (the lock's);"
            " its branch main was resolved again there") in capsys.readouterr().err
