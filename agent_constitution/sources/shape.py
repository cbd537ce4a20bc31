"""How a source's tree may be shaped: entries, depth, path length and tree objects, from git's trees.

A git tree names its subtrees by id, so the same subtree may be named many times: nine tree objects,
each naming the next ten times, make a pack of about a kilobyte that names 10^9 files (a "git bomb").
The size limits (`limits`) count bytes and never see it: its one blob is empty. So before anything of
a commit is written (or diffed), `check(tree, where)` walks its tree objects, reading each
distinct tree once (what it learnt of a subtree, its entries, depth and longest path, is kept by the
tree's id), and refuses the commit when one of these limits is passed:

    AGENT_CONSTITUTION_MAX_ENTRIES   files and folders of one source, each place counted (default 100000)
    AGENT_CONSTITUTION_MAX_DEPTH     names in one path, `rules/1.toml` is 2 (default 32)
    AGENT_CONSTITUTION_MAX_PATH      bytes of one path from the source's top (UTF-8, default 1024)
    AGENT_CONSTITUTION_MAX_OBJECTS   tree objects read to check one commit, each once (default 20000)

A value is a whole number. The message names the limit, where it was passed and the variable that
raises it. The walk stops at the first limit passed, so a bomb is refused after reading a handful of
objects, in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_constitution.errors import UserError
from agent_constitution.sources.limits import count_limit

if TYPE_CHECKING:  # pygit2 is imported where a git source is read: a path source's lock skips its 40 ms
    import pygit2

ENTRIES_ENV = "AGENT_CONSTITUTION_MAX_ENTRIES"
DEPTH_ENV = "AGENT_CONSTITUTION_MAX_DEPTH"
PATH_ENV = "AGENT_CONSTITUTION_MAX_PATH"
OBJECTS_ENV = "AGENT_CONSTITUTION_MAX_OBJECTS"
DEFAULTS = {ENTRIES_ENV: 100_000, DEPTH_ENV: 32, PATH_ENV: 1024, OBJECTS_ENV: 20_000}
# The walk recurses once per folder level: a deeper limit would pass Python's recursion limit.
_DEEPEST = 512
_TREE = 0o040000  # git's file mode of a tree (pygit2.enums.FileMode.TREE)


@dataclass(frozen=True)
class _Subtree:
    """What a tree holds, wherever it is named: its entries, the names in its deepest path and its
    longest path in bytes (relative to the tree)."""

    entries: int
    depth: int
    longest: str


class _Walk:
    def __init__(self, where: str):
        self.where = where
        self.entries = count_limit(ENTRIES_ENV, DEFAULTS[ENTRIES_ENV])
        self.depth = min(count_limit(DEPTH_ENV, DEFAULTS[DEPTH_ENV]), _DEEPEST)
        self.path = count_limit(PATH_ENV, DEFAULTS[PATH_ENV])
        self.objects = count_limit(OBJECTS_ENV, DEFAULTS[OBJECTS_ENV])
        self.known: dict[pygit2.Oid, _Subtree] = {}
        self.counted = 0  # entries so far, each place counted
        self.read = 0  # tree objects read

    def tree(self, tree: pygit2.Tree, prefix: str, depth: int) -> _Subtree:
        """Walk `tree`, found at `prefix` (`depth` names deep), counting its entries into the total."""
        self.read += 1
        if self.read > self.objects:
            self._refuse(f"reading more than {self.objects} tree objects (the limit to check one commit), at"
                         f" {prefix or 'the top'}", OBJECTS_ENV, self.objects)
        entries, deepest, longest = 0, 0, ""
        for entry in tree:
            path = f"{prefix}/{entry.name}" if prefix else entry.name
            self._length(path)
            if depth + 1 > self.depth:
                self._refuse(f"{path} is {depth + 1} names deep, over the limit of {self.depth}", DEPTH_ENV, self.depth)
            below = self._subtree(entry, path, depth) if entry.filemode == _TREE else _Subtree(0, 0, "")
            self._count(1, path)
            entries += 1 + below.entries
            deepest = max(deepest, 1 + below.depth)
            name = f"{entry.name}/{below.longest}" if below.longest else entry.name
            longest = max(longest, name, key=_size)
        return _Subtree(entries, deepest, longest)

    def _subtree(self, entry: pygit2.Tree, path: str, depth: int) -> _Subtree:
        """The subtree `entry` (at `path`), walked the first time it is named and counted again each later time."""
        below = self.known.get(entry.id)
        if below is None:
            below = self.known[entry.id] = self.tree(entry, path, depth + 1)
        elif below.longest:  # named again: its entries count again, its paths are checked here
            self._count(below.entries, path)
            if depth + 1 + below.depth > self.depth:
                self._refuse(f"{path} holds a path {depth + 1 + below.depth} names deep, over the limit of"
                             f" {self.depth}", DEPTH_ENV, self.depth)
            self._length(f"{path}/{below.longest}")
        return below

    def _count(self, added: int, path: str) -> None:
        self.counted += added
        if self.counted > self.entries:
            self._refuse(f"the tree names more than {self.entries} files and folders (the limit for one source),"
                         f" at {path}", ENTRIES_ENV, self.entries)

    def _length(self, path: str) -> None:
        size = _size(path)
        if size > self.path:
            self._refuse(f"a path of {size} bytes is over the limit of {self.path}: {path[:120]}…", PATH_ENV, self.path)

    def _refuse(self, what: str, variable: str, limit: int):
        raise UserError(
            f"{self.where}: {what}; the shape of a source's tree is checked from git's tree objects before"
            " anything of it is written (a tree naming the same folders over and over is a \"git bomb\")",
            fix=f"if the source is meant to be this big, raise the limit: {variable}={limit * 10}",
        )


def _size(path: str) -> int:
    return len(path.encode("utf-8", "surrogateescape"))


def check(tree: pygit2.Tree, where: str) -> int:
    """Refuse `tree` (a commit's) when it passes a limit; returns its number of entries."""
    return _Walk(where).tree(tree, "", 0).entries
