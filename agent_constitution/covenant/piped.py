"""The tree a piped `--diff` observes: the index when the diff is the staged set, else the disk.

Seed 003 reads a `file` source on a staged commit from the index. A diff on stdin does not say what
it was taken from, but git's `index <pre>..<post>` lines do: when every post-image blob the diff
names is held by the index (what `git diff --cached` prints), the tree it observes is the index. A
worktree diff names blobs the index does not hold; a diff without index lines (`diff -u`) has no
git tree at all; both read the disk.

Standard library only (and `sources.urls`' list of git transports), and lazy: git is asked (`git ls-files`, `git cat-file`) only when a
declaration reads a file source, so a pre-commit run without one costs nothing here. The child
inherits the environment, so a commit's own `GIT_INDEX_FILE` is the index read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agent_constitution.covenant.worlds import read_tree_file

POST_BLOB = re.compile(r"^index [0-9a-f]+\.\.([0-9a-f]+)", re.MULTILINE)


def _git(root: Path, *args: str) -> bytes | None:
    import os
    import subprocess  # only when a file source is read: the module loads on every piped run

    from agent_constitution.sources.urls import GIT_PROTOCOLS  # lazy: 36 ms, for a git call only

    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=30,
                              env={**os.environ, **GIT_PROTOCOLS})
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _stage_zero(listing: bytes) -> dict[str, str]:
    """{path: blob id} of the entries of `git ls-files --stage -z` with no merge conflict (stage 0)."""
    index: dict[str, str] = {}
    for record in listing.decode("utf-8", errors="replace").split("\0"):
        meta, _, path = record.partition("\t")
        fields = meta.split(" ")
        if len(fields) == 3 and fields[2] == "0":
            index[path] = fields[1]
    return index


def staged_index(root: Path, text: str) -> dict[str, str] | None:
    """{root-relative path: blob id} of the index when the diff `text` is the staged set, else None."""
    posts = [post for post in POST_BLOB.findall(text) if post.strip("0")]  # all zeros: a deletion
    if not posts:
        return None
    listing = _git(root, "ls-files", "--stage", "-z", "--", ":/")
    if listing is None:
        return None
    index = _stage_zero(listing)
    prefixes: dict[int, set[str]] = {}
    for post in posts:
        if post not in prefixes.setdefault(len(post), {blob[: len(post)] for blob in index.values()}):
            return None
    return index


def tree_reader(root: Path, text: str) -> Callable[[str], str | None]:
    """The file-source reader of a piped diff: the index when it is the staged set, else the disk."""
    decided: list[dict[str, str] | None] = []

    def read_file(path: str) -> str | None:
        if not decided:
            decided.append(staged_index(root, text))
        index = decided[0]
        if index is None:
            return read_tree_file(root, path)
        blob = index.get(path)
        data = _git(root, "cat-file", "blob", blob) if blob is not None else None
        return None if data is None or b"\0" in data else data.decode("utf-8", errors="replace")

    return read_file
