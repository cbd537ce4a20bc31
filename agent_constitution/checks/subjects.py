"""The change and record subjects: what a `change=` or `record=` on the command line names.

A change is read through pygit2. `staged` is the index against HEAD (what `git commit` would record);
`worktree` is the working tree against HEAD, untracked files (not ignored) included: what the
session changed and has not committed (the Stop hook checks it);
`A..B` is what B adds to A: the commits reachable from B and not from A (their messages) and the diff
from their merge base to B, like `git diff A...B`; `A..` means `A..HEAD`; a single revision is that
one commit against its first parent. Renames are detected, so a moved file has both paths.

A commit message file (`message=PATH`, what git's commit-msg hook is given) replaces the change's
messages: the commit being made is judged by the message it will have.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_constitution.checks.api import Change, FileChange, Record
from agent_constitution.checks.model import ROOT_SEGMENT
from agent_constitution.errors import UserError
from agent_constitution.sources.urls import GIT_PROTOCOLS

if TYPE_CHECKING:
    import pygit2

STAGED = "staged"
WORKTREE = "worktree"
# The worktree's files as `resolve_change` read them, by their digest: `read_change` reuses them
# instead of walking the working tree a second time (the walk is most of the Stop hook's work).
_WORKTREE_READ: dict[str, tuple[FileChange, ...]] = {}


@dataclass(frozen=True)
class ChangeSpec:
    """A change named on the command line, resolved to object ids so that its identity is stable."""

    text: str
    base: str | None                # tree id the change starts from (None: the empty tree)
    head: str | None                # tree id it ends at (None: the index, for `staged`)
    commits: tuple[str, ...] = ()   # commit ids it contains, newest first
    index: str | None = None        # for `staged`: a digest of the index entries; `worktree`: of the files
    worktree: bool = False          # head is the working tree (`worktree`), not the index
    message: str | None = None      # the message of the commit being made (`message=PATH`)


def resolve_change(root: Path, text: str, message: str | None = None) -> ChangeSpec:
    """The change `text` names; `message`, the message of the commit being made, replaces its messages."""
    spec = _resolve(root, text)
    return spec if message is None else dataclasses.replace(spec, message=message)


def commit_message(text: str) -> str:
    """A commit message file as git records it (`git commit --cleanup=strip`): without comment lines,
    without everything below the scissors line of `git commit -v`, and without trailing blank lines."""
    lines = []
    for line in text.splitlines():
        if line.startswith("# ------------------------ >8 ------------------------"):
            break
        if not line.startswith("#"):
            lines.append(line.rstrip())
    return "\n".join(lines).strip("\n") + "\n" if any(lines) else ""


def _resolve(root: Path, text: str) -> ChangeSpec:
    if text == WORKTREE:
        head = _clean_head(root)
        if head is not None:  # nothing to diff: the files are none, the digest that of none
            digest = hashlib.blake2b(digest_size=16).hexdigest()
            _WORKTREE_READ.clear()
            _WORKTREE_READ[digest] = ()
            return ChangeSpec(text, head, None, (), digest, worktree=True)
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change

    repo = _open(root)
    if text == STAGED:
        head = None if repo.head_is_unborn else str(repo.head.peel(pygit2.Commit).tree.id)
        digest = hashlib.blake2b(digest_size=16)
        for entry in repo.index:
            digest.update(f"{entry.path}\0{entry.id}\0{entry.mode}\n".encode())
        return ChangeSpec(text, head, None, (), digest.hexdigest())
    if text == WORKTREE:
        head = None if repo.head_is_unborn else str(repo.head.peel(pygit2.Commit).tree.id)
        digest = hashlib.blake2b(digest_size=16)
        files = _worktree_files(repo, head)
        for change in files:
            digest.update(f"{change.old_path}\0{change.new_path}\0{change.new_text}\0".encode())
        _WORKTREE_READ.clear()
        _WORKTREE_READ[digest.hexdigest()] = files
        return ChangeSpec(text, head, None, (), digest.hexdigest(), worktree=True)
    if ".." in text:
        return _range(repo, text)
    commit = _commit(repo, text, text)
    base = str(commit.parents[0].tree.id) if commit.parents else None
    return ChangeSpec(text, base, str(commit.tree.id), (str(commit.id),))


def _range(repo, text: str) -> ChangeSpec:
    """`A..B`: the commits reachable from B and not from A, against their merge base."""
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change

    left, _, right = text.partition("..")
    old, new = _commit(repo, left or "HEAD", text), _commit(repo, right or "HEAD", text)
    base_id = repo.merge_base(old.id, new.id)
    walker = repo.walk(new.id, pygit2.enums.SortMode.TOPOLOGICAL)
    walker.hide(old.id)
    commits = tuple(str(commit.id) for commit in walker)
    base = None if base_id is None else str(repo[base_id].peel(pygit2.Commit).tree.id)
    return ChangeSpec(text, base, str(new.tree.id), commits)


def read_change(root: Path, spec: ChangeSpec, segment: str = ROOT_SEGMENT) -> Change:
    """The change's files (paths relative to the segment's folder) and commit messages."""
    if spec.worktree and spec.index in _WORKTREE_READ:  # a worktree change has no commits
        files = _WORKTREE_READ[spec.index]
        messages = (spec.message,) if spec.message is not None else ()
    else:
        files, messages = _read(root, spec)
    prefix = "" if segment == ROOT_SEGMENT else segment.rstrip("/") + "/"
    if prefix:
        files = tuple(_relative(change, prefix) for change in files if change.path.startswith(prefix))
    return Change(Path(root) / segment if prefix else Path(root), files, messages)


def _read(root: Path, spec: ChangeSpec) -> tuple[tuple[FileChange, ...], tuple[str, ...]]:
    """The change's files (paths relative to the repository) and messages, read through pygit2."""
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change

    repo = _open(root)
    base = None if spec.base is None else repo[spec.base]
    if spec.worktree:
        diff = _worktree_files(repo, spec.base)
    elif spec.head is None:
        diff = repo.index.diff_to_tree(base) if base is not None else _added_from_index(repo)
    elif base is None:
        diff = repo[spec.head].diff_to_tree(swap=True)
    else:
        diff = repo.diff(base, repo[spec.head])
    if isinstance(diff, pygit2.Diff):
        diff.find_similar()
        files = tuple(_file_change(repo, delta) for delta in diff.deltas)
    else:
        files = diff
    messages = (spec.message,) if spec.message is not None else tuple(repo[commit].message for commit in spec.commits)
    return files, messages


