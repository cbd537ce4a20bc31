"""The lockfile: determinism, staleness, --locked, git sources and cross-source version ranges."""

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import read_lock, resolve_documents, sync_lock
from agent_constitution.ruleset.resolve import resolve
from agent_constitution.ruleset.resolved import index_path, read_index
from tests.ruleset.builders import commit_all, write_manifest, write_rule, write_source
from tests.ruleset.conftest import PIN


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


SELECTION = {"rules": ["ac:4", "ac:8"], "choices": {"ac:ci-service": "ac:5"}, "segment": [{"path": "web", "rules": ["ac:9"]}]}


def test_lock_is_deterministic_across_runs_and_folders(project, tmp_path):
    project.manifest(**SELECTION)
    _, wrote = sync_lock(project.root)
    assert wrote
    first = (project.root / "rules.lock").read_bytes()
    assert sync_lock(project.root) [1] is False
    assert (project.root / "rules.lock").read_bytes() == first
    other = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(project.root, other)
    (other / "rules.lock").unlink()
    sync_lock(other)
    assert (other / "rules.lock").read_bytes() == first
    text = first.decode()
    assert str(tmp_path) not in text
    # Each rule once; the nested segment as its delta over the root.
    assert text.count('"ac:1" = { revision = 1,') == 1 and 'path = "web"\nadded = [\n    "ac:9",\n]' in text


def test_lock_records_inputs_and_detects_a_changed_manifest(project):
    project.manifest(**SELECTION)
    sync_lock(project.root)
    lock = read_lock(project.root)
    assert lock.manifest.inputs == ("rules.toml",)
    assert [source.path for source in lock.source] == ["src"]
    assert lock.enabled()["."] == ("ac:1", "ac:2", "ac:4", "ac:5", "ac:8")
    # A comment changes nothing the lock depends on.
    path = project.root / "rules.toml"
    path.write_text("# our rules\n" + path.read_text())
    assert sync_lock(project.root, locked=True)[1] is False
    project.manifest(**{**SELECTION, "rules": ["ac:4"]})
    with pytest.raises(UserError) as caught:
        sync_lock(project.root, locked=True)
    assert "was made from a different rules.toml" in str(caught.value)
    assert "(segment . drops ac:8; segment web drops ac:8)" in str(caught.value)
    assert "fix: run `doit lock`" in str(caught.value)


def test_ci_environment_means_locked(project, monkeypatch):
    project.manifest(**SELECTION)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(UserError, match="rules.lock does not exist"):
        sync_lock(project.root)


def test_changed_rule_text_changes_the_lock(project):
    project.manifest(**SELECTION)
    sync_lock(project.root)
    write_rule(project.root / "src", 8, parent="git", conflicts=[7], revision=2)
    with pytest.raises(UserError, match="records other sources or rule revisions") as caught:
        sync_lock(project.root, locked=True)
    assert "(segment . revises ac:8 1 → 2; segment web revises ac:8 1 → 2)" in str(caught.value)
    sync_lock(project.root)
    assert '"ac:8" = { revision = 2,' in (project.root / "rules.lock").read_text()


def git_source(root: Path, versions: dict[str, dict[int, dict]], **kwargs) -> dict[str, str]:
    """A git repository with one commit and tag per version; returns tag → commit."""
    commits = {}
    for tag, rules in versions.items():
        for old in (root / "rules").glob("*.toml") if (root / "rules").exists() else []:
            old.unlink()
        write_source(root, rules, **kwargs)
        commits[tag] = commit_all(root, tag, tag)
    return commits


def test_git_source_stays_at_its_locked_commit(tmp_path):
    upstream = tmp_path / "upstream"
    commits = git_source(upstream, {"v1.0.0": {7: {"parent": "git"}}})
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": PIN, "sources": {"ac": {"url": str(upstream), "branch": "main"}}, "rules": ["ac:7"]})
    sync_lock(repo)
    assert read_lock(repo).source[0].commit == commits["v1.0.0"]
    write_rule(upstream, 7, parent="git", revision=2)
    newer = commit_all(upstream, "reword")
    assert sync_lock(repo)[1] is False  # the branch moved, the lock did not
    resolution = resolve(repo, read_lock(repo), move=frozenset({"ac"}))
    assert resolution.fetched[next(iter(resolution.fetched))].snapshot.commit == newer


