"""The folder digests: a source's content digest (what a lock records for a git source and what guards
a cache entry) and the digest of a plain folder's files (a constitution edition, a skill folder).

`tree_digest(root)` and `content_digest(entries)` are the source content digest (kinds, links);
`sources.content` and `sources.gitproof` compute it while they check or extract a tree.
`files_digest(folder)` covers every file under one folder; `rules.lock` pins a constitution edition
by it, compile tells an installed skill folder from a hand-edited one by it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from agent_constitution.layout import CONSTITUTION, MANIFESTS, RULES
from agent_constitution.readers import read_bytes

# The folders that make up a source's content: what its digest covers. A cache entry holds the whole
# tree (scripts of external checks may live anywhere); a plain folder is read where it is.
CONTENT = (RULES, CONSTITUTION, MANIFESTS)
# Written by Python when a check module is imported; never part of the content.
_SKIPPED_DIR = "__pycache__"
_SKIPPED_SUFFIX = ".pyc"


def in_content(relative: str) -> bool:
    """Whether a path (relative POSIX) lies in one of the content folders, so the digest covers it."""
    return relative.split("/", 1)[0] in CONTENT


def skipped(relative: str, *, directory: bool) -> bool:
    """Whether a path (relative POSIX) is Python's byte code cache rather than content."""
    *folders, last = relative.split("/")
    if _SKIPPED_DIR in folders:
        return True
    return last == _SKIPPED_DIR if directory else last.endswith(_SKIPPED_SUFFIX)


def tree_digest(root: Path) -> str:
    """`sha256:<hex>` over every content file under `root`, in path order.

    Each file adds one line `<kind> <sha256 of its bytes> <path>`: kind `f` for a file, `x` for an
    executable file, `l` for a symbolic link (hashing its target, never following it).
    """
    return content_digest(_entries(root))


def content_digest(entries: Iterable[tuple[str, str, bytes]]) -> str:
    """The digest of (relative POSIX path, kind, bytes) entries, as `tree_digest` defines it."""
    return hashed_content_digest((relative, kind, hashlib.sha256(data).hexdigest()) for relative, kind, data in entries)


def hashed_content_digest(entries: Iterable[tuple[str, str, str]]) -> str:
    """`content_digest` of entries that give each file's sha256 (hex) instead of its bytes."""
    total = hashlib.sha256()
    for relative, kind, hexdigest in sorted(entries):
        total.update(f"{kind} {hexdigest} {relative}\n".encode())
    return f"sha256:{total.hexdigest()}"


def _entries(root: Path):
    for top in CONTENT:
        for folder, dirs, files in os.walk(root / top):
            dirs[:] = [name for name in dirs if name != _SKIPPED_DIR]
            here = Path(folder)
            # os.walk lists a symbolic link to a folder among dirs without following it.
            for name in files + [name for name in dirs if (here / name).is_symlink()]:
                if not name.endswith(_SKIPPED_SUFFIX):
                    yield _entry(here / name, root)


def _entry(path: Path, root: Path) -> tuple[str, str, bytes]:
    """(relative path, kind, bytes): a link's target, or a file's bytes and whether it is executable."""
    relative = path.relative_to(root).as_posix()
    if path.is_symlink():
        return relative, "l", os.readlink(path).encode()
    kind = "x" if path.stat().st_mode & 0o111 else "f"
    return relative, kind, read_bytes(path, relative)  # refuses a FIFO without blocking on it


def files_digest(folder: Path, known: Callable[[str], str | None] | None = None) -> str | None:
    """`sha256:<hex>` over every file under `folder` (Python's byte code excepted), in path order
    (compared name by name down the path): for each, its relative POSIX path, a NUL byte and the
    sha256 of its bytes (raw). A link to a folder is not followed; a link to a file stands for it.

    `known(path)`: the sha256 (hex) of a file's bytes as read before, or None; given, no file is
    opened, and a file it does not know makes the digest None."""
    found: list[tuple[list[str], str]] = []
    for here, dirs, names in os.walk(folder):
        dirs[:] = [name for name in dirs if name != _SKIPPED_DIR]
        for name in names:
            path = os.path.join(here, name)
            if name.endswith(_SKIPPED_SUFFIX) or not os.path.isfile(path):
                continue
            relative = os.path.relpath(path, folder).replace(os.sep, "/")
            found.append((relative.split("/"), path))
    total = hashlib.sha256()
    for parts, path in sorted(found):
        total.update("/".join(parts).encode() + b"\0")
        if known is not None:
            hexdigest = known(path)
            if hexdigest is None:
                return None
            total.update(bytes.fromhex(hexdigest))
            continue
        with open(path, "rb") as file:
            total.update(hashlib.sha256(file.read()).digest())
    return "sha256:" + total.hexdigest()
