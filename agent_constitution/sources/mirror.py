"""A bare mirror of one source repository in the user cache: fetching it and resolving names to commits.

The network step is the git command line (as pre-commit does it), so a source is fetched exactly as
`git fetch` would fetch it: SSH URLs with the user's keys, agent and ~/.ssh/config, HTTPS with the
user's credential helper, proxies and `insteadOf` rewrites. Each git call has a timeout
(`AGENT_CONSTITUTION_FETCH_TIMEOUT`, seconds, default 180); on a terminal each fetch keeps a progress
line on stderr (objects, bytes, seconds: `sources/progress.py`), and says nothing elsewhere. pygit2
reads the mirror afterwards (refs, commits, trees).

No argument reaches git as an option: every URL and path goes after `--`, and `_git` refuses a URL
`urls.refused` refuses (the models refused it already where it was written; a URL also comes from a
lock or a cache). Every git call runs with `GIT_ALLOW_PROTOCOL` naming only `urls.TRANSPORTS`
(`urls.GIT_PROTOCOLS`), which overrides any `protocol.allow` configuration of the user's: no remote
helper (`ext::`, `fd::`) runs, even through an `insteadOf` rewrite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from agent_constitution.errors import UserError
from agent_constitution.sources import progress
from agent_constitution.sources.cache import filling, locked, mirror_path, special_file
from agent_constitution.sources.urls import GIT_PROTOCOLS, URL_FIX, Location, hide_secrets, refused

if TYPE_CHECKING:  # pygit2 is imported where a git source is read: a path source's lock skips its 40 ms
    import pygit2

_REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
TIMEOUT_ENV = "AGENT_CONSTITUTION_FETCH_TIMEOUT"
_DEFAULT_TIMEOUT = 180  # seconds; a first fetch of a big repository over a slow link may need more
# git's wording (stderr) when it reached something that answered, but not as a repository it can read.
_NOT_A_REPOSITORY = ("not found", "does not appear to be a git repository", "not a git repository", "no such repository")
# ... and when the server wants credentials it did not get (or refused the ones it got).
_NO_ACCESS = (
    "authentication failed",
    "could not read username",
    "could not read password",
    "terminal prompts disabled",
    "permission denied",
    "host key verification failed",
    "the requested url returned error: 401",
    "the requested url returned error: 403",
)
# What git adds after every failed SSH connection, whatever the cause: the cause is on the line before.
_BOILERPLATE = ("fatal: could not read from remote repository", "please make sure you have", "and the repository exists")


def open_mirror(location: Location) -> pygit2.Repository | None:
    import pygit2

    path = mirror_path(location.key)
    if not path.is_dir():
        return None
    if path not in _listed_sound:  # once a process: a listing of a mirror with many loose objects takes ~25 ms
        special = special_file(path)  # libgit2 would wait on a FIFO forever
        if special is not None:
            raise pygit2.GitError(f"{special} is not a regular file")
        _listed_sound.add(path)
    return pygit2.Repository(str(path))


# Mirrors this process found holding only regular files and folders (`cache.special_file`).
_listed_sound: set[Path] = set()


def refresh(location: Location, *, display: str) -> pygit2.Repository:
    """Fetch the repository into its mirror; offline, fall back to the mirror as last fetched."""
    try:
        return update(location, display=display)
    except UserError as error:
        existing = open_mirror(location)
        if existing is None or not list(existing.references):
            raise
        print(
            f"warning: {error.message}; using the copy of {display} fetched earlier",
            file=sys.stderr,
        )
        return existing


def update(location: Location, *, display: str) -> pygit2.Repository:
    """Fetch the repository into its mirror (made on the first fetch); raises when it cannot be reached."""
    import pygit2

    if location.folder is not None and not location.folder.is_dir():
        raise UserError(
            f"cannot reach the source {display}: the folder {location.folder} does not exist",
            fix="check the path; a relative path is read from the folder of the file that names it",
        )
    url = location.fetch_url or str(location.folder)
    path = mirror_path(location.key)
    with locked(path.with_name(path.name + ".lock")):
        if path.is_dir():
            _fetch(path, url, display)
            return pygit2.Repository(str(path))
        # The first fetch fills a mirror aside and renames it, so a failure leaves no empty mirror.
        with filling(path.parent, path.name) as building:
            _git(["init", "--quiet", "--bare", "--", str(building)], display, url)
            _fetch(building, url, display)
            os.rename(building, path)
        return pygit2.Repository(str(path))


def remote_tags(location: Location, *, display: str) -> list[tuple[str, str]]:
    """Every tag of the repository as (name, commit hex), sorted by name, as `git ls-remote --tags` lists
    them (an annotated tag by the commit it points at); offline, the tags of the mirror as last fetched."""
    url = location.fetch_url or str(location.folder)
    # One write per line (the newline inside it): several repositories may be listed at once, from threads.
    print(f"listing the tags of {display} ...\n", end="", file=sys.stderr, flush=True)
    try:
        listed = _git(["ls-remote", "--tags", "--", url], display, url)
    except UserError as error:
        existing = open_mirror(location)
        if existing is None or not list(existing.references):
            raise
        print(f"warning: {error.message}; using the tags of {display} fetched earlier\n", end="", file=sys.stderr)
        return tags(existing)
    found: dict[str, str] = {}
    for line in listed.splitlines():
        commit, _, ref = line.partition("\t")
        if not ref.startswith("refs/tags/"):
            continue
        name = ref.removeprefix("refs/tags/")
        if name.endswith("^{}"):
            found[name.removesuffix("^{}")] = commit  # what an annotated tag points at
        else:
            found.setdefault(name, commit)
    return sorted(found.items())


def _fetch(mirror: Path, url: str, display: str) -> None:
    """`git fetch` (the user's own git: SSH keys and agent, credential helpers, proxies) into the mirror."""
    import pygit2

    shown = progress.FetchProgress(display, sys.stderr) if progress.wanted(sys.stderr) else None
    verbosity = "--progress" if shown else "--quiet"
    _git(["-C", str(mirror), "fetch", verbosity, "--prune", "--no-write-fetch-head", "--", url, *_REFSPECS],
         display, url, shown)
    if shown:
        shown.finish()
    repo = pygit2.Repository(str(mirror))
    if repo.head_is_unborn:  # a new mirror, or the default branch was renamed or deleted upstream
        listed = _git(["ls-remote", "--symref", "--", url, "HEAD"], display, url)
        for line in listed.splitlines():
            if line.startswith("ref: ") and line.endswith("\tHEAD"):
                repo.set_head(line[len("ref: ") : -len("\tHEAD")])


def _git(args: list[str], display: str, url: str, shown: progress.FetchProgress | None = None) -> str:
    """Run git with a timeout; on failure one UserError naming the URL and the fix. Returns stdout.
    With `shown`, git's progress on stderr is read as it comes and kept on the terminal's line."""
    problem = refused(url)
    if problem is not None:
        raise UserError(problem, fix=URL_FIX)
    timeout = _timeout()
    env = dict(os.environ, GIT_DEFAULT_HASH="sha1", LC_ALL="C", **GIT_PROTOCOLS)
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    if not interactive:
        env["GIT_TERMINAL_PROMPT"] = "0"  # nobody could answer a prompt: fail at once instead of waiting
    # libgit2 (which reads the mirror) reads neither reftable nor SHA-256 repositories.
    command = ["git", "-c", "init.defaultRefFormat=files", "-c", "protocol.version=2", *args]
    try:
        # Unattended, a session of its own, so that at the timeout git and its children (ssh, a
        # credential helper) are stopped together. In a terminal, git stays in its foreground so that
        # git and ssh can ask for a password or passphrase there, as `git fetch` does.
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=env, start_new_session=not interactive)
    except FileNotFoundError:
        raise UserError("git is not installed (or not on PATH); fetching a source runs `git fetch`",
                        fix="install git (https://git-scm.com/downloads) and build again") from None
    try:
        out, err = _communicate(process, timeout, shown)
    except subprocess.TimeoutExpired:
        _kill(process, group=not interactive)
        raise UserError(
            f"fetching the source {display} took longer than {timeout:g} s and was stopped",
            fix=f"check the URL and your network (`git ls-remote {display}`); for a big repository or a slow"
            f" link raise the limit: {TIMEOUT_ENV}=600",
        ) from None
    if process.returncode != 0:
        raise _fetch_error(display, url, err.decode("utf-8", "replace"))
    return out.decode("utf-8", "replace")