def test_the_index_lists_the_sources_as_rules_lock_holds_them(tmp_path):
    """The check reports link a rule to its source at the locked commit from the index, which the
    checks read instead of rules.lock: its name, url and commit per source as the file holds them,
    after a lock that wrote the file, one that left it, and a check's resolution against a lock
    that no longer pins what the manifest asks for (the file as it is, not the resolution)."""
    upstream, other = tmp_path / "upstream", tmp_path / "other"
    commits = git_source(upstream, {"v1.0.0": {7: {"parent": "git"}}})
    git_source(other, {"v1.0.0": {3: {"parent": "git"}}})
    repo, cache = tmp_path / "repo", tmp_path / "repo" / "cache"
    manifest = {"constitution": PIN, "sources": {"ac": {"url": str(upstream), "branch": "main"}}, "rules": ["ac:7"]}
    write_manifest(repo, manifest)

    def as_written() -> tuple:
        lock = tomllib.loads((repo / "rules.lock").read_text(encoding="utf-8"))
        return tuple((item["name"], item.get("url"), item.get("commit")) for item in lock["source"])

    assert sync_lock(repo, cache=cache)[1] is True
    assert read_index(cache).locked == as_written() == (("ac", str(upstream), commits["v1.0.0"]),)
    assert sync_lock(repo, cache=cache)[1] is False
    assert read_index(cache).locked == as_written()
    manifest["sources"]["ext"] = {"url": str(other), "branch": "main"}
    write_manifest(repo, manifest)
    resolve_documents(repo, cache)
    assert read_index(cache).locked == as_written() == (("ac", str(upstream), commits["v1.0.0"]),)
    # An index an earlier version wrote, without the list, is no index: the lock stage writes it again.
    older = json.loads(index_path(cache).read_text(encoding="utf-8"))
    del older["locked"]
    index_path(cache).write_text(json.dumps(older), encoding="utf-8")
    assert read_index(cache) is None


def test_transitive_source_picks_newest_version_in_every_range(tmp_path):
    base = tmp_path / "base"
    git_source(base, {v: {1: {"parent": "git"}} for v in ("v1.0.0", "v1.2.0", "v2.0.0")}, name="base")
    team = tmp_path / "team"
    write_source(
        team, {5: {"parent": "git", "requires": ["base:1"]}}, name="team",
        sources={"base": {"url": str(base), "versions": ">=1.0, <2"}},
    )
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": {**PIN, "source": "team"}, "sources": {"team": {"path": "../team"}}, "rules": ["team:5"]})
    resolution = resolve(repo)
    assert [(r.source, r.id, r.why) for r in resolution.segment(".").rules] == [
        ("base", 1, "required-by team:5"), ("team", 5, "selected"),
    ]
    sync_lock(repo)
    entry = next(source for source in read_lock(repo).source if source.name == "base")
    assert entry.version == "v1.2.0"


def test_conflicting_version_declarations_are_named(tmp_path):
    base = tmp_path / "base"
    git_source(base, {v: {1: {"parent": "git"}} for v in ("v1.0.0", "v2.0.0")}, name="base")
    team = tmp_path / "team"
    write_source(
        team, {5: {"parent": "git", "requires": ["base:1"]}}, name="team",
        sources={"base": {"url": str(base), "versions": ">=1.0, <2"}},
    )
    repo = tmp_path / "repo"
    write_manifest(
        repo,
        {
            "constitution": {**PIN, "source": "team"},
            "sources": {"team": {"path": "../team"}, "b": {"url": str(base), "tag": "v2.0.0"}},
            "rules": ["team:5"],
        },
    )
    with pytest.raises(UserError) as caught:
        resolve(repo)
    message = str(caught.value)
    assert "no version of source" in message
    assert "rules.toml follows b at tag v2.0.0 (commit " in message
    assert "team (rules/source.toml [sources.base]) accepts b >=1.0, <2" in message
    assert 'fix: in rules.toml [sources.b], follow a version every other declaration accepts: version = ">=1.0, <2"' in message


