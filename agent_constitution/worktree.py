"""The files of a working tree, as git sees them: the one listing the checks' scan and compile's
prune share (`files`).

The index's entries (tracked files, minus those deleted in the working tree, submodules and links
that do not lead to a file) plus the untracked files that `.gitignore`, `.git/info/exclude` and
the global excludes file do not exclude, from `git ls-files` (measured against pygit2 in
`checks/scan.py`'s text). A folder that is not a git work tree has no ignore rules to honour:
every file below it is listed, except `.git` and the project's own `cache/`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.layout import CACHE
from agent_constitution.sources.urls import GIT_PROTOCOLS


def files(root: Path) -> tuple[str, ...]:
    """The working tree's files below `root` (relative POSIX paths, sorted), honouring `.gitignore`."""
    found = _git_files(root)
    return _walk(root) if found is None else found


def _git_files(root: Path) -> tuple[str, ...] | None:
    """The files git sees below `root` (relative to it), or None when `root` is not in a work tree."""
    staged = _ls_files(root, "--stage")
    if staged is None:
        return None
    files = set()
    for entry in staged:
        info, _, path = entry.partition("\t")
        mode = info.partition(" ")[0]
        # A submodule is a folder; a symbolic link counts only when it leads to a file.
        if mode != "160000" and (mode != "120000" or os.path.isfile(root / path)):
            files.add(path)
    # -t tags each path: `R ` deleted from the working tree, `? ` untracked and not ignored. An
    # untracked nested repository is listed as its folder (`inner/`): its files are not this
    # repository's, so it is left out, like a submodule; so is an untracked link to a folder.
    for entry in _ls_files(root, "-t", "--deleted", "--others", "--exclude-standard") or ():
        tag, path = entry[:2], entry[2:]
        if tag == "R ":
            files.discard(path)
        elif tag == "? " and not path.endswith("/") and not path.startswith(_OWN) and os.path.isfile(root / path):
            files.add(path)
    return tuple(sorted(files))


def _ls_files(root: Path, *options: str) -> list[str] | None:
    try:
        # The options are this module's own; GIT_PROTOCOLS: every git call of the project is limited alike.
        done = subprocess.run(["git", "ls-files", "-z", *options], cwd=root, capture_output=True,
                              env={**os.environ, **GIT_PROTOCOLS})
    except FileNotFoundError:
        raise UserError("git is not installed, so the working tree cannot be listed with its .gitignore",
                        fix="install git") from None
    if done.returncode != 0:
        return None
    return [entry for entry in done.stdout.decode("utf-8", errors="surrogateescape").split("\0") if entry]


# The project's own build state (cache/: resolutions, check results, reports) is never part of the
# tree the checks judge, even in a repository whose .gitignore does not name it yet (a manifest
# written by hand, without `init`'s cache/.gitignore); a file under it that git tracks still is.
_OWN = CACHE + "/"


def _walk(root: Path) -> tuple[str, ...]:
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".git" and not (folder == str(root) and name == CACHE)]
        base = Path(folder).relative_to(root)
        files.extend((base / name).as_posix() for name in names)
    return tuple(sorted(files))
