"""Checking a stored source tree against git's own object ids, without git: `verify(folder, commit, proof)`.

`proof` is what `content.extract` wrote beside the tree: the commit object and every tree object down
to the files, in git's object form (`<type> <size>\\0<bytes>`, concatenated). The commit object must
hash to `commit` (the id the lock or the mirror gave), each tree object to the id its parent names,
and each file to its blob id, with nothing else in the folder (Python's `__pycache__` folders and
`.pyc` files excepted where git has none); files are read without following links. The result is the
content digest (of the content folders, `CONTENT`), or None when anything differs. Altering the files and the proof together
would take a SHA-1 collision per object, not an edit. (No pygit2 here: checking that a build is up to
date imports only this.)
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from agent_constitution.sources.digest import CONTENT, content_digest, in_content, skipped


def verify(folder: Path, commit: str, proof: bytes) -> str | None:
    objects = _parse(proof)
    if objects is None or objects.get(commit, (None,))[0] != b"commit":
        return None
    head = objects[commit][1].split(b"\n", 1)[0]
    if not head.startswith(b"tree "):
        return None
    root = _listing(objects, head[5:].decode("ascii", "replace"))
    if root is None or any(root[name][0] != "40000" for name in CONTENT if name in root):
        return None
    files: list[tuple[str, str, bytes]] = []
    if not _same_tree(objects, str(folder), "", head[5:].decode("ascii", "replace"), files):
        return None
    return content_digest(files)


def _same_tree(objects, folder: str, shown: str, oid: str, files: list) -> bool:
    # Plain strings and os calls, not pathlib: this runs for every file on every build that reuses a tree.
    listing = _listing(objects, oid)
    if listing is None:
        return False
    try:
        on_disk = {item.name: item for item in os.scandir(folder)}
    except OSError:
        return False
    if any(name not in listing and _stray(item, f"{shown}/{name}" if shown else name) for name, item in on_disk.items()):
        return False
    for name, (mode, child) in listing.items():
        item = on_disk.get(name)
        path = f"{shown}/{name}" if shown else name
        if item is None or item.is_symlink():
            return False
        if mode == "40000":
            if not item.is_dir(follow_symlinks=False) or not _same_tree(objects, item.path, path, child, files):
                return False
        elif not _same_file(item.path, path, mode, child, files):
            return False
    return True


def _stray(item: os.DirEntry, path: str) -> bool:
    """An entry on disk that the tree does not list and a stored tree may not hold: a link, or a file
    the extraction would not have skipped."""
    return item.is_symlink() or not skipped(path, directory=item.is_dir(follow_symlinks=False))


def _same_file(on_disk: str, path: str, mode: str, blob: str, files: list) -> bool:
    """The file on disk is the blob with its mode; a content file joins `files` for the digest."""
    read = _read(on_disk)
    if read is None or not mode.startswith("100"):
        return False
    data, permissions = read
    executable = bool(int(mode, 8) & 0o111)
    if _blob_id(data) != blob or executable != bool(permissions & 0o100):
        return False
    if in_content(path) and not skipped(path, directory=False):
        files.append((path, "x" if executable else "f", data))
    return True


def _read(path: str) -> tuple[bytes, int] | None:
    """A regular file's bytes and mode bits, opened without following a link (None for anything else)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        mode = os.fstat(file.fileno()).st_mode
        if not stat.S_ISREG(mode):
            return None
        return file.read(), mode


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _parse(proof: bytes) -> dict[str, tuple[bytes, bytes]] | None:
    """Object id (computed, never read) → (type, bytes); None when the proof is not well formed."""
    objects = {}
    position = 0
    while position < len(proof):
        end = proof.find(b"\0", position)
        try:
            kind, size = proof[position:end].split(b" ")
            size = int(size)
        except ValueError:
            return None
        data = proof[end + 1 : end + 1 + size]
        if end < 0 or len(data) != size:
            return None
        objects[hashlib.sha1(proof[position : end + 1] + data).hexdigest()] = (kind, data)
        position = end + 1 + size
    return objects


def _listing(objects, oid: str) -> dict[str, tuple[str, str]] | None:
    """A tree object's entries: name → (mode, object id)."""
    kind, data = objects.get(oid, (None, b""))
    if kind != b"tree":
        return None
    entries = {}
    position = 0
    while position < len(data):
        space = data.find(b" ", position)
        nul = data.find(b"\0", space)
        if space < 0 or nul < 0 or nul + 21 > len(data):
            return None
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        entries[name] = (data[position:space].decode("ascii", "replace"), data[nul + 1 : nul + 21].hex())
        position = nul + 21
    return entries