def read_record(path: Path) -> Record:
    """A session transcript (JSONL). A line that is not JSON makes the record's checks undecidable."""
    if not path.is_file():
        raise UserError(f"record {path} does not exist", fix="pass record=PATH to a transcript .jsonl file")
    return Record.read(path)


def _open(root: Path) -> pygit2.Repository:
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change

    try:
        return pygit2.Repository(str(root))
    except pygit2.GitError:
        raise UserError(f"{root} is not a git repository, so it has no change to check",
                        fix="run the change checks inside a git working tree") from None


def _commit(repo: pygit2.Repository, name: str, text: str) -> pygit2.Commit:
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change

    try:
        return repo.revparse_single(name).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        raise UserError(f"change {text!r}: {name!r} is not a revision of this repository",
                        fix="use change=staged, change=worktree, change=REV, change=A..B or change=A..") from None


def _added_from_index(repo: pygit2.Repository) -> tuple[FileChange, ...]:
    """With no commit yet, everything staged is added."""
    return tuple(FileChange(None, entry.path, None, _text(repo, entry.id)) for entry in repo.index)


def _clean_head(root: Path) -> str | None:
    """HEAD's tree id when git reports nothing staged, modified or untracked (not ignored) in the
    working tree; else None, as where git cannot say (not installed, no commit yet, no repository).

    Two git commands instead of pygit2's import and diff: 8 ms of CPU against 0.1 s on unjs/h3, most
    of the Stop hook of a session that committed its work (`farm-bench`, 2026-12-02). A tree that
    is not clean is diffed through pygit2 as before; the git commands then cost 8 ms more."""
    # pygit2 reads none of the variables that point git elsewhere (a git hook sets them): nor does this.
    env = {**{key: value for key, value in os.environ.items() if key not in _ELSEWHERE}, **GIT_PROTOCOLS}
    try:
        status = subprocess.run(["git", "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all"],
                                cwd=root, capture_output=True, env=env)
        if status.returncode != 0 or status.stdout:
            return None
        head = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD^{tree}"], cwd=root,
                              capture_output=True, env=env)
    except OSError:
        return None
    tree = head.stdout.decode("ascii", errors="replace").strip()
    return tree if head.returncode == 0 and tree else None


_ELSEWHERE = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE"})


def _worktree_files(repo: pygit2.Repository, base: str | None) -> tuple[FileChange, ...]:
    """The working tree against the tree `base` (untracked files added, renames found); with no
    commit yet, what is staged. New texts are read from the disk: git has not hashed them."""
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change
    from pygit2.enums import DiffFind, DiffOption  # lazy: as pygit2

    if base is None:
        return _added_from_index(repo)
    options = DiffOption.INCLUDE_UNTRACKED | DiffOption.RECURSE_UNTRACKED_DIRS | DiffOption.SHOW_UNTRACKED_CONTENT
    # Tree to index, then index to working tree, merged: what `git diff HEAD` does. The index's
    # stat cache spares hashing every file of the tree (a tree-to-workdir diff reads them all:
    # 20 times slower here, the largest cost of a Stop hook).
    tree = repo[base].peel(pygit2.Tree)
    diff = tree.diff_to_index(repo.index, options)
    diff.merge(repo.index.diff_to_workdir(options))
    diff.find_similar(DiffFind.FIND_RENAMES | DiffFind.FIND_FOR_UNTRACKED)
    root = Path(repo.workdir)
    files = []
    for delta in diff.deltas:
        added = delta.status in (pygit2.enums.DeltaStatus.ADDED, pygit2.enums.DeltaStatus.UNTRACKED)
        deleted = delta.status == pygit2.enums.DeltaStatus.DELETED
        files.append(FileChange(
            old_path=None if added else delta.old_file.path,
            new_path=None if deleted else delta.new_file.path,
            old_text=None if added else _text(repo, delta.old_file.id),
            new_text=None if deleted else _disk_text(root / delta.new_file.path),
        ))
    return tuple(files)


def _disk_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:  # gone since the diff was taken, or a folder (a submodule)
        return None


def _file_change(repo: pygit2.Repository, delta: pygit2.DiffDelta) -> FileChange:
    import pygit2  # lazy: 0.1 s of start-up, for a run that names a change

    added = delta.status == pygit2.enums.DeltaStatus.ADDED
    deleted = delta.status == pygit2.enums.DeltaStatus.DELETED
    old, new = delta.old_file, delta.new_file
    return FileChange(
        old_path=None if added else old.path,
        new_path=None if deleted else new.path,
        old_text=None if added else _text(repo, old.id),
        new_text=None if deleted else _text(repo, new.id),
    )


def _text(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    return repo[oid].data.decode("utf-8", errors="replace")


def _relative(change: FileChange, prefix: str) -> FileChange:
    def strip(path: str | None) -> str | None:
        return path[len(prefix):] if path and path.startswith(prefix) else path

    return FileChange(strip(change.old_path), strip(change.new_path), change.old_text, change.new_text)
