"""The user-level cache of sources, shared by every repository on the machine (like uv's package cache).

Layout under `cache_root()`:

    git/<bucket>/                 a bare mirror of one repository (branches and tags), for fetching
    git/<bucket>.lock             held while the mirror is created or fetched into
    trees/<bucket>/<commit>/tree/ the source content of one commit, checked out once, files read-only
    trees/<bucket>/<commit>/digest  the content digest of tree/, checked every time the entry is used

`<bucket>` is readable and unique per normalized URL. A tree entry is built in a temp folder beside it
and renamed into place, so a reader sees a whole entry or none; when two builds fill the same entry at
once, the first rename wins and the other build uses it. A corrupt entry (missing digest, changed
files) is removed and filled again.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs
import pygit2

from agent_constitution.sources.digest import CONTENT, tree_digest

ENV = "AGENT_CONSTITUTION_CACHE"
_CHECKOUT = (
    pygit2.enums.CheckoutStrategy.FORCE
    | pygit2.enums.CheckoutStrategy.DONT_UPDATE_INDEX
    | pygit2.enums.CheckoutStrategy.DONT_WRITE_INDEX
)


def cache_root() -> Path:
    override = os.environ.get(ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("agent-constitution"))


def bucket(key: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_.")[-60:]
    return f"{readable}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def mirror_path(key: str) -> Path:
    return cache_root() / "git" / bucket(key)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (a lock file, created if absent) across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _entry(key: str, commit: str) -> Path:
    return cache_root() / "trees" / bucket(key) / commit


def stored_tree(key: str, commit: str, *, display: str) -> tuple[Path, str] | None:
    """The cached tree of `commit` and its digest, verified; None when absent or found corrupt."""
    entry = _entry(key, commit)
    if not entry.is_dir():
        return None
    try:
        recorded = (entry / "digest").read_text().strip()
    except FileNotFoundError:
        recorded = ""
    try:
        if recorded and (entry / "tree").is_dir() and tree_digest(entry / "tree") == recorded:
            return entry / "tree", recorded
    except FileNotFoundError:
        return None  # another build is removing this entry right now; fill it anew
    if not entry.is_dir():
        return None
    print(
        f"warning: the cache entry of {display} at {commit} is corrupt (its files do not match "
        f"its digest); fetching it again\n  entry: {entry}",
        file=sys.stderr,
    )
    discard(entry)
    return None


def store_tree(repo: pygit2.Repository, key: str, commit: str, *, display: str) -> tuple[Path, str]:
    """Check the content of `commit` out of `repo` into the cache (once) and return its tree and digest."""
    entry = _entry(key, commit)
    entry.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=entry.parent, prefix=f".{commit}.", suffix=".tmp"))
    try:
        tree = building / "tree"
        tree.mkdir()
        repo.checkout_tree(
            repo[commit].peel(pygit2.Commit).tree,
            directory=str(tree),
            paths=list(CONTENT),
            # The mirror's index stays untouched: several builds may check out of one mirror at once.
            strategy=_CHECKOUT,
        )
        digest = tree_digest(tree)
        _read_only(tree)
        (building / "digest").write_text(digest + "\n")
        os.rename(building, entry)
    except OSError:
        discard(building)
        # Another build renamed its copy into place first: use that one.
        found = stored_tree(key, commit, display=display)
        if found is None:
            raise
        return found
    except BaseException:
        discard(building)
        raise
    return entry / "tree", digest


def _read_only(tree: Path) -> None:
    # Files only: folders stay writable so that a corrupt entry can still be removed.
    for folder, _dirs, files in os.walk(tree):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)


def discard(path: Path) -> None:
    """Remove a folder, first renaming it aside so a concurrent reader never sees it half-deleted."""
    aside = path.with_name(f".{path.name}.{os.getpid()}.trash")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return
    shutil.rmtree(aside, ignore_errors=True)
