"""Every error a source can raise: one clear message with a fix."""

import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.sources import fetch, newest_commit, version_tags

from .conftest import git


def _error(**kwargs) -> str:
    with pytest.raises(UserError) as raised:
        fetch(**kwargs)
    text = str(raised.value)
    assert "\n  fix: " in text
    return text


@pytest.fixture
def web_server(tmp_path: Path):
    """A local web server that serves an empty folder: it answers, but no git repository."""
    (tmp_path / "site").mkdir()

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path / "site"), **kwargs)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


def test_unreachable_host(tmp_path: Path, user_cache: Path):
    # Port 1 on the loopback refuses at once: an unreachable server without touching the network.
    text = _error(url="https://127.0.0.1:1/team/rules.git", base_dir=tmp_path)
    assert "cannot reach the source https://127.0.0.1:1/team/rules.git" in text
    assert [p.name for p in (user_cache / "git").iterdir() if p.is_dir()] == []  # no empty mirror left


def test_missing_folder(tmp_path: Path, user_cache: Path):
    assert "the folder" in _error(path="nowhere", base_dir=tmp_path) and "does not exist" in _error(
        url="../nowhere", branch="main", base_dir=tmp_path
    )


def test_url_that_is_not_a_repository(tmp_path: Path, user_cache: Path, web_server: str):
    text = _error(url=f"{web_server}/team/rules.git", base_dir=tmp_path)
    assert "is not a git repository that can be fetched" in text


def test_unknown_tag_lists_the_tags(origin: Path, user_cache: Path):
    text = _error(url="origin", tag="v9", base_dir=origin.parent)
    assert "has no tag 'v9'" in text and "its tags: v1.0.0" in text


def test_unknown_branch_lists_the_branches(origin: Path, user_cache: Path):
    text = _error(url="origin", branch="develop", base_dir=origin.parent)
    assert "has no branch 'develop'" in text and "its branches: main" in text
    with pytest.raises(UserError, match="has no branch 'develop'"):
        newest_commit(url="origin", branch="develop", base_dir=origin.parent)


def test_unknown_rev(origin: Path, user_cache: Path):
    assert "has no commit 'nonsense~'" in _error(url="origin", rev="nonsense~", base_dir=origin.parent)


def test_pinned_commit_the_source_does_not_have(origin: Path, user_cache: Path):
    text = _error(url="origin", commit="0" * 40, base_dir=origin.parent)
    assert f"has no commit {'0' * 40} (the lock pins it)" in text


def test_malformed_commit(origin: Path, user_cache: Path):
    assert "is not a commit id" in _error(url="origin", commit="v1.0.0", base_dir=origin.parent)


def test_two_things_to_follow(origin: Path, user_cache: Path):
    assert "not tag and branch" in _error(url="origin", tag="v1.0.0", branch="main", base_dir=origin.parent)


def test_url_and_path_together_or_neither(tmp_path: Path):
    assert "either `url` or `path`, not both" in _error(url="x", path="y", base_dir=tmp_path)
    assert "either `url` or `path`" in _error(base_dir=tmp_path)


def test_plain_folder_has_no_versions(tmp_path: Path, user_cache: Path):
    (tmp_path / "dev" / "rules").mkdir(parents=True)
    assert "is a plain folder, not a git repository" in _error(path="dev", tag="v1", base_dir=tmp_path)
    with pytest.raises(UserError, match="plain folder"):
        version_tags(path="dev", base_dir=tmp_path)


def test_repository_without_default_branch(tmp_path: Path, user_cache: Path):
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    assert "has no default branch" in _error(url="empty", base_dir=tmp_path)


def test_a_token_in_a_url_never_appears_in_a_message(tmp_path: Path, user_cache: Path):
    text = _error(url="https://user:s3cret@127.0.0.1:1/team/rules.git", base_dir=tmp_path)
    assert "s3cret" not in text and "https://***@127.0.0.1:1/team/rules.git" in text
