"""The default branch of a fleet repository through the git CLI: its head, and a shallow fetch of it.

The git command line performs every network call (the user's SSH agent and credential helpers work
as for `git fetch`), never prompting (`GIT_TERMINAL_PROMPT=0`), with a timeout. Each repository gets
a bare repository of its own under the user cache holding the one commit fetched (`--depth 1`);
files are read from its objects with one `git cat-file --batch`, nothing is checked out. The rule
sources the locks name are asked for their tags the same way (`tags`), with no mirror of them. A release's
impact needs the whole tree on disk for the checks: `extract` writes it from the objects into a
folder of the caller's (`git archive`, unpacked with tarfile's `data` filter, which refuses
absolute paths, `..` and links leading out of the folder).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.sources.urls import hide_secrets

TIMEOUT = 120.0
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "LC_ALL": "C"}


def _git(args: list[str], *, cwd: Path | None = None, stdin: bytes | None = None) -> bytes:
    env = {**os.environ, **_ENV}
    try:
        done = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, timeout=TIMEOUT,
                              env=env, check=False)
    except subprocess.TimeoutExpired:
        raise UserError(f"git {args[0]} took more than {TIMEOUT:.0f} s") from None
    except OSError as error:
        raise UserError(f"cannot run git: {error.strerror}", fix="install git") from None
    if done.returncode != 0:
        message = hide_secrets(done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:][0]
                               if done.stderr.strip() else f"exit status {done.returncode}")
        raise UserError(f"git {args[0]} failed: {message}")
    return done.stdout


def head(url: str) -> str:
    """The commit the repository's default branch (HEAD) points at now."""
    out = _git(["ls-remote", "--", url, "HEAD"]).decode()
    commit = out.split("\t", 1)[0].strip()
    if len(commit) != 40:
        raise UserError(f"{hide_secrets(url)} has no default branch (an empty repository?)")
    return commit


def tags(url: str) -> list[tuple[str, str]]:
    """(name, commit) of every tag of the repository, sorted by name, as `git ls-remote --tags` lists
    them (an annotated tag by the commit it names)."""
    found: dict[str, str] = {}
    for line in _git(["ls-remote", "--tags", "--", url]).decode("utf-8", "replace").splitlines():
        commit, _, ref = line.partition("\t")
        name = ref.removeprefix("refs/tags/")
        if name.endswith("^{}"):
            found[name[:-3]] = commit
        else:
            found.setdefault(name, commit)
    return sorted(found.items())


def mirror_of(root: Path, key: str) -> Path:
    return root / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".git")


def shallow_fetch(url: str, mirror: Path) -> str:
    """Fetch the default branch's head alone into `mirror`; its commit."""
    if not (mirror / "HEAD").exists():
        mirror.parent.mkdir(parents=True, exist_ok=True)
        _git(["init", "--quiet", "--bare", str(mirror)])
    _git(["fetch", "--quiet", "--depth", "1", "--no-tags", "--", url, "+HEAD:refs/fleet/head"], cwd=mirror)
    return _git(["rev-parse", "refs/fleet/head^{commit}"], cwd=mirror).decode().strip()


def read_files(mirror: Path, commit: str, names: tuple[str, ...], limit: int = 4 << 20) -> dict[str, bytes | None]:
    """The files `names` at `commit` (None: missing, not a file, or above `limit` bytes)."""
    query = "".join(f"{commit}:{name}\n" for name in names).encode()
    out = _git(["cat-file", "--batch"], cwd=mirror, stdin=query)
    found: dict[str, bytes | None] = {}
    at = 0
    for name in names:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:  # "<name> missing"
            found[name] = None
            continue
        size = int(header[2])
        body = out[at:at + size]
        at += size + 1
        found[name] = body if header[1] == b"blob" and size <= limit else None
    return found


def extract(mirror: Path, commit: str, folder: Path) -> None:
    """Write the tree of `commit` into `folder` (which must exist)."""
    archive = _git(["archive", "--format=tar", commit], cwd=mirror)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise UserError(f"cannot write the tree of {commit[:12]} into {folder}: {error}") from None
