"""The user-level cache of sources, shared by every repository on the machine (like uv's package cache).

Layout under `cache_root()`:

    git/<bucket>/                       a bare mirror of one repository (branches and tags), for fetching
    git/<bucket>.lock                   held while the mirror is created or fetched into
    trees/<bucket>/<commit>/tree/       the whole tree of one commit, extracted once, files read-only
    trees/<bucket>/<commit>/tree-objects the commit and tree objects naming every file of tree/
    trees/<bucket>/<commit>/verified    the status of tree/ when it was last verified, sealed (`intact`)
    parsed/                             parsed rule files per source folder (`sources.parsed`)

`<bucket>` is readable and unique per normalized URL. A tree entry is built in a temp folder beside it
and renamed into place, so a reader sees a whole entry or none; when two builds fill the same entry at
once, the first rename wins and the other build uses it. Each use verifies the entry against git's
object ids, starting from the commit id itself (`content.verify`): an entry that fails is reported,
removed and extracted again from the mirror; one without its objects (cut short, or written by an
older version) is refilled quietly.

A folder being filled (`.<name>.<random>.tmp`) is locked (`flock`) by the process filling it for as
long as it lives; the next build that fills anything removes every temp folder whose lock it can
take (its process was killed) and every `.trash` folder (a removal cut short). The whole cache can
be deleted at any time: the next build fetches what it needs again.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import re
import secrets
import shutil
import time
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from agent_constitution.fsio import open_lock, write_error
from agent_constitution.readers import read_cached
from agent_constitution.sources import gitproof

if TYPE_CHECKING:
    import pygit2

ENV = "AGENT_CONSTITUTION_CACHE"
# Named anew when the entry's layout changed (`git-objects` held only rules/, constitution/ and
# manifests/): an entry without it is refilled quietly, never reported as corrupt.
PROOF = "tree-objects"
_TEMP = ".tmp"
_TRASH = ".trash"
# A temp folder is locked a moment after it is made; one younger than this is never taken for an orphan.
_GRACE_SECONDS = 60


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
    with os.fdopen(open_lock(path), "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def filling(parent: Path, name: str) -> Iterator[Path]:
    """A new temp folder in `parent`, locked by this process until the block ends; removed unless renamed."""
    parent.mkdir(parents=True, exist_ok=True)
    sweep()
    folder = Path(tempfile.mkdtemp(dir=parent, prefix=f".{name}.", suffix=_TEMP))
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield folder
    finally:
        if folder.exists():
            discard(folder)
        os.close(handle)


def sweep() -> None:
    """Remove what killed processes left: unlocked temp folders and trash, in git/ and trees/*/."""
    root = cache_root()
    folders = [root / "git", *(root / "trees").glob("*/")]
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not name.startswith("."):
                continue
            path = folder / name
            if name.endswith(_TRASH):
                shutil.rmtree(path, ignore_errors=True)
            elif name.endswith(_TEMP):
                _remove_if_orphaned(path)


def _remove_if_orphaned(path: Path) -> None:
    try:
        if time.time() - path.stat().st_mtime < _GRACE_SECONDS:
            return
        handle = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return  # gone already, or renamed into place
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(handle)
        return  # a live process is filling it
    try:
        discard(path)
    finally:
        os.close(handle)


# What libgit2 opens of a bare mirror: a FIFO, socket or device there would block it forever.
_MIRROR_FOLDERS = ("", "objects/info", "objects/pack", *(f"objects/{n:02x}" for n in range(256)))


def special_file(mirror: Path) -> Path | None:
    """The first entry in the mirror that is neither a regular file nor a folder (a FIFO, socket, device
    or link) among those libgit2 opens: the mirror's own files, its refs (all of them) and its objects.
    Folders are listed; no file is opened."""
    pending = [(mirror / folder, False) for folder in _MIRROR_FOLDERS] + [(mirror / "refs", True)]
    while pending:
        folder, deep = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return folder
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if deep:
                    pending.append((Path(entry.path), True))
            elif entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                return Path(entry.path)
    return None


def _entry(key: str, commit: str) -> Path:
    return cache_root() / "trees" / bucket(key) / commit


def stored_tree(key: str, commit: str, *, display: str) -> tuple[Path, str] | None:
    """The cached tree of `commit` and its digest, verified against git; None when absent or found corrupt."""
    entry = _entry(key, commit)
    if not entry.is_dir():
        return None
    proof = read_cached(entry / PROOF)
    digest = None if proof is None else gitproof.verify(entry / "tree", commit, proof)
    if digest is not None:
        return entry / "tree", digest
    if not entry.is_dir():
        return None  # another build is removing this entry right now; fill it anew
    if proof is not None:
        print(
            f"warning: the cache entry of {display} at {commit} is corrupt (its files are not the ones the "
            f"commit's git object ids name); extracting it again\n  entry: {entry}",
            file=sys.stderr,
        )
    discard(entry)  # without its objects: cut short, or from an older version; refilled quietly
    return None