def _communicate(process: subprocess.Popen, timeout: float,
                 shown: progress.FetchProgress | None) -> tuple[bytes, bytes]:
    if shown is None:
        return process.communicate(timeout=timeout)
    out: list[bytes] = []
    err: list[bytes] = []

    def read_out() -> None:
        out.append(process.stdout.read())

    def read_err() -> None:
        pending = ""
        try:
            while chunk := process.stderr.read1(4096):
                err.append(chunk)
                done, pending = progress.lines(chunk.decode("utf-8", "replace"), pending)
                for line in done:
                    shown.feed(line)
        except (OSError, ValueError):  # closed at the timeout
            pass

    readers = [threading.Thread(target=read_out, daemon=True), threading.Thread(target=read_err, daemon=True)]
    for reader in readers:
        reader.start()
    process.wait(timeout=timeout)
    for reader in readers:
        reader.join()
    return b"".join(out), b"".join(err)


def _kill(process: subprocess.Popen, *, group: bool) -> None:
    try:
        if group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:
        pass
    # A child git started (ssh) may still hold the pipes: do not wait for their end, only for git's.
    process.stdout.close()
    process.stderr.close()
    process.wait()


def _timeout() -> float:
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return _DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = 0
    if not 0 < value < 1e6:
        raise UserError(f"the environment variable {TIMEOUT_ENV}={text!r} is not a number of seconds",
                        fix=f"write a positive number, e.g. {TIMEOUT_ENV}=600")
    return value


