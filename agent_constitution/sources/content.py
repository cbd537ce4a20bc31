"""A source's content is data: regular files and folders, never links, within the size limits.

- `extract(repo, commit, folder, where) -> bytes` writes the content folders (`CONTENT`) of a commit
  into `folder` from the blobs themselves: no checkout, so no `.gitattributes` filter changes a byte
  and no link is ever created. It refuses a symbolic link (wherever it points: a source is read, never
  followed), a submodule, a name git itself refuses (`..`, `.git`, a `/`) and a file or source over the
  limits (`limits`), before writing anything of that file. It returns the proof of what it wrote:
  the commit object and every tree object down to the files, in git's object form
  (`<type> <size>\\0<bytes>`, concatenated).
- `verify(folder, commit, proof) -> str | None` checks a stored entry against git's own object ids:
  the commit object must hash to `commit` (the id the lock or the mirror gave), each tree object to
  the id its parent names, and each file to its blob id, with nothing else in the folder (Python's
  `__pycache__` folders and `.pyc` files excepted where git has none). It returns the entry's content
  digest, or None when anything differs. Altering the files and the proof together would take a SHA-1
  collision per object, not an edit.
- `check_folder(folder, where)` holds a plain folder source to the same rules (no links, only regular
  files and folders, the limits), read without following anything.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pygit2

from agent_constitution.errors import UserError
from agent_constitution.sources.digest import CONTENT, content_digest, skipped
from agent_constitution.sources.limits import Budget, budget

_TYPES = {pygit2.enums.ObjectType.COMMIT: b"commit", pygit2.enums.ObjectType.TREE: b"tree"}
_LINK = int(pygit2.enums.FileMode.LINK)
_TREE = int(pygit2.enums.FileMode.TREE)
_FILES = (int(pygit2.enums.FileMode.BLOB), int(pygit2.enums.FileMode.BLOB_EXECUTABLE))
_FIX_LINK = "replace the link in the source by the file it stands for (a source's files are copied as data)"


def extract(repo: pygit2.Repository, commit: str, folder: Path, where: str) -> tuple[bytes, str]:
    """Write the content of `commit` into `folder` (new); returns the proof and the content digest."""
    found = repo[commit].peel(pygit2.Commit)
    proof = [_object(repo, found.id), _object(repo, found.tree.id)]
    files: list[tuple[str, str, bytes]] = []
    limit = budget(where)
    folder.mkdir()
    for name in CONTENT:
        if name not in found.tree:
            continue
        entry = found.tree[name]
        if entry.filemode != _TREE:
            _refuse(repo, entry, name, where)
        _extract_tree(repo, entry, folder / name, name, where, limit, proof, files)
    return b"".join(proof), content_digest(files)


def _extract_tree(repo, tree, folder: Path, shown: str, where: str, limit: Budget, proof: list, files: list) -> None:
    proof.append(_object(repo, tree.id))
    folder.mkdir()
    for entry in tree:
        name = entry.name
        path = f"{shown}/{name}"
        if name in ("", ".", "..") or "/" in name or "\0" in name or name.lower() == ".git":
            raise UserError(f"{where}: {shown} holds an entry named {name!r}, which git itself refuses to check out",
                            fix="the commit was made by a broken or hostile tool: follow another version of the source")
        if entry.filemode == _TREE:
            _extract_tree(repo, entry, folder / name, path, where, limit, proof, files)
        elif entry.filemode in _FILES:
            _, size = repo.odb.read_header(entry.id)
            limit.add(path, size)
            executable = entry.filemode == pygit2.enums.FileMode.BLOB_EXECUTABLE
            data = repo.odb.read(entry.id)[1]
            handle = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o555 if executable else 0o444)
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            if not skipped(path, directory=False):
                files.append((path, "x" if executable else "f", data))
        else:
            _refuse(repo, entry, path, where)


def _refuse(repo: pygit2.Repository, entry, path: str, where: str):
    if entry.filemode == _LINK:
        target = repo.odb.read(entry.id)[1][:200].decode("utf-8", "replace")
        raise UserError(f"{where}: {path} is a symbolic link (to {target!r}); a source holds files, never links",
                        fix=_FIX_LINK)
    if entry.filemode == pygit2.enums.FileMode.COMMIT:
        raise UserError(f"{where}: {path} is a git submodule; a source's content is its own files",
                        fix="copy the files into the source instead of a submodule")
    raise UserError(f"{where}: {path} is not a folder", fix="a source's rules/, constitution/ and manifests/ are folders")


def _object(repo: pygit2.Repository, oid) -> bytes:
    kind, data = repo.odb.read(oid)
    return _TYPES[kind] + b" %d\0" % len(data) + data


def verify(folder: Path, commit: str, proof: bytes) -> str | None:
    objects = _parse(proof)
    if objects is None or objects.get(commit, (None,))[0] != b"commit":
        return None
    head = objects[commit][1].split(b"\n", 1)[0]
    if not head.startswith(b"tree "):
        return None
    root = _listing(objects, head[5:].decode("ascii", "replace"))
    if root is None:
        return None
    expected = {name: entry for name, entry in root.items() if name in CONTENT}
    try:
        present = {item.name for item in os.scandir(folder)}
    except OSError:
        return None
    if present != set(expected):
        return None
    files: list[tuple[str, str, bytes]] = []
    for name, (mode, oid) in sorted(expected.items()):
        if mode != "40000" or not _same_tree(objects, folder / name, name, oid, files):
            return None
    return content_digest(files)


def _same_tree(objects, folder: Path, shown: str, oid: str, files: list) -> bool:
    listing = _listing(objects, oid)
    if listing is None:
        return False
    try:
        on_disk = {item.name: item for item in os.scandir(folder)}
    except OSError:
        return False
    for name, item in on_disk.items():
        python_cache = skipped(f"{shown}/{name}", directory=item.is_dir(follow_symlinks=False))
        if name not in listing and not (python_cache and not item.is_symlink()):
            return False
    for name, (mode, child) in listing.items():
        item = on_disk.get(name)
        path = f"{shown}/{name}"
        if item is None or item.is_symlink():
            return False
        if mode == "40000":
            if not item.is_dir(follow_symlinks=False) or not _same_tree(objects, folder / name, path, child, files):
                return False
            continue
        data = _read(folder / name)
        if data is None or not mode.startswith("100") or _blob_id(data) != child:
            return False
        executable = bool(int(mode, 8) & 0o111)
        if executable != bool(os.lstat(folder / name).st_mode & 0o100):
            return False
        if not skipped(path, directory=False):
            files.append((path, "x" if executable else "f", data))
    return True


def _read(path: Path) -> bytes | None:
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        return file.read()


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


def check_folder(folder: Path, where: str) -> None:
    """Refuse links, non-regular files and oversize files in a plain folder source's content."""
    limit = budget(where)
    for name in CONTENT:
        top = folder / name
        if not os.path.lexists(top):
            continue
        _check_entry(top, name, where, limit)
        if not top.is_dir():
            continue
        for directory, dirs, files in os.walk(top):
            here = Path(directory)
            relative = here.relative_to(folder).as_posix()
            dirs[:] = [d for d in dirs if not skipped(f"{relative}/{d}", directory=True)]
            for item in sorted(dirs + files):
                if item in dirs or not skipped(f"{relative}/{item}", directory=False):
                    _check_entry(here / item, f"{relative}/{item}", where, limit)


def _check_entry(path: Path, shown: str, where: str, limit: Budget) -> None:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise UserError(f"{where}: {shown} is a symbolic link (to {os.readlink(path)!r}); a source holds files,"
                        " never links", fix=_FIX_LINK)
    if stat.S_ISREG(info.st_mode):
        limit.add(shown, info.st_size)
    elif not stat.S_ISDIR(info.st_mode):
        raise UserError(f"{where}: {shown} is neither a file nor a folder (a pipe, socket or device)",
                        fix="remove it from the source")
