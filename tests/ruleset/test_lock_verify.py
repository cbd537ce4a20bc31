"""A locked run verifies `rules.lock` against what the sources' repositories name now, served by a real
`git daemon` on 127.0.0.1: a lock rolled back to an older commit (with that commit's digests) fails."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import read_lock, resolve_documents, sync_lock
from agent_constitution.ruleset.verify import OFFLINE_ENV
from tests.ruleset.builders import commit_all, git, write_manifest, write_rule, write_source
from tests.ruleset.conftest import PIN
from tests.sources import servers


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(OFFLINE_ENV, raising=False)


class Upstream:
    """A source's working repository and the bare repository the daemon serves, pushed to by hand."""

    def __init__(self, tmp_path: Path):
        self.work = tmp_path / "work"
        self.served = tmp_path / "served"
        write_source(self.work, {7: {"parent": "git"}})
        self.commits = [commit_all(self.work, "first")]
        self.served.mkdir()
        git(self.served, "init", "-q", "--bare", "ac.git")
        self.push()

    def revise(self) -> str:
        write_rule(self.work, 7, parent="git", revision=len(self.commits) + 1)
        self.commits.append(commit_all(self.work, f"revision {len(self.commits) + 1}"))
        return self.commits[-1]

    def tag(self, name: str, commit: str) -> None:
        git(self.work, "tag", "-f", name, commit)

    def push(self) -> None:
        git(self.work, "push", "-q", "--force", str(self.served / "ac.git"), "main", "--tags")

    @contextmanager
    def daemon(self) -> Iterator[str]:
        with servers.git_daemon(self.served) as url:
            yield f"{url}/ac.git"


@pytest.fixture
def upstream(tmp_path: Path) -> Upstream:
    return Upstream(tmp_path)


def manifest(repo: Path, url: str, **request) -> None:
    write_manifest(repo, {"constitution": PIN, "sources": {"ac": {"url": url, **request}}, "rules": ["ac:7"]})


def refused(repo: Path) -> str:
    with pytest.raises(UserError) as raised:
        sync_lock(repo, locked=True)
    return str(raised.value)


def test_a_lock_rolled_back_under_a_tag_fails_naming_both_commits(upstream: Upstream, tmp_path: Path, monkeypatch):
    old = upstream.commits[0]
    upstream.tag("v1", old)
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        sync_lock(repo)
        rolled_back = (repo / "rules.lock").read_text()  # the lock of the older commit, its digests and all
        new = upstream.revise()
        upstream.tag("v1", new)  # the tag moved forward upstream, and a lock made afresh took it
        upstream.push()
        (repo / "rules.lock").unlink()
        monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "another-cache"))
        sync_lock(repo)
        assert read_lock(repo).source[0].commit == new
        assert sync_lock(repo, locked=True)[1] is False  # the lock as it should be passes
        (repo / "rules.lock").write_text(rolled_back)  # a pull request that edits only rules.lock
        text = refused(repo)
    assert "rules.lock does not pin what rules.toml asks for (--locked was given" in text
    assert f"source ac (tag = 'v1'): the lock pins commit {old}, an older commit than the one tag v1 names now" in text
    assert f"a rollback of the lock, or tag v1 moved on since ({new})" in text
    assert (repo / "rules.lock").read_text() == rolled_back


def test_a_tag_moved_back_upstream_fails(upstream: Upstream, tmp_path: Path):
    first = upstream.commits[0]
    second = upstream.revise()
    upstream.tag("v1", second)
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        sync_lock(repo)
        upstream.tag("v1", first)
        upstream.push()
        text = refused(repo)
    assert f"the lock pins commit {second}, a newer commit than the one tag v1 names now: tag v1 was moved back ({first})" in text


def test_a_deleted_tag_fails(upstream: Upstream, tmp_path: Path):
    upstream.tag("v1", upstream.commits[0])
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        sync_lock(repo)
        git(upstream.served / "ac.git", "tag", "-d", "v1")
        text = refused(repo)
    assert "but the repository has no tag v1 now" in text


def test_a_branch_must_still_name_the_locked_commit(upstream: Upstream, tmp_path: Path):
    first = upstream.commits[0]
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, branch="main")
        sync_lock(repo)
        assert sync_lock(repo, locked=True)[1] is False
        second = upstream.revise()
        upstream.push()
        assert sync_lock(repo)[1] is False  # an unlocked run keeps the lock where it was
        text = refused(repo)
        assert f"source ac (branch = 'main'): the lock pins commit {first}, an older commit than the one branch main" in text
        assert second in text
        # The default branch (no request) is held the same way.
        manifest(repo, url)
        sync_lock(repo)
        assert read_lock(repo).source[0].commit == second
        upstream.revise()
        upstream.push()
        assert "(its default branch): the lock pins commit" in refused(repo)


