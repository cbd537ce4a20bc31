from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.errors import UserError
from agent_constitution.sources import normalize_url

names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,15}", fullmatch=True)


@settings(max_examples=50)
@given(owner=names, repo=names)
def test_every_spelling_of_a_github_repo_is_one_key(owner: str, repo: str):
    spellings = [
        f"github.com/{owner}/{repo}",
        f"https://github.com/{owner}/{repo}.git",
        f"https://GitHub.com/{owner}/{repo}/",
        f"http://github.com/{owner}/{repo}",
        f"git@github.com:{owner}/{repo}",
        f"git@github.com:{owner}/{repo}.git",
        f"ssh://git@github.com/{owner}/{repo}",
    ]
    keys = {normalize_url(spelling) for spelling in spellings}
    assert keys == {f"github.com/{owner}/{repo}"}
    assert normalize_url(keys.pop()) == f"github.com/{owner}/{repo}"


def test_a_port_stays_part_of_the_key():
    assert normalize_url("https://git.example.test:8443/team/rules.git") == "git.example.test:8443/team/rules"


def test_local_paths_become_absolute_paths(tmp_path: Path):
    base = tmp_path / "repo"
    assert normalize_url("../rules", base_dir=base) == str(tmp_path / "rules")
    assert normalize_url("./rules", base_dir=base) == str(base / "rules")
    assert normalize_url("rules", base_dir=base) == str(base / "rules")
    assert normalize_url(f"file://{tmp_path}/rules") == str(tmp_path / "rules")
    assert normalize_url(str(tmp_path / "x" / ".." / "rules")) == str(tmp_path / "rules")


@pytest.mark.parametrize("url", ["", "   ", "https://github.com/", "github.com//"])
def test_urls_naming_no_repository_are_errors(url: str):
    with pytest.raises(UserError) as raised:
        normalize_url(url)
    assert "fix:" in str(raised.value)