def test_two_sources_whose_ranges_exclude_each_other(tmp_path):
    base = tmp_path / "base"
    git_source(base, {v: {1: {"parent": "git"}} for v in ("v1.0.0", "v2.0.0")}, name="base")
    for name, rule_id, versions in (("team", 5, ">=1.0, <2"), ("other", 7, ">=2")):
        write_source(
            tmp_path / name, {rule_id: {"parent": "git", "requires": ["base:1"]}}, name=name,
            sources={"base": {"url": str(base), "versions": versions}},
        )
    repo = tmp_path / "repo"
    write_manifest(
        repo,
        {
            "constitution": {**PIN, "source": "team"},
            "sources": {"team": {"path": "../team"}, "other": {"path": "../other"}},
            "rules": ["team:5", "other:7"],
        },
    )
    with pytest.raises(UserError) as caught:
        resolve(repo)
    message = str(caught.value)
    assert "team (rules/source.toml [sources.base]) accepts base >=1.0, <2" in message
    assert "other (rules/source.toml [sources.base]) accepts base >=2" in message
    assert "versions of base found: v1.0.0, v2.0.0" in message
    assert "fix: the declarations above exclude each other" in message


def test_requirement_into_another_source_must_exist(tmp_path):
    write_source(tmp_path / "base", {1: {"parent": "git"}}, name="base")
    write_source(
        tmp_path / "team", {5: {"parent": "git", "requires": ["base:99"]}, 6: {"parent": "git", "requires": ["base:1"]}},
        name="team", sources={"base": {"url": str(tmp_path / "base")}},
    )
    repo = tmp_path / "repo"
    sources = {"team": {"path": "../team"}, "b": {"path": "../base"}}  # a plain folder overrides the url
    write_manifest(repo, {"constitution": {**PIN, "source": "team"}, "sources": sources, "rules": ["team:6"]})
    assert [(r.source, r.id) for r in resolve(repo).segment(".").rules] == [("b", 1), ("team", 6)]
    write_manifest(repo, {"constitution": {**PIN, "source": "team"}, "sources": sources, "rules": ["team:5"]})
    with pytest.raises(UserError, match="team:5 requires b:99, which does not exist in source b"):
        resolve(repo)


def test_user_level_manifest_takes_user_tier_rules(tmp_path):
    user = tmp_path / "config" / "agent-constitution"
    write_source(tmp_path / "src", {7: {"parent": "git", "tier": "user"}, 8: {"parent": "git"}, 9: {"parent": "python"}})
    write_manifest(user, {"constitution": PIN, "sources": {"ac": {"path": str(tmp_path / "src")}}, "rules": ["ac:git", "ac:9"]})
    resolution, wrote = sync_lock(user, tier="user")
    assert wrote and [rule.id for rule in resolution.segment(".").rules] == [9, 7]  # tree order: python before git
    (warning,) = resolution.segment(".").warnings
    assert "ac:9" in warning and "is a repo-tier rule, selected in a user-level manifest" in warning


def test_bad_version_range_and_unknown_upgrade_source(tmp_path):
    from agent_constitution.ruleset.upgrade import plan_upgrade

    base = tmp_path / "base"
    git_source(base, {"v1.0.0": {1: {"parent": "git"}}}, name="base")
    team = tmp_path / "team"
    write_source(team, {5: {"parent": "git", "requires": ["base:1"]}}, name="team",
                 sources={"base": {"url": str(base), "versions": "about one"}})
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": {**PIN, "source": "team"}, "sources": {"team": {"path": "../team"}}, "rules": ["team:5"]})
    with pytest.raises(UserError) as caught:
        resolve(repo)
    assert "'about one' is not a version range" in str(caught.value)
    write_source(team, {5: {"parent": "git", "requires": ["base:1"]}}, name="team",
                 sources={"base": {"url": str(base), "versions": ">=1"}})
    sync_lock(repo)
    with pytest.raises(UserError, match="the lock has no source named 'nope'"):
        plan_upgrade(repo, "nope")


def test_transitive_source_without_range_follows_its_default_branch(tmp_path):
    base = tmp_path / "base"
    write_source(base, {1: {"parent": "git"}}, name="base")
    head = commit_all(base, "untagged")
    team = tmp_path / "team"
    write_source(team, {5: {"parent": "git", "requires": ["base:1"]}}, name="team", sources={"base": {"url": str(base)}})
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": {**PIN, "source": "team"}, "sources": {"team": {"path": "../team"}}, "rules": ["team:5"]})
    sync_lock(repo)
    entry = next(source for source in read_lock(repo).source if source.name == "base")
    assert entry.commit == head and entry.version is None
