"""No argument reaches git as an option, and only the allowed transports are used (issue 37, part 1).

The reproduction: an untrusted source's `rules/source.toml` names a dependency whose URL is scp-shaped but
starts with `-` (`--upload-pack=<cmd>;x@a.b:c`); resolving its version range ran `git ls-remote --tags URL`,
git took the URL for its `--upload-pack` option and, with a `file://` default remote in the consumer's
repository, ran the command through the shell. Each test builds the hostile input in temp git
repositories and asserts that no marker file appears and that one clear message names the source.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_constitution.errors import UserError
from agent_constitution.ruleset.models import LockedSource, Manifest, SourceConfig, parse
from agent_constitution.sources import fetch, mirror, version_tags
from agent_constitution.sources.urls import Location, locate, refused
from tests.compile.support import make_repo

from .conftest import commit_files, git
from .test_transports import home  # noqa: F401  (a fixture: a temp HOME whose git configuration is the only one)


MARKER = "pwned-marker"  # no slash: git's scp syntax allows none before the colon


def _created(folder: Path) -> list[Path]:
    """The marker files an injected command made anywhere under `folder` (it runs in git's folder)."""
    return list(folder.rglob(MARKER))


def _injections(marker: str = MARKER) -> list[str]:
    """Every shape of URL that would make git (or ssh under it) run `touch marker`."""
    return [
        f"--upload-pack=touch {marker};x@a.b:c",  # the reproduction: scp-shaped, an option of git
        f"--upload-pack=touch {marker}",
        f"-oProxyCommand=touch {marker}@a.b:c",  # an option of ssh, as the user part of scp syntax
        f"x@-oProxyCommand=touch {marker}:c",  # ... as the host
        f"ssh://-oProxyCommand=touch {marker}/c",  # ... as the host of an ssh:// URL
        f"ssh://-oProxyCommand=touch {marker}@a.b/c",  # ... as its user
        f"ext::sh -c touch% {marker}",  # git's ext transport runs a command
        f"ext::sh -c touch% {marker}@a.b:c",
        "fd::3",  # and fd reads a file descriptor
        "git-remote-x.y::a.b/c",  # any remote helper (`<helper>::<address>`)
    ]


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    """A folder in a git repository whose default remote is a `file://` URL: `git ls-remote` with an
    option for its only argument lists (and, with --upload-pack, runs a command against) that remote."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    folder = tmp_path / "consumer"
    folder.mkdir()
    git(folder, "init", "-q")
    git(folder, "remote", "add", "origin", f"file://{remote}")
    return folder


def test_the_injections_are_refused_where_the_url_is_read(tmp_path: Path):
    for url in _injections():
        with pytest.raises(UserError) as raised:
            locate(url)
        assert "fix:" in str(raised.value), url
    assert not _created(tmp_path)


@pytest.mark.parametrize("index", range(10))
def test_no_injection_runs_at_the_git_call(tmp_path: Path, consumer: Path, user_cache: Path,
                                           monkeypatch: pytest.MonkeyPatch, index: int):
    url = _injections()[index]
    monkeypatch.chdir(consumer)
    for call in (lambda: version_tags(url=url, base_dir=consumer), lambda: fetch(url=url, tag="v1", base_dir=consumer),
                 lambda: fetch(url=url, base_dir=consumer)):
        with pytest.raises(UserError) as raised:
            call()
        assert url.split("touch")[0] in str(raised.value) or "fd::3" in str(raised.value)
    assert not _created(tmp_path)


@pytest.mark.parametrize("index", range(10))
def test_the_git_call_itself_refuses_what_the_parser_refuses(tmp_path: Path, consumer: Path, user_cache: Path,
                                                            monkeypatch: pytest.MonkeyPatch, index: int):
    """Defence in depth: a Location made without `locate` (from a lock, a cache) still reaches no git."""
    url = _injections()[index]
    monkeypatch.chdir(consumer)
    location = Location(key="hostile", fetch_url=url)
    for call in (lambda: mirror.remote_tags(location, display=url), lambda: mirror.refresh(location, display=url)):
        with pytest.raises(UserError) as raised:
            call()
        assert raised.value.message == refused(url) and "docs/sources.md" in raised.value.fix
    assert not _created(tmp_path)


def test_a_users_insteadof_rewrite_to_a_helper_runs_nothing(tmp_path: Path, consumer: Path, user_cache: Path,
                                                           home: Path, monkeypatch: pytest.MonkeyPatch):
    """The protocol limit: git rewrites the URL after we checked it, then refuses the rewritten transport."""
    (home / ".gitconfig").write_text(f'[url "ext::sh -c touch% {tmp_path / MARKER}% #"]\n'
                                     "\tinsteadOf = https://rewritten.test/\n"
                                     "[protocol]\n\tallow = always\n")
    monkeypatch.chdir(consumer)
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "ext:https")  # the user's own setting is overridden too
    with pytest.raises(UserError) as raised:
        version_tags(url="https://rewritten.test/team/rules", base_dir=consumer)
    assert "cannot reach the source https://rewritten.test/team/rules" in str(raised.value)
    assert "transport 'ext' not allowed" in str(raised.value)
    assert not _created(tmp_path)


ALLOWED = [
    "https://github.com/owner/repo.git",
    "http://127.0.0.1:8080/rules.git",
    "ssh://git@github.com/owner/repo",
    "git+ssh://git@github.com/owner/repo",
    "git@github.com:owner/repo.git",
    "git://127.0.0.1/rules.git",
    "file:///srv/rules",
    "github.com/owner/repo",
    "/srv/rules",
    "../rules",
    "./-rules",  # a folder whose name starts with -, written as a path
]


@pytest.mark.parametrize("url", ALLOWED)
def test_every_allowed_transport_is_accepted(url: str):
    assert refused(url) is None
    assert parse(SourceConfig, {"name": "h", "languages": ["en"], "sources": {"d": {"url": url}}}, "s").sources["d"].url == url


REFUSED = [
    ("ftp://example.test/rules.git", "transport ftp://"),
    ("svn+ssh://example.test/rules", "transport svn+ssh://"),
    ("persistent-https://example.test/rules", "transport persistent-https://"),
    ("fd::3/rules", "fd:: transport"),
    ("ext::ssh -oProxyCommand=x a.b %S", "ext:: transport"),
    ("-rules", "starts with '-'"),
    ("https://-x.test/rules", "host of the source URL"),
    ("ssh://a.b:22 -x/rules", "holds a space"),
    ("ssh://a.b:2x/rules", "port that is not a number"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_other_transports_and_option_shapes_are_refused(url: str, reason: str):
    with pytest.raises(UserError) as raised:
        locate(url)
    assert reason in raised.value.message and raised.value.fix


def test_a_file_url_is_fetched(origin: Path, user_cache: Path, tmp_path: Path):
    snapshot = fetch(url=f"file://{origin}", tag="v1.0.0", base_dir=tmp_path)
    assert snapshot.commit == git(origin, "rev-parse", "HEAD")
    assert [name for name, _ in version_tags(url=f"file://{origin}", base_dir=tmp_path)] == ["v1.0.0"]


# --- the three places a URL is written: a source's dependency, a base manifest, the root manifest ---------


def test_a_dependency_url_is_refused_by_source_toml_with_the_field(tmp_path: Path):
    url = f"--upload-pack=touch {MARKER};x@a.b:c"
    data = {"name": "h", "languages": ["en"], "sources": {"dep": {"url": url, "versions": ">=1"}}}
    with pytest.raises(UserError) as raised:
        parse(SourceConfig, data, "rules/source.toml")
    error = raised.value
    assert error.file == "rules/source.toml" and error.field == "sources.dep.url"
    assert "an option" in error.message and error.fix


@pytest.mark.parametrize("model", [Manifest, LockedSource])
def test_a_source_url_is_refused_by_the_manifest_and_the_lock(model):
    url = f"ext::sh -c touch% {MARKER}"
    if model is Manifest:
        data, field = {"sources": {"ac": {"url": url}}}, "sources.ac.url"
    else:  # one [[source]] of rules.lock (a pull request may edit the lock alone)
        data, field = {"name": "ac", "url": url, "commit": "0" * 40, "digest": "sha256:" + "0" * 64}, "url"
    with pytest.raises(UserError) as raised:
        parse(model, data, "rules.toml")
    error = raised.value
    assert error.field == field and "ext:: transport" in error.message and "docs/sources.md" in error.fix


def _doit(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(repo.parent / "user-cache")
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=300)


def _hostile_project(tmp_path: Path, *, dependency: str | None = None, base: str | None = None) -> Path:
    """The compile fixture repository (itself a git repository with a `file://` default remote), its
    source moved into a tagged git repository that names `dependency` for rule 1's requirement, or
    publishes a base manifest naming `base` for the root manifest to extend."""
    repo = make_repo(tmp_path / "repo")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", f"file://{remote}")
    source = tmp_path / "source"
    (repo / "src").rename(source)
    files = {}
    if dependency is not None:
        config = tomlkit.parse((source / "rules" / "source.toml").read_text())
        config["sources"] = {"dep": {"url": dependency, "versions": ">=1"}}
        rule = tomlkit.parse((source / "rules" / "1.toml").read_text())
        rule["requires"] = ["dep:1"]
        files = {"rules/source.toml": tomlkit.dumps(config), "rules/1.toml": tomlkit.dumps(rule)}
    if base is not None:
        files["manifests/base.toml"] = f'[sources]\ndep = {{ url = "{base}", version = ">=1" }}\n'
    git(source, "init", "-q")
    commit_files(source, files)
    git(source, "tag", "v1")
    manifest = (repo / "rules.toml").read_text().replace('ac = { path = "src" }', f'ac = {{ url = "{source}", tag = "v1" }}')
    if base is not None:
        manifest = 'extends = "ac:manifests/base.toml"\n' + manifest
    (repo / "rules.toml").write_text(manifest)
    return repo


def test_the_reproduction_a_dependency_runs_no_command(tmp_path: Path):
    marker = MARKER
    repo = _hostile_project(tmp_path, dependency=f"--upload-pack=touch {marker};x@a.b:c")
    run = _doit(repo, "compile")
    output = run.stdout + run.stderr
    assert not _created(tmp_path)
    assert run.returncode != 0 and "Traceback" not in output
    assert "source.toml" in output and "sources.dep.url" in output and "--upload-pack" in output
    assert not (repo / "AGENTS.md").exists()


def test_a_base_manifest_runs_no_command(tmp_path: Path):
    marker = MARKER
    repo = _hostile_project(tmp_path, base=f"--upload-pack=touch {marker};x@a.b:c")
    run = _doit(repo, "compile")
    output = run.stdout + run.stderr
    assert not _created(tmp_path)
    assert run.returncode != 0 and "Traceback" not in output
    assert "manifests/base.toml" in output and "sources.dep.url" in output and "--upload-pack" in output


def test_the_root_manifest_runs_no_command(tmp_path: Path):
    marker = MARKER
    repo = _hostile_project(tmp_path)
    manifest = (repo / "rules.toml").read_text()
    (repo / "rules.toml").write_text(manifest.replace("[sources]\n", f'[sources]\ndep = {{ url = "--upload-pack=touch {marker};x@a.b:c", version = ">=1" }}\n'))
    run = _doit(repo, "compile")
    output = run.stdout + run.stderr
    assert not _created(tmp_path)
    assert run.returncode != 0 and "Traceback" not in output
    assert "rules.toml" in output and "sources.dep.url" in output and "--upload-pack" in output


# --- the parser's invariant: whatever it accepts, git reads as a URL of an allowed transport ---------------

_pieces = st.sampled_from(["-", "--upload-pack=", "ext::", "fd::", "x.y::", "ssh://", "https://", "git://", "ftp://",
                           "file://", "git+ssh://", "@", ":", "/", ".", "a", "b.c", " ", "-o", "%", "~", "\\", "::"])


@settings(max_examples=400, deadline=None)
@example(".@-ssh://-")  # found by this test: the host/path shorthand with an option for its host
@example("\x00")
@example("~-")
@example(".ext::ssh://")
@given(st.lists(_pieces, min_size=1, max_size=8).map("".join) | st.text(max_size=30))
def test_whatever_is_accepted_reaches_git_as_an_allowed_url(text: str):
    try:
        location = locate(text, base_dir=Path("/nowhere"))
    except UserError as error:
        assert error.fix
        return
    url = location.fetch_url
    if url is None:  # a folder: an absolute path
        assert str(location.folder).startswith("/")
        return
    assert not url.startswith("-") and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*::", url)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url):  # what git reads as a scheme
        assert url.split("://", 1)[0].lower() in ("https", "http", "ssh", "git+ssh", "ssh+git", "git")
        authority = url.split("://", 1)[1].split("/", 1)[0]
    else:  # scp syntax: [user@]host:path
        authority = url.split(":", 1)[0]
    user, _, host = authority.rpartition("@")
    assert not host.startswith("-") and not user.startswith("-")