def _fetch_error(display: str, url: str, stderr: str) -> UserError:
    lines = [line.strip() for line in hide_secrets(stderr).splitlines() if line.strip()]
    lines = [line for line in lines if not line.lower().startswith(_BOILERPLATE)] or lines
    reason = "; ".join(line.removeprefix("fatal: ").removeprefix("error: ") for line in lines[-3:]) or "git failed"
    lowered = stderr.lower()
    if any(marker in lowered for marker in _NO_ACCESS):
        ssh = url.startswith("ssh://") or ("@" in url and "://" not in url)
        login = hide_secrets(url).removeprefix("ssh://").split("/", 1)[0].split(":", 1)[0]
        how = (
            "load your key into ssh-agent (`ssh-add`) or name it in ~/.ssh/config, and accept the host's key once"
            f" (`ssh -T {login}`)" if ssh else
            "configure a git credential helper (`git config --global credential.helper store`, or your forge's CLI"
            " such as `gh auth setup-git`)"
        )
        return UserError(
            f"the source {display} refused access ({reason})",
            fix=f"check that you can read it: `git ls-remote {display}` must work; {how}",
        )
    if any(marker in lowered for marker in _NOT_A_REPOSITORY):
        return UserError(
            f"{display} is not a git repository that can be fetched ({reason})",
            fix="check the URL: it must name a git repository you can read (for a plain folder use `path =`)",
        )
    return UserError(
        f"cannot reach the source {display} ({reason})",
        fix=f"check the URL and your network: `git ls-remote {display}` must list its branches; a commit"
        " already in the cache needs no network",
    )


def resolve(repo: pygit2.Repository, *, tag: str | None, branch: str | None, rev: str | None, display: str) -> str:
    """The commit a tag, branch or rev (none of them: the default branch) names in the mirror."""
    import pygit2

    if tag is not None:
        ref = repo.references.get(f"refs/tags/{tag}")
        if ref is None:
            raise UserError(f"the source {display} has no tag {tag!r}", fix=_known("tags", _tag_names(repo)))
        return str(ref.peel(pygit2.Commit).id)
    if branch is not None:
        ref = repo.references.get(f"refs/heads/{branch}")
        if ref is None:
            raise UserError(f"the source {display} has no branch {branch!r}", fix=_known("branches", _branches(repo)))
        return str(ref.peel(pygit2.Commit).id)
    if rev is not None:
        try:
            return str(repo.revparse_single(rev).peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            raise UserError(
                f"the source {display} has no commit {rev!r}",
                fix="give a commit id (or a name git can resolve) that is on one of its branches or tags",
            ) from None
    try:
        return str(repo.head.peel(pygit2.Commit).id)
    except pygit2.GitError:
        raise UserError(
            f"the source {display} has no default branch",
            fix=_known("branches", _branches(repo)) + " (name one with `branch =`)",
        ) from None


def has_commit(repo: pygit2.Repository, commit: str) -> bool:
    import pygit2

    try:
        return isinstance(repo[commit].peel(pygit2.Commit), pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return False


def _tag_names(repo: pygit2.Repository) -> list[str]:
    return sorted(name.removeprefix("refs/tags/") for name in repo.references if name.startswith("refs/tags/"))


def tags(repo: pygit2.Repository) -> list[tuple[str, str]]:
    """Every tag that leads to a commit, as (name, commit hex), sorted by name."""
    import pygit2

    found = []
    for name in _tag_names(repo):
        try:
            found.append((name, str(repo.references[f"refs/tags/{name}"].peel(pygit2.Commit).id)))
        except (pygit2.GitError, pygit2.InvalidSpecError, ValueError):
            continue  # a tag of a tree or blob names no version of the source
    return found


def _branches(repo: pygit2.Repository) -> list[str]:
    return sorted(name.removeprefix("refs/heads/") for name in repo.references if name.startswith("refs/heads/"))


def _known(kind: str, names: list[str]) -> str:
    if not names:
        return f"the repository has no {kind}"
    shown = ", ".join(names[-20:])
    more = f" (last 20 of {len(names)})" if len(names) > 20 else ""
    return f"its {kind}{more}: {shown}"