def store_tree(repo: pygit2.Repository, key: str, commit: str, *, display: str) -> tuple[Path, str]:
    """Extract the content of `commit` from `repo` into the cache (once) and return its tree and digest."""
    from agent_constitution.sources import content  # lazy: a no-op compile reads the cache without pygit2 (bench/regress.py compile)

    entry = _entry(key, commit)
    try:
        return _store(repo, key, entry, commit, display, content)
    except OSError as error:  # a full disk or a read-only cache: one message, no traceback
        raise write_error(error, entry) from None


def _store(repo, key: str, entry: Path, commit: str, display: str, content) -> tuple[Path, str]:
    with filling(entry.parent, commit) as building:
        proof, digest = content.extract(repo, commit, building / "tree", f"the source {display} at commit {commit}")
        (building / PROOF).write_bytes(proof)
        try:
            os.rename(building, entry)
        except OSError:
            # Another build renamed its copy into place first: use that one.
            found = stored_tree(key, commit, display=display)
            if found is None:
                raise
            return found
    return entry / "tree", digest


def intact(key: str, commit: str, digest: str, root: str, *, secret: bytes | None = None) -> bool:
    """Whether the entry a resolution recorded (its `root` and `digest`) is still in the cache, unaltered.

    What an up-to-date check asks before a build reuses a resolution instead of fetching again; it
    changes nothing but its own stamp (a failing entry is repaired by the fetch that follows).
    `secret`: this user's key (`sources.parsed.user_key`). With it, an entry verified once is taken
    as intact while every file and folder of its tree keeps the status it had then (size, times,
    inode, mode: no tool sets a change time back), which a stamp beside the tree records, sealed
    with the key (`VERIFIED`): a no-op build then reads no file of the tree. A tree changed less
    than two seconds before it was verified gets no stamp (its status could hide an edit made within
    the file system's time resolution), nor does one whose status cannot be taken.
    """
    entry = _entry(key, commit)
    if Path(root) != entry / "tree":
        return False
    proof = read_cached(entry / PROOF)
    if proof is None:
        return False
    status = _tree_status(entry / "tree") if secret is not None else None
    seal = None if status is None else _seal(secret, commit, digest, proof, status[0])
    if seal is not None and read_cached(entry / VERIFIED) == seal:
        return True
    if gitproof.verify(entry / "tree", commit, proof) != digest:
        return False
    if seal is not None and status[1] < time.time_ns() - _RACY_NS:
        # A temp file and a rename, not `fsio.write_atomic`: a compile step's undo journal has
        # nothing to do with the user cache.
        tmp = entry / f".{VERIFIED}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
        try:
            tmp.write_bytes(seal)
            os.replace(tmp, entry / VERIFIED)
        except OSError:
            tmp.unlink(missing_ok=True)  # a cache that cannot be written verifies again next time
    return True


# The stamp of a tree verified against its proof (`intact`), and how long before the verification
# the tree must have last changed for its status to be stamped.
VERIFIED = "verified"
_RACY_NS = 2_000_000_000


def _tree_status(folder: Path) -> tuple[str, int] | None:
    """(sha256 over every entry's path and status under `folder`, the newest change time among them),
    without reading a file; None when an entry cannot be listed or its status taken."""
    total, newest = hashlib.sha256(), 0
    stack = [str(folder)]
    try:
        while stack:
            here = stack.pop()
            with os.scandir(here) as listing:
                items = sorted(listing, key=lambda item: item.name)
            for item in items:
                info = item.stat(follow_symlinks=False)
                total.update(f"{item.path}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}"
                             f"\0{info.st_ino}\n".encode("utf-8", "surrogateescape"))
                newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
                if item.is_dir(follow_symlinks=False):
                    stack.append(item.path)
    except OSError:
        return None
    return total.hexdigest(), newest


def _seal(secret: bytes, commit: str, digest: str, proof: bytes, status: str) -> bytes:
    body = f"{commit}\0{digest}\0{hashlib.sha256(proof).hexdigest()}\0{status}".encode()
    return hmac.new(secret, body, hashlib.sha256).hexdigest().encode()


def discard(path: Path) -> None:
    """Remove a folder, first renaming it aside so a concurrent reader never sees it half-deleted."""
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{_TRASH}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return
    shutil.rmtree(aside, ignore_errors=True)
