"""Fetching over real transports as `git fetch` does: git daemon, smart HTTP with a credential helper, SSH.

Every server runs on 127.0.0.1, started and stopped by the test; the user's own git configuration is
replaced by a temp HOME and GIT_CONFIG_GLOBAL so that nothing of the machine's setup leaks in.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.sources import fetch, version_tags
from agent_constitution.sources.mirror import TIMEOUT_ENV

from . import servers
from .conftest import git


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp HOME whose git configuration is the only one git reads."""
    folder = tmp_path / "home"
    folder.mkdir()
    config = folder / ".gitconfig"
    config.write_text("")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    for name in ("SSH_AUTH_SOCK", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS"):
        monkeypatch.delenv(name, raising=False)
    return folder


class Terminal(io.StringIO):
    """stderr as a terminal shows it: the fetch's progress line is written only there."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def served(tmp_path: Path, origin: Path) -> Path:
    """A folder of bare repositories to serve: `rules.git`, a bare clone of the origin."""
    base = tmp_path / "served"
    base.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(origin), str(base / "rules.git")], check=True)
    return base


def test_git_daemon_with_a_progress_line(served: Path, origin: Path, user_cache: Path, home: Path, monkeypatch):
    terminal = Terminal()
    with servers.git_daemon(served) as url:
        # Set in the test's body: pytest puts its own sys.stderr back after the fixtures' set-up.
        with monkeypatch.context() as patch:
            patch.setattr(sys, "stderr", terminal)
            snapshot = fetch(url=f"{url}/rules.git", tag="v1.0.0", base_dir=home)
        assert snapshot.commit == git(origin, "rev-parse", "HEAD")
        assert (snapshot.root / "rules" / "1.toml").read_text() == "id = 1\n"
        # One line, rewritten in place (\r, clear to its end), left as the fetch's result.
        screen = terminal.getvalue()
        assert screen.startswith(f"\r\x1b[Kfetching {url}/rules.git ...")
        last = screen.rpartition("\r\x1b[K")[2]
        objects = len(git(served / "rules.git", "rev-list", "--objects", "--all").splitlines())
        assert re.fullmatch(rf"fetched {re.escape(url)}/rules\.git: {objects} objects(, [\d.]+ (bytes|KiB))? in \d+\.\d s\n",
                            last), last
        assert [tag for tag, _ in version_tags(url=f"{url}/rules.git", base_dir=home)] == ["v1.0.0"]
    # The server is gone; a pinned commit in the cache needs none.
    assert fetch(url=f"{url}/rules.git", commit=snapshot.commit, base_dir=home) == snapshot


def test_off_a_terminal_a_fetch_says_nothing(served: Path, user_cache: Path, home: Path, capsys):
    with servers.git_daemon(served) as url:
        fetch(url=f"{url}/rules.git", base_dir=home)
    assert capsys.readouterr().err == ""


def test_https_with_the_users_credential_helper(served: Path, origin: Path, user_cache: Path, home: Path):
    with servers.http_backend(served, "reader", "s3cret-token") as url:
        with pytest.raises(UserError) as raised:
            fetch(url=f"{url}/rules.git", base_dir=home)
        text = str(raised.value)
        assert f"the source {url}/rules.git refused access" in text
        assert f"fix: check that you can read it: `git ls-remote {url}/rules.git` must work" in text
        assert "credential helper" in text and "s3cret" not in text
        (home / ".git-credentials").write_text(f"{url.replace('http://', 'http://reader:s3cret-token@')}\n")
        (home / ".gitconfig").write_text("[credential]\n\thelper = store\n")
        snapshot = fetch(url=f"{url}/rules.git", base_dir=home)
        assert snapshot.commit == git(origin, "rev-parse", "HEAD")


def test_https_with_a_certificate_git_trusts(served: Path, origin: Path, user_cache: Path, home: Path,
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The https transport itself (TLS), under the project's protocol limit."""
    cert, key = servers.certificate(tmp_path / "tls")
    with servers.http_backend(served, "reader", "s3cret-token", tls=(cert, key)) as url:
        assert url.startswith("https://")
        written = url.replace("https://", "https://reader:s3cret-token@") + "/rules.git"
        with pytest.raises(UserError, match="cannot reach the source https://\\*\\*\\*@127.0.0.1"):
            fetch(url=written, base_dir=home)  # git does not trust the certificate yet
        monkeypatch.setenv("GIT_SSL_CAINFO", str(cert))
        snapshot = fetch(url=written, tag="v1.0.0", base_dir=home)
        assert snapshot.commit == git(origin, "rev-parse", "HEAD")
        assert [tag for tag, _ in version_tags(url=written, base_dir=home)] == ["v1.0.0"]


def test_a_token_in_the_url_works_and_never_shows(served: Path, user_cache: Path, home: Path, capsys, monkeypatch):
    with servers.http_backend(served, "reader", "s3cret-token") as url:
        written = url.replace("http://", "http://reader:s3cret-token@") + "/rules.git"
        screen = Terminal()
        with monkeypatch.context() as patch:
            patch.setattr(sys, "stderr", screen)
            fetch(url=written, base_dir=home)
        assert "fetched http://***@127.0.0.1" in screen.getvalue() and "s3cret" not in screen.getvalue()
        # A refused fetch of a source fetched before goes on with the earlier copy, and says why.
        fetch(url=written.replace("s3cret-token", "wrong-token"), branch="main", base_dir=home)
        err = capsys.readouterr().err
        assert "warning: the source http://***@127.0.0.1" in err and "refused access" in err
        assert "wrong-token" not in err and "s3cret" not in err


def test_a_hung_server_is_stopped_at_the_timeout(user_cache: Path, home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(TIMEOUT_ENV, "1")
    with servers.silent_server() as url:
        with pytest.raises(UserError) as raised:
            fetch(url=f"{url}/rules.git", base_dir=home)
    text = str(raised.value)
    assert f"fetching the source {url}/rules.git took longer than 1 s and was stopped" in text
    assert f"raise the limit: {TIMEOUT_ENV}=600" in text
    assert [p for p in (user_cache / "git").iterdir() if p.is_dir()] == []  # no half mirror left
    monkeypatch.setenv(TIMEOUT_ENV, "soon")
    with pytest.raises(UserError, match=f"{TIMEOUT_ENV}='soon' is not a number of seconds"):
        fetch(url=f"{url}/rules.git", base_dir=home)


def test_ssh_with_the_users_agent(served: Path, origin: Path, user_cache: Path, home: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch):
    if shutil.which("ssh-agent") is None or shutil.which("ssh") is None:
        pytest.skip("the OpenSSH client is not installed")
    key = tmp_path / "client_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    authorized = tmp_path / "authorized_keys"
    authorized.write_text((tmp_path / "client_key.pub").read_text())
    with servers.sshd(tmp_path / "sshd", authorized) as port:
        # The user's ssh setup: known hosts, and keys from the agent only (no key file of the machine).
        config = home / "ssh_config"
        config.write_text(f"UserKnownHostsFile {tmp_path / 'sshd' / 'known_hosts'}\nIdentityFile {home / 'none'}\n"
                          "BatchMode yes\n")
        monkeypatch.setenv("GIT_SSH_COMMAND", f"ssh -F {config}")
        url = f"ssh://root@127.0.0.1:{port}{served / 'rules.git'}"
        agent = tmp_path / "agent.sock"
        started = subprocess.Popen(["ssh-agent", "-D", "-a", str(agent)], stdout=subprocess.DEVNULL)
        try:
            servers.wait_for_socket(agent)
            monkeypatch.setenv("SSH_AUTH_SOCK", str(agent))
            with pytest.raises(UserError) as raised:
                fetch(url=url, base_dir=home)
            text = str(raised.value)
            assert f"the source {url} refused access (" in text and "Permission denied" in text
            assert "load your key into ssh-agent (`ssh-add`)" in text
            subprocess.run(["ssh-add", "-q", str(key)], check=True, env=dict(os.environ, SSH_AUTH_SOCK=str(agent)),
                           capture_output=True)
            snapshot = fetch(url=url, tag="v1.0.0", base_dir=home)
            assert snapshot.commit == git(origin, "rev-parse", "HEAD")
        finally:
            started.terminate()
            started.wait()
