"""A source's content is data: regular files and folders, never links, within the size limits.

- `extract(repo, commit, folder, where) -> (proof, digest)` writes the whole tree of a commit into
  `folder` from the blobs themselves: no checkout, so no `.gitattributes` filter changes a byte and
  no link is ever created. The whole tree, not only the content folders, so that an external check's
  script may live anywhere in the source (`{source}/scripts/check_42.py`). It refuses a symbolic link
  anywhere (wherever it points: a source is read, never followed), a submodule, a name git itself
  refuses (`..`, `.git`, a `/`) and a file or source over the limits (`limits`, counted over the
  whole tree), before writing anything of that file; the tree's shape (entries, depth, path length,
  tree objects: `shape`) is checked before anything is written. It returns the proof of what it wrote (the
  commit object and every tree object down to the files, in git's object form
  `<type> <size>\\0<bytes>`, concatenated) and the content digest, which covers the content
  folders (`CONTENT`) only, as for a plain folder.
- `gitproof.verify(folder, commit, proof)` checks such a folder against the proof (and git's ids).
- `folder_digest(folder, where, kept)` holds a plain folder source to the same rules (no links, only
  regular files and folders, the limits) while it computes its content digest, reading without
  following anything.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from agent_constitution.errors import UserError
from agent_constitution.layout import RULES
from agent_constitution.sources.digest import CONTENT, content_digest, hashed_content_digest, in_content, skipped
from agent_constitution.sources import shape
from agent_constitution.sources.limits import Budget, budget

if TYPE_CHECKING:  # pygit2 is imported where a git source is read: a path source's lock skips its 40 ms
    import pygit2

# git's object types and file modes, as pygit2.enums.ObjectType and FileMode number them (the
# numbers are git's own; tests/sources/test_git_modes.py holds them against pygit2's).
_TYPES = {1: b"commit", 2: b"tree"}
_LINK = 0o120000
_TREE = 0o040000
_EXECUTABLE = 0o100755
_FILES = (0o100644, _EXECUTABLE)
_SUBMODULE = 0o160000
_FIX_LINK = "replace the link in the source by the file it stands for (a source's files are copied as data)"


def extract(repo: pygit2.Repository, commit: str, folder: Path, where: str) -> tuple[bytes, str]:
    """Write the content of `commit` into `folder` (new); returns the proof and the content digest."""
    import pygit2

    found = repo[commit].peel(pygit2.Commit)
    shape.check(found.tree, where)  # before anything is written: a small pack may name 10^9 files
    proof = [_object(repo, found.id)]
    files: list[tuple[str, str, bytes]] = []
    for name in CONTENT:
        if name in found.tree and found.tree[name].filemode != _TREE:
            _refuse(repo, found.tree[name], name, where)
    _extract_tree(repo, found.tree, folder, "", where, budget(where), proof, files)
    return b"".join(proof), content_digest(files)


def _extract_tree(repo, tree, folder: Path, shown: str, where: str, limit: Budget, proof: list, files: list) -> None:
    proof.append(_object(repo, tree.id))
    folder.mkdir()
    for entry in tree:
        name = entry.name
        path = f"{shown}/{name}" if shown else name
        if name in ("", ".", "..") or "/" in name or "\0" in name or name.lower() == ".git":
            raise UserError(f"{where}: {shown or 'the top folder'} holds an entry named {name!r}, which git itself"
                            " refuses to check out",
                            fix="the commit was made by a broken or hostile tool: follow another version of the source")
        if entry.filemode == _TREE:
            _extract_tree(repo, entry, folder / name, path, where, limit, proof, files)
        elif entry.filemode in _FILES:
            _, size = repo.odb.read_header(entry.id)
            limit.add(path, size)
            executable = entry.filemode == _EXECUTABLE
            data = repo.odb.read(entry.id)[1]
            handle = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o555 if executable else 0o444)
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            if in_content(path) and not skipped(path, directory=False):
                files.append((path, "x" if executable else "f", data))
        else:
            _refuse(repo, entry, path, where)


def _refuse(repo: pygit2.Repository, entry, path: str, where: str):
    if entry.filemode == _LINK:
        target = repo.odb.read(entry.id)[1][:200].decode("utf-8", "replace")
        raise UserError(f"{where}: {path} is a symbolic link (to {target!r}); a source holds files, never links",
                        fix=_FIX_LINK)
    if entry.filemode == _SUBMODULE:
        raise UserError(f"{where}: {path} is a git submodule; a source's content is its own files",
                        fix="copy the files into the source instead of a submodule")
    raise UserError(f"{where}: {path} is not a folder", fix="a source's rules/, constitution/ and manifests/ are folders")


def _object(repo: pygit2.Repository, oid) -> bytes:
    kind, data = repo.odb.read(oid)
    return _TYPES[kind] + b" %d\0" % len(data) + data


def folder_digest(folder: Path, where: str, kept=None) -> str:
    """A plain folder source's content digest (as `tree_digest`), refusing links, non-regular files and
    oversize files on the way; every file is opened without following a link.

    `kept`: the parsed-rule cache of the folder (`sources.parsed.parsed_files`, handed in by the
    caller so that this module stays below the cache). A rule file (`rules/<name>.toml`) it vouches
    for (the status it kept, changed well before the cache was written) adds the sha256 the cache kept
    for it instead of being read: on a writing run of a 5,000-rule source that is most of the folder.
    Its type and size are still checked, from its status. The files the load reads again
    (`ParsedFiles.loaded_again`) are noted there as read, so the load does not open them again."""
    limit = budget(where)
    files: list[tuple[str, str, str]] = []
    for name in CONTENT:
        top = os.path.join(folder, name)
        try:
            info = os.lstat(top)
        except FileNotFoundError:
            continue
        _check_entry(top, name, info, where, limit)
        if stat.S_ISDIR(info.st_mode):
            _read_tree(top, name, where, limit, files, kept if name == RULES else None)
    return hashed_content_digest(files)


def _read_tree(folder: str, shown: str, where: str, limit: Budget, files: list, parsed=None) -> None:
    """Add the (path, kind, sha256) of every file under `folder`; `parsed` (the cache of the source's
    rule files, for `rules/` and below) vouches for the rule files it kept and notes what the load
    reads again."""
    with os.scandir(folder) as listing:
        items = sorted(listing, key=lambda item: item.name)
    for item in items:
        path = f"{shown}/{item.name}"
        directory = item.is_dir(follow_symlinks=False)
        if skipped(path, directory=directory):
            continue
        # The entry's type from the listing (no stat call for a file the cache does not know: a
        # source of 5,000 rules is read on every writing run); a regular file's size is checked from
        # the opened file, before it is read.
        if item.is_symlink():
            _check_entry(item.path, path, os.lstat(item.path), where, limit)
        if directory:
            _read_tree(item.path, path, where, limit, files, parsed)
            continue
        if not item.is_file(follow_symlinks=False):
            _check_entry(item.path, path, item.stat(follow_symlinks=False), where, limit)
        rule_file = parsed is not None and shown == RULES and item.name.endswith(".toml")
        if rule_file:
            status = item.stat(follow_symlinks=False)
            known = parsed.known_digest(item.name, status)
            if known is not None:
                _check_entry(item.path, path, status, where, limit)
                files.append((path, "x" if status.st_mode & 0o111 else "f", known))
                continue
        handle = os.open(item.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(handle, "rb") as file:
            opened = os.fstat(file.fileno())
            if not stat.S_ISREG(opened.st_mode):  # replaced since it was listed
                raise UserError(f"{where}: {path} changed while it was read", fix="build again")
            limit.add(path, opened.st_size)
            data = file.read()
        hexdigest = hashlib.sha256(data).hexdigest()
        if parsed is not None:
            parsed.note_sum(item.path, opened, hexdigest)
            if parsed.loaded_again(path):
                parsed.note(item.path, opened, data)
        files.append((path, "x" if opened.st_mode & 0o111 else "f", hexdigest))


def _check_entry(path: str, shown: str, info: os.stat_result, where: str, limit: Budget) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise UserError(f"{where}: {shown} is a symbolic link (to {os.readlink(path)!r}); a source holds files,"
                        " never links", fix=_FIX_LINK)
    if stat.S_ISREG(info.st_mode):
        limit.add(shown, info.st_size)
    elif not stat.S_ISDIR(info.st_mode):
        raise UserError(f"{where}: {shown} is neither a file nor a folder (a pipe, socket or device)",
                        fix="remove it from the source")