def test_a_range_holds_the_version_tag_and_reports_a_newer_admitted_version(upstream: Upstream, tmp_path: Path, capsys):
    first = upstream.commits[0]
    upstream.tag("v1.0.0", first)
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, version=">=1, <2")
        sync_lock(repo)
        older = (repo / "rules.lock").read_text()
        upstream.tag("v1.1.0", upstream.revise())
        upstream.tag("v2.0.0", upstream.revise())  # not admitted by the range: never named
        upstream.push()
        assert sync_lock(repo, move=frozenset({"ac"}))[1] is True
        assert read_lock(repo).source[0].version == "v1.1.0"
        capsys.readouterr()
        assert sync_lock(repo, locked=True)[1] is False
        assert "warning" not in capsys.readouterr().err
        # Rolled back to v1.0.0, with its digests: the version's tag names that commit, so it passes,
        # but not silently.
        (repo / "rules.lock").write_text(older)
        assert sync_lock(repo, locked=True)[1] is False
        err = capsys.readouterr().err
        assert "warning: source ac is locked at v1.0.0, but its range >=1, <2 admits v1.1.0 (newer)" in err
        assert "the lock was rolled back, or made before v1.1.0; `doit upgrade ac` takes it" in err
        assert "v2.0.0" not in err
        # The locked version's tag moved: its name no longer tells the locked commit.
        upstream.tag("v1.0.0", upstream.commits[1])
        upstream.push()
        text = refused(repo)
    assert f"source ac (version = '>=1, <2'): the lock pins commit {first}, an older commit than the one tag v1.0.0" in text


def test_a_digest_that_is_not_the_commits_fails_naming_source_and_request(upstream: Upstream, tmp_path: Path):
    upstream.tag("v1", upstream.commits[0])
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        sync_lock(repo)
        lock = (repo / "rules.lock").read_text()
        digest = read_lock(repo).source[0].digest
        forged = "sha256:" + "0" * 64
        (repo / "rules.lock").write_text(lock.replace(digest, forged))
        text = refused(repo)
    assert f"the lock pins source ac (tag = 'v1') at commit {upstream.commits[0]} with digest {forged}" in text
    assert f"but that commit's content has digest {digest}" in text


def test_offline_the_lock_is_not_verified_and_says_so(upstream: Upstream, tmp_path: Path, monkeypatch, capsys):
    upstream.tag("v1", upstream.commits[0])
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        sync_lock(repo)
    # The daemon is stopped: the repository cannot be reached; the cache still holds the commit.
    text = refused(repo)
    assert "source ac (tag = 'v1') could not be verified: cannot reach the source git://127.0.0.1" in text
    assert f"set {OFFLINE_ENV}=1 (not verified)" in text
    monkeypatch.setenv(OFFLINE_ENV, "1")
    capsys.readouterr()
    assert sync_lock(repo, locked=True)[1] is False
    err = capsys.readouterr().err
    assert f"warning: source ac was not verified against its repository ({OFFLINE_ENV} is set)" in err
    assert "fetching" not in err  # offline asks no repository


def test_check_under_ci_verifies_the_lock_it_resolves_against(upstream: Upstream, tmp_path: Path, monkeypatch):
    upstream.tag("v1", upstream.commits[0])
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        sync_lock(repo)
        upstream.tag("v1", upstream.revise())
        upstream.push()
        resolve_documents(repo, repo / "cache")  # not locked: the lock is taken as it is
        monkeypatch.setenv("CI", "1")
        with pytest.raises(UserError) as raised:
            resolve_documents(repo, repo / "cache")
    assert "(CI is set in the environment, so the lock is verified)" in str(raised.value)
    assert "an older commit than the one tag v1 names now" in str(raised.value)


def test_doit_lock_locked_verifies_every_time(upstream: Upstream, tmp_path: Path):
    from tests.ruleset.test_tasks import doit

    upstream.tag("v1", upstream.commits[0])
    upstream.push()
    repo = tmp_path / "repo"
    with upstream.daemon() as url:
        manifest(repo, url, tag="v1")
        (repo / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")
        assert doit(repo, "lock").returncode == 0
        assert doit(repo, "lock", "--locked").returncode == 0
        upstream.tag("v1", upstream.revise())
        upstream.push()
        assert "-- lock" in doit(repo, "lock").stdout  # unlocked: up to date, nothing asked
        done = doit(repo, "lock", "--locked")  # locked: asked again, though nothing here changed
    assert done.returncode != 0, done.stdout + done.stderr
    assert "an older commit than the one tag v1 names now" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
