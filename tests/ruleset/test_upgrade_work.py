"""What an upgrade plan leaves undone: rule files git lists as unchanged, a second parse of the same
bytes, repositories' tags asked one after the other, the tasks a run of `outdated` does not need."""

from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.loader import Loader
from agent_constitution.ruleset import changes
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.ruleset.models import Rule, load
from agent_constitution.ruleset.upgrade import plan_upgrade
from agent_constitution.sources import changed_paths, list_tags, tags_listed_once, version_tags
from tests.ruleset.builders import commit_all, write_manifest, write_rule, write_source
from tests.ruleset.conftest import PIN


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def moved(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """A source locked at v1 with rules 7-9, then v2 with rule 8 revised."""
    upstream = tmp_path / "upstream"
    write_source(upstream, {7: {"parent": "git"}, 8: {"parent": "git"}, 9: {"parent": "git"}})
    first = commit_all(upstream, "first", tag="v1.0.0")
    repo = tmp_path / "repo"
    write_manifest(repo, {"constitution": PIN, "sources": {"ac": {"url": str(upstream), "version": ">=1"}},
                          "rules": ["ac:7", "ac:8", "ac:9"]})
    sync_lock(repo)
    write_rule(upstream, 8, parent="git", revision=2, text={"en": "Revised.", "zh": "修订。"})
    second = commit_all(upstream, "revise 8", tag="v1.1.0")
    return upstream, repo, first, second


def test_changed_paths_names_what_git_changed_between_two_commits(tmp_path):
    upstream, repo, first, second = moved(tmp_path)
    plan_upgrade(repo)  # fetches v1.1.0 into the mirror
    assert changed_paths(url=str(upstream), old=first, new=second, base_dir=repo) == {"rules/8.toml"}
    assert changed_paths(url=str(upstream), old=first, new="0" * 40, base_dir=repo) is None


def test_only_the_rules_git_lists_as_changed_are_read(tmp_path, monkeypatch):
    _, repo, _, _ = moved(tmp_path)
    read = []
    files = changes._files
    monkeypatch.setattr(changes, "_files", lambda selected: read.append(selected.rule_id) or files(selected))
    upgrade = plan_upgrade(repo)
    assert [change.ref for change in upgrade.rules] == ["ac:8"]
    assert sorted(read) == [8, 8]  # its old and its new file; rules 7 and 9 are not opened


def test_the_same_bytes_load_as_the_same_rule_and_other_bytes_anew(tmp_path):
    write_source(tmp_path / "a", {7: {"parent": "git"}})
    write_source(tmp_path / "b", {7: {"parent": "git"}})
    first = load(Rule, tmp_path / "a" / "rules" / "7.toml")
    assert load(Rule, tmp_path / "b" / "rules" / "7.toml") is first
    write_rule(tmp_path / "b", 7, parent="ci")
    other = load(Rule, tmp_path / "b" / "rules" / "7.toml")
    assert other is not first and other.parent == "ci"


def test_tags_listed_at_once_are_what_asking_one_by_one_gives(tmp_path):
    upstream, repo, first, second = moved(tmp_path)
    alone = version_tags(url=str(upstream), base_dir=repo)
    with tags_listed_once():
        list_tags([(str(upstream), None, repo), (str(upstream), None, repo)])
        assert version_tags(url=str(upstream), base_dir=repo) == alone == [("v1.0.0", first), ("v1.1.0", second)]


def test_a_repository_that_cannot_be_listed_fails_when_its_tags_are_asked_for(tmp_path, capsys):
    missing = tmp_path / "gone.git"
    (missing / "objects").mkdir(parents=True)
    (missing / "HEAD").write_text("not a ref\n")  # looks like a bare repository; git cannot read it
    with tags_listed_once():
        list_tags([(f"file://{missing}", None, tmp_path)])
        with pytest.raises(UserError, match="gone.git"):
            version_tags(url=f"file://{missing}", base_dir=tmp_path)
    assert capsys.readouterr().err.count("listing the tags of") == 1  # asked once, its failure kept


class _Run:
    name = "run"
    execute_tasks = True


@pytest.mark.parametrize(("words", "alone"), [
    (["outdated"], True),
    (["upgrade", "--source", "ac"], True),
    (["outdated", "compile"], False),
])
def test_a_run_of_outdated_or_upgrade_creates_only_its_task(tmp_path, monkeypatch, words, alone):
    monkeypatch.chdir(tmp_path)
    loader = Loader()
    loader.setup({})
    loader.cmd_names, loader.config, loader.task_opts = [], None, None
    names = {task.name.split(":")[0] for task in loader.load_tasks(_Run(), words)}
    assert (names == {words[0]}) is alone
    assert "compile" in {task.name for task in loader.load_tasks(_Run(), ["compile"])}
